"""Correspondence games (PROTOCOL.md section 5, "Correspondence games"),
over days of test time (PROTOCOL.md "Test time": the server started with
CHESS_TEST_CLOCK_MS takes test_clock): no first-move timeout of seconds,
no abandonment while the clock has time, a restart in the middle that
keeps each side's time from the stored times, the flag when the days run
out, and my_games for both players."""
import time

from harness import (FISCHER_5_0, FreshServerTest, ServerTest,
                     not_in_cluster)

DAY_S = 86400
DAY_MS = DAY_S * 1000


def days(n):
    return {"type": "per_move", "per_move_s": n * DAY_S}


class TestTime:
    """A server's test time: what the test has moved it by (ms), to start
    a later run of the server at the same time."""

    def __init__(self):
        self.offset_ms = 0

    def env(self):
        return {"CHESS_TEST_CLOCK_MS": str(self.offset_ms)}

    def advance(self, client, seconds):
        client.request({"t": "test_clock", "advance_s": seconds}, "pong")
        self.offset_ms += seconds * 1000


def mine(client):
    """The client's my_games list, as {gid: entry}."""
    games = client.request({"t": "my_games"}, "my_games")["games"]
    return [g["game"] for g in games], {g["game"]: g for g in games}


@not_in_cluster("test time is one process's clock")
class CorrespondenceTest(FreshServerTest):
    def setUp(self):
        super().setUp()
        self.time = TestTime()

    play = ServerTest.play

    def serve(self, **kw):
        return self.server(env=self.time.env(), **kw)

    def test_first_move_not_timed_out_after_30_s(self):
        srv = self.serve()  # --first-move-s 30, as by default
        w, b, corr = self.start_game(srv, clock=days(1))
        _, _, live = self.start_game(srv, clock=FISCHER_5_0)
        st = w.request({"t": "sync", "game": corr}, "state")
        self.assertAlmostEqual(st["first_move_ms"], DAY_MS, delta=5000)
        self.time.advance(w, 31)
        # the live game ended as it always has; the correspondence one not
        e = self.clients[2].expect("game_end", game=live)
        self.assertEqual(e["reason"], "no_start")
        st = w.request({"t": "sync", "game": corr}, "state")
        self.assertEqual(st["status"], "started")
        self.assertLessEqual(st["first_move_ms"], DAY_MS - 31000)
        self.assertGreater(st["first_move_ms"], DAY_MS - 40000)
        # its first-move time is the day a move: past it, no start
        self.time.advance(w, DAY_S - 30)
        time.sleep(0.5)  # keepalive's ticks, b reading nothing meanwhile
        e = b.expect("game_end", game=corr)
        self.assertEqual((e["result"], e["reason"]), ("*", "no_start"))
        # the connections lived through the day (test time moves their
        # keepalive on too): not cut as a day without a pong
        b.request({"t": "ping"}, "pong")

    def test_days_of_absence_a_restart_and_the_flag(self):
        srv = self.serve(grace_s=10)
        w, b, gid = self.start_game(srv, clock=days(3))
        self.play(w, b, gid, "e2e4 e7e5 g1f3")
        order, games = mine(b)
        self.assertEqual(order, [gid])
        self.assertEqual((games[gid]["your_turn"], games[gid]["color"],
                          games[gid]["correspondence"], games[gid]["ply"]),
                         (True, "black", True, 3))
        self.assertEqual(games[gid]["opponent"]["id"], w.pid)
        _, games = mine(w)
        self.assertFalse(games[gid]["your_turn"])
        # both close their pages for a day: no abandonment, no notice
        w.close()
        b.quiet(0.5)  # (no opponent_gone: closing the page is not leaving)
        b.close()
        o = self.client(srv)
        self.time.advance(o, DAY_S)
        b = self.client(srv, token=b.token)
        self.assertEqual(b.games, [gid])
        st = b.request({"t": "sync", "game": gid}, "state")
        self.assertEqual((st["status"], st["clocks"]["running"]),
                         ("started", "black"))
        self.assertEqual(st["gone"], {"white": None, "black": None})
        left = st["clocks"]["black_ms"]
        self.assertLessEqual(left, 2 * DAY_MS)
        self.assertGreater(left, 2 * DAY_MS - 10000)
        # white stays away; black is back a day later still: no grace
        self.time.advance(b, DAY_S)
        b.quiet(0.3)
        b.move(gid, "b8c6", 3)
        b.expect("moved", game=gid, ply=4)
        # a restart in the middle of white's turn, a day into it
        self.time.advance(b, DAY_S)
        self.assertEqual(srv.terminate(), 0)
        srv2 = self.serve(grace_s=10)
        w2 = self.client(srv2, token=w.token)
        st = w2.request({"t": "sync", "game": gid}, "state")
        # not paused for anyone: white's clock runs, its day charged
        self.assertEqual(st["clocks"]["running"], "white")
        self.assertLessEqual(st["clocks"]["white_ms"], 2 * DAY_MS)
        self.assertGreater(st["clocks"]["white_ms"], 2 * DAY_MS - 10000)
        order, games = mine(w2)
        self.assertEqual(order, [gid])
        self.assertTrue(games[gid]["your_turn"])
        self.assertAlmostEqual(games[gid]["left_ms"], 2 * DAY_MS,
                               delta=10000)
        # white's page closes; the two days left run out: the flag
        w2.close()
        b2 = self.client(srv2, token=b.token)
        self.assertFalse(mine(b2)[1][gid]["your_turn"])
        self.time.advance(b2, 2 * DAY_S)
        e = b2.expect("game_end", game=gid)
        self.assertEqual((e["result"], e["reason"]), ("0-1", "timeout"))
        self.assertEqual(mine(b2)[0], [])

    def test_a_restart_keeps_the_first_move_time_used(self):
        srv = self.serve()
        w, b, gid = self.start_game(srv, clock=days(2))
        self.time.advance(w, DAY_S)
        time.sleep(1.5)  # a heartbeat (once a second) after the day
        srv.kill()  # a crash: charged up to the last heartbeat
        srv2 = self.serve()
        w2 = self.client(srv2, token=w.token)
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["status"], "started")
        self.assertLessEqual(st["first_move_ms"], DAY_MS)
        self.assertGreater(st["first_move_ms"], DAY_MS - 10000)

    def test_my_games_your_turn_first(self):
        srv = self.serve()
        a, b, g1 = self.start_game(srv, clock=days(1))
        c = self.client(srv)
        g2 = c.request({"t": "invite", "clock": days(7), "color": "black"},
                       "invited")["game"]
        a.send({"t": "join", "game": g2})  # a is white in both
        a.expect("game_start", game=g2)
        self.play(a, b, g1, "d2d4")
        order, games = mine(a)
        self.assertEqual(order, [g2, g1])  # a's move in g2 first
        self.assertEqual([games[g]["your_turn"] for g in order],
                         [True, False])
        self.assertEqual(games[g2]["clock"], days(7))
        self.assertAlmostEqual(games[g2]["left_ms"], 7 * DAY_MS,
                               delta=5000)  # its first move's time
        self.assertEqual(mine(b)[0], [g1])
        self.assertTrue(mine(b)[1][g1]["your_turn"])
        self.assertEqual(mine(c)[1][g2]["color"], "black")
        self.assertFalse(mine(c)[1][g2]["your_turn"])


class TestClockOffTest(ServerTest):
    """A server started without CHESS_TEST_CLOCK_MS has no test time."""

    def test_test_clock_unknown(self):
        a = self.client()
        e = a.request({"t": "test_clock", "advance_s": 60}, "error")
        self.assertEqual(e["code"], "unknown_type")

    def test_fourteen_days_a_move_and_no_more(self):
        a = self.client()
        a.request({"t": "seek", "clock": days(14)}, "seeking")
        a.send({"t": "cancel_seek"})
        e = a.request({"t": "invite", "clock": {
            "type": "per_move", "per_move_s": 14 * DAY_S + 1}}, "error")
        self.assertEqual(e["code"], "bad_clock")
