"""Disconnection and return, abandonment, several connections per player,
spectators, sync and watch."""
import socket
import time

from harness import Client, ServerTest


class PresenceTest(ServerTest):
    server_args = {"grace_s": 1, "first_move_s": 30}

    def test_gone_back_and_resume(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4 e7e5")
        token = b.token
        b.close()
        g = w.expect("opponent_gone", game=gid)
        self.assertEqual(g["color"], "black")
        self.assertEqual(g["grace_ms"], 1000)
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertIsNotNone(st["gone"]["black"])
        self.assertIsNone(st["gone"]["white"])
        b2 = Client(self.server, token=token)
        self.clients.append(b2)
        self.assertEqual(b2.games, [gid])
        self.assertEqual(b2.pid, b.pid)
        w.expect("opponent_back", game=gid, color="black")
        # the resumed connection is subscribed at once
        w.move(gid, "g1f3", 2)
        b2.expect("moved", game=gid, ply=3)
        st = b2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5", "g1f3"])
        self.assertIsNone(st["gone"]["black"])

    def test_abandoned_after_grace(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4 e7e5")
        w.close()
        b.expect("opponent_gone", game=gid, color="white")
        e = b.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]), ("0-1", "abandoned"))

    def test_both_gone_one_back_within_the_grace(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4 e7e5")
        spectator = self.client()
        spectator.request({"t": "watch", "game": gid}, "state")
        spectator.expect("watchers", game=gid, n=1)
        wt, bt = w.token, b.token
        w.close()
        spectator.expect("opponent_gone", game=gid, color="white")
        b.close()
        spectator.expect("opponent_gone", game=gid, color="black")
        # back within the grace period of the later departure: still
        # going (both gone longer: test_limits.DesertedGameTest)
        spectator.quiet(0.3)
        w2 = Client(self.server, token=wt)
        self.clients.append(w2)
        spectator.expect("opponent_back", game=gid, color="white")
        # black's grace starts afresh now and runs out
        e = w2.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]), ("1-0", "abandoned"))
        del bt

    def test_several_connections(self):
        w, b, gid = self.invite_game()
        w2 = Client(self.server, token=w.token)
        self.clients.append(w2)
        self.assertEqual(w2.games, [gid])
        w2.move(gid, "d2d4", 0)
        for c in (w, w2, b):
            c.expect("moved", game=gid, ply=1)
        w.close()  # another connection of white remains: not gone
        b.move(gid, "d7d5", 1)
        w2.expect("moved", ply=2)
        b.expect("moved", ply=2)
        b.quiet(0.3)  # no opponent_gone

    def test_spectators(self):
        w, b, gid = self.invite_game()
        s = self.client()
        st = s.request({"t": "watch", "game": gid}, "state")
        self.assertEqual(st["game"], gid)
        s.expect("watchers", game=gid, n=1)
        s.move(gid, "e2e4", 0)
        s.expect_error("not_a_player")
        s.send({"t": "resign", "game": gid})
        s.expect_error("not_a_player")
        s.send({"t": "draw_offer", "game": gid})
        s.expect_error("not_a_player")
        w.move(gid, "e2e4", 0)
        m = s.expect("moved", game=gid, ply=1)
        self.assertEqual(m["san"], "e4")
        s.send({"t": "unwatch", "game": gid})
        s.request({"t": "ping"}, "pong")
        b.move(gid, "e7e5", 1)
        w.expect("moved", ply=2)
        s.quiet(0.3)
        # sync does not subscribe
        s2 = self.client()
        st = s2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["ply"], 2)
        w.move(gid, "g1f3", 2)
        b.expect("moved", ply=3)
        s2.quiet(0.3)
        # a spectator's leave only unsubscribes
        s.request({"t": "watch", "game": gid}, "state")
        s.send({"t": "leave", "game": gid})
        s.request({"t": "ping"}, "pong")
        b.move(gid, "b8c6", 3)
        w.expect("moved", ply=4)
        s.quiet(0.3)

    def test_watchers_counted_once_a_second(self):
        """The spectators' count (issue 29): in state, and in `watchers`
        to everyone in the game, at once for the first change and then at
        most once a second however many come and go; a spectator hears a
        draw offer too."""
        w, b, gid = self.invite_game()
        crowd = [self.client() for _ in range(20)]
        s = self.client()
        st = s.request({"t": "watch", "game": gid}, "state")
        self.assertEqual(st["watchers"], 1)
        for c in (w, b, s):
            self.assertEqual(c.expect("watchers", game=gid)["n"], 1)
        for c in crowd:
            c.send({"t": "watch", "game": gid})
        for c in crowd:
            c.expect("state", game=gid)
        told = []
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:
            try:
                m = w.next(timeout=max(0.01, deadline - time.monotonic()))
            except socket.timeout:
                break
            told.append(m)
        self.assertEqual([m["n"] for m in told if m["t"] == "watchers"],
                         [21], told)
        self.assertEqual(w.request({"t": "sync", "game": gid},
                                   "state")["watchers"], 21)
        for c in crowd:
            c.close()
        w.expect("watchers", game=gid, n=1, timeout=3)
        w.send({"t": "draw_offer", "game": gid})
        self.assertEqual(s.expect("draw_offered", game=gid)["color"],
                         "white")
        b.send({"t": "draw_decline", "game": gid})
        self.assertEqual(s.expect("draw_declined", game=gid)["color"],
                         "black")

    def test_watch_finished_and_unknown(self):
        w, b, gid = self.invite_game()
        w.send({"t": "resign", "game": gid})
        b.expect("game_end", game=gid)
        s = self.client()
        st = s.request({"t": "watch", "game": gid}, "state")
        self.assertEqual(st["status"], "ended")
        s.send({"t": "sync", "game": "nope"})
        s.expect_error("no_such_game")
        s.send({"t": "watch", "game": "nope"})
        s.expect_error("no_such_game")
        s.send({"t": "move", "game": "nope", "uci": "e2e4", "ply": 0})
        s.expect_error("no_such_game")
