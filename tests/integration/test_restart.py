"""Restarts: a planned stop (SIGTERM) and a crash (kill -9) lose nothing;
live games come back paused, with their moves, offers and clocks, and the
players resume them with their tokens."""
import json
import os
import subprocess
import time
import unittest

from harness import (FISCHER_5_0, SERVER, WAIT, Closed, FreshServerTest,
                     db_args, free_port, not_in_cluster)
from wsclient import WebSocket


class RestartTest(FreshServerTest):
    def play(self, w, b, gid, moves, ply=0):
        for uci in moves.split():
            (w if ply % 2 == 0 else b).move(gid, uci, ply)
            ply += 1
            w.expect("moved", game=gid, ply=ply)
            b.expect("moved", game=gid, ply=ply)
        return ply

    @not_in_cluster("a stopped node hands its games over instead "
                    "(test_cluster's SIGTERM and whole-cluster restart)")
    def test_sigterm_then_resume(self):
        srv = self.server()
        w, b, gid = self.start_game(srv)
        self.play(w, b, gid, "e2e4 e7e5 g1f3")
        b.send({"t": "draw_offer", "game": gid})
        w.expect("draw_offered", game=gid)
        before = w.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(before["clocks"]["running"], "black")
        self.assertEqual(srv.terminate(), 0)
        for c in (w, b):
            c.expect("shutdown")
            self.assertEqual(c.ws.recv_close(), 1001)
        time.sleep(1.0)  # downtime that must be charged to no one
        srv2 = self.server()
        self.assertIn("event=restored games=1", srv2.log_text())
        w2 = self.client(srv2, token=w.token)
        self.assertEqual(w2.games, [gid])
        self.assertEqual(w2.pid, w.pid)
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5", "g1f3"])
        self.assertEqual(st["san"], ["e4", "e5", "Nf3"])
        self.assertEqual(st["draw_offer"], "black")
        self.assertEqual(st["status"], "started")
        self.assertIsNone(st["clocks"]["running"])  # paused
        self.assertIsNotNone(st["gone"]["black"])
        black_left = st["clocks"]["black_ms"]
        self.assertGreater(black_left, before["clocks"]["black_ms"] - 900)
        # charged from its last move up to the shutdown, measured on the
        # wall clock: at most its full time, never the second of downtime
        self.assertLessEqual(black_left, 300000)
        b2 = self.client(srv2, token=b.token)
        w2.expect("opponent_back", game=gid, color="black")
        st = w2.expect("state", game=gid)  # unpaused
        self.assertEqual(st["clocks"]["running"], "black")
        # play on: the offer is still there to accept
        w2.send({"t": "draw_accept", "game": gid})
        e = b2.expect("game_end", game=gid)
        self.assertEqual(e["reason"], "agreement")

    def test_kill9_loses_no_seen_move(self):
        srv = self.server()
        w, b, gid = self.start_game(srv)
        ply = self.play(w, b, gid, "d2d4 d7d5 c2c4 e7e6 b1c3")
        srv.kill()
        self.assertIsNone(w.ws.recv_close())
        srv2 = self.server()
        b2 = self.client(srv2, token=b.token)
        self.assertEqual(b2.games, [gid])
        st = b2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["ply"], ply)
        self.assertEqual(st["moves"], "d2d4 d7d5 c2c4 e7e6 b1c3".split())
        w2 = self.client(srv2, token=w.token)
        b2.expect("opponent_back", game=gid, color="white")
        b2.move(gid, "g8f6", ply)
        w2.expect("moved", game=gid, ply=ply + 1)

    def test_restored_game_abandoned_when_one_never_returns(self):
        srv = self.server(grace_s=1)
        w, b, gid = self.start_game(srv)
        self.play(w, b, gid, "e2e4 e7e5")
        srv.kill()
        srv2 = self.server(grace_s=1)
        w2 = self.client(srv2, token=w.token)
        e = w2.expect("game_end", game=gid, timeout=4)
        self.assertEqual((e["result"], e["reason"]), ("1-0", "abandoned"))

    def test_invitation_and_finished_game_survive(self):
        srv = self.server()
        a = self.client(srv)
        inv = a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        w, b, gid = self.start_game(srv)
        w.send({"t": "resign", "game": gid})
        b.expect("game_end", game=gid)
        self.assertEqual(srv.terminate(), 0)
        srv2 = self.server()
        status, body = srv2.http_json("/api/games/" + gid)
        self.assertEqual(status, 200)
        self.assertEqual(body["reason"], "resignation")
        j = self.client(srv2)
        j.send({"t": "join", "game": inv["game"]})
        j.expect("game_start", game=inv["game"])
        a2 = self.client(srv2, token=a.token)
        self.assertEqual(a2.games, [inv["game"]])

    def test_client_connecting_during_start_up_is_served(self):
        """Browsers reconnect the moment a restarted server listens. A
        connection accepted before the loop's first turn (while the store
        opens and games are restored) must be served: lws 4.1 bound such
        a connection to its HTTP protocol, so its hello went unanswered."""
        port = free_port()
        os.makedirs(self.path("web"))
        with open(self.path("server.log"), "ab") as log:
            proc = subprocess.Popen(
                [SERVER, "--listen", "127.0.0.1", "--port", str(port)]
                + db_args(self.dir, self.path("db", "chess.db"))
                + ["--web", self.path("web")], stdout=log, stderr=log)
        self.addCleanup(proc.wait, WAIT)
        self.addCleanup(proc.kill)
        deadline = time.monotonic() + WAIT
        while True:  # as early as the port accepts
            try:
                ws = WebSocket("127.0.0.1", port, timeout=WAIT)
                break
            except ConnectionRefusedError:
                self.assertLess(time.monotonic(), deadline, "never listened")
                self.assertIsNone(proc.poll(), "the server exited")
                time.sleep(0.0005)
        self.addCleanup(ws.sock.close)
        ws.send({"t": "hello"})
        self.assertEqual(json.loads(ws.recv_message())["t"], "welcome")

    @not_in_cluster("games are restored where they are adopted, not all "
                    "at start")
    def test_unloadable_games_are_logged_and_skipped(self):
        """A stored game the server cannot rebuild (an invitation from
        material no game reaches, accepted before that was checked; a
        journal with an illegal move) is logged in one line and skipped:
        the server starts, serves, and restores the other games."""
        srv = self.server()
        a, c = self.client(srv), self.client(srv)
        bad_inv = a.request({"t": "invite", "clock": FISCHER_5_0},
                            "invited")["game"]
        good_inv = c.request({"t": "invite", "clock": FISCHER_5_0},
                             "invited")["game"]
        w, b, good = self.start_game(srv)
        self.play(w, b, good, "e2e4 e7e5")
        w2, b2, bad_moves = self.start_game(srv)
        self.play(w2, b2, bad_moves, "d2d4")
        self.assertEqual(srv.terminate(), 0)
        srv.sql("UPDATE games SET initial_fen = ? WHERE gid = ?",
                "QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1",
                bad_inv)
        srv.sql("UPDATE journal SET uci = 'd2d5' WHERE gid = ?", bad_moves)

        srv2 = self.server()
        log = srv2.log_text().splitlines()
        failed = [ln for ln in log if "event=restore_failed" in ln]
        self.assertEqual(len(failed), 2, log)
        self.assertTrue(all(" error " in ln for ln in failed), failed)
        by_game = {g: [ln for ln in failed if "game=" + g + " " in ln]
                   for g in (bad_inv, bad_moves)}
        self.assertIn("impossible material", by_game[bad_inv][0])
        self.assertIn("status=waiting", by_game[bad_inv][0])
        self.assertIn("not legal", by_game[bad_moves][0])
        self.assertIn("event=restored games=2", srv2.log_text())
        # it serves: a skipped game is not live (joining it is as joining
        # an ended one), the others play on
        j = self.client(srv2)
        j.send({"t": "join", "game": bad_inv})
        j.expect_error("game_over")
        j.send({"t": "join", "game": good_inv})
        j.expect("game_start", game=good_inv)
        w3 = self.client(srv2, token=w.token)
        self.assertEqual(w3.games, [good])
        st = w3.request({"t": "sync", "game": good}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5"])
        j.request({"t": "ping"}, "pong")

    @not_in_cluster("a live game nobody hosts is adopted by the node a "
                    "command reaches")
    def test_a_live_game_not_in_memory_is_not_replayed(self):
        """A game the database holds as live but the server does not host
        (its restore failed, or it was written behind the server's back)
        is over for every command, and `sync` and the HTTP API do not
        replay it: its journal has no index by game, and a scan of it per
        request on the event loop would let one client stall every game.
        They answer as for a game that is not there."""
        srv = self.server()
        w, b, gid = self.start_game(srv)
        self.play(w, b, gid, "e2e4")
        srv.sql("INSERT INTO games (gid, per_move, initial_s, initial_fen, "
                "status, created_ms, started_ms) VALUES ('ghostGame', 0, "
                "300, ?, 'started', 1, 2)",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        srv.sql("INSERT INTO journal (gid, ply, uci, san, white_ms, "
                "black_ms, wall_ms) VALUES ('ghostGame', 1, 'e2e4', 'e4', "
                "300000, 300000, 3)")
        w.send({"t": "sync", "game": "ghostGame"})
        w.expect_error("no_such_game")
        w.send({"t": "resign", "game": "ghostGame"})
        w.expect_error("game_over")
        status, _, _ = srv.http("/api/games/ghostGame")
        self.assertEqual(status, 500)
        # the games it hosts answer as before
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4"])

    def test_unknown_token_after_restart(self):
        srv = self.server()
        c = self.client(srv, hello=False)
        c.send({"t": "hello", "token": "not-a-token"})
        c.expect_error("bad_token")
        c.send({"t": "hello"})
        c.expect("welcome")
        try:
            c.close()
        except Closed:
            pass
