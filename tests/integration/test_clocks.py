"""Server-side clocks: flag by timeout and against insufficient material,
moves after the flag, the first-move rule, per-move budgets, increments."""
from harness import ServerTest

TINY = {"type": "fischer", "initial_s": 1, "increment_s": 0}


class ClockTest(ServerTest):
    server_args = {"first_move_s": 1}

    def test_timeout(self):
        w, b, gid = self.invite_game(clock=TINY)
        self.play(w, b, gid, "e2e4 e7e5")
        e = w.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]), ("0-1", "timeout"))
        b.expect("game_end", game=gid)
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["clocks"]["white_ms"], 0)
        self.assertEqual(st["clocks"]["black_ms"], 1000)

    def test_timeout_vs_insufficient(self):
        # white to move flags; black has a lone king and cannot mate
        w, b, gid = self.invite_game(clock=TINY,
                                     fen="k7/8/8/8/8/8/8/KQ6 w - - 0 1")
        self.play(w, b, gid, "b1b2 a8a7")
        e = b.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]),
                         ("1/2-1/2", "timeout_vs_insufficient"))

    def test_timeout_vs_blocked_position(self):
        # black to move flags; white's rook is walled in behind its own
        # pawns and can never mate, which only the bounded search proves
        w, b, gid = self.invite_game(
            clock=TINY, fen="2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - - 0 1")
        self.play(b, w, gid, "c8b8 h3h4")
        e = w.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]),
                         ("1/2-1/2", "timeout_vs_insufficient"))

    def test_move_after_flag_is_refused(self):
        w, b, gid = self.invite_game(clock=TINY)
        self.play(w, b, gid, "e2e4 e7e5")
        e = b.expect("game_end", game=gid, timeout=3)
        w.move(gid, "g1f3", 2)
        w.expect_error("game_over")
        self.assertEqual(e["reason"], "timeout")

    def test_first_move_abort_white(self):
        w, b, gid = self.invite_game()
        e = b.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]), ("*", "aborted"))

    def test_first_move_abort_black(self):
        w, b, gid = self.invite_game()
        w.move(gid, "e2e4", 0)
        m = b.expect("moved", game=gid, ply=1)
        self.assertGreater(m["first_move_ms"], 0)
        self.assertLessEqual(m["first_move_ms"], 1000)
        e = w.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]), ("*", "aborted"))

    def test_clocks_start_after_both_first_moves(self):
        clock = {"type": "fischer", "initial_s": 60, "increment_s": 5}
        w, b, gid = self.invite_game(clock=clock)
        self.play(w, b, gid, "e2e4")
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertIsNone(st["clocks"]["running"])
        self.assertEqual(st["clocks"]["white_ms"], 60000)  # no increment
        self.play(w, b, gid, "e7e5", 1)
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["clocks"]["running"], "white")
        self.assertEqual(st["clocks"]["black_ms"], 60000)
        self.assertIsNone(st["first_move_ms"])
        w.move(gid, "g1f3", 2)
        m = b.expect("moved", ply=3)
        # white got the 5 s increment: more than it started with
        self.assertGreater(m["clocks"]["white_ms"], 60000)
        self.assertLessEqual(m["clocks"]["white_ms"], 65000)
        self.assertEqual(m["clocks"]["running"], "black")

    def test_per_move_budget(self):
        clock = {"type": "per_move", "per_move_s": 1}
        w, b, gid = self.invite_game(clock=clock)
        self.play(w, b, gid, "e2e4 e7e5")
        w.move(gid, "g1f3", 2)
        m = b.expect("moved", ply=3)
        self.assertEqual(m["clocks"]["white_ms"], 1000)  # budget restored
        self.assertEqual(m["clocks"]["running"], "black")
        e = w.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]), ("1-0", "timeout"))
