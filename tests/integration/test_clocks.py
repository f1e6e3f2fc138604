"""Server-side clocks: flag by timeout and against insufficient material,
moves after the flag, the first-move rule, per-move budgets, increments."""
import time

from harness import FreshServerTest, ServerTest, one_node

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
        self.assertEqual(e["proof"], {"white": None, "black": "material"})

    def test_timeout_vs_blocked_position(self):
        # black to move flags; white's rook is walled in behind its own
        # pawns and can never mate, which only the bounded search proves
        w, b, gid = self.invite_game(
            clock=TINY, fen="2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - - 0 1")
        self.play(b, w, gid, "c8b8 h3h4")
        e = w.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]),
                         ("1/2-1/2", "timeout_vs_insufficient"))
        # the search's proof, with the positions it examined
        self.assertEqual((e["proof"]["white"], e["proof"]["black"]),
                         ("search", None))
        self.assertGreater(e["proof"]["positions"], 1)
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["proof"], e["proof"])

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
        self.assertEqual((e["result"], e["reason"]), ("*", "no_start"))

    def test_first_move_abort_black(self):
        w, b, gid = self.invite_game()
        w.move(gid, "e2e4", 0)
        m = b.expect("moved", game=gid, ply=1)
        self.assertGreater(m["first_move_ms"], 0)
        self.assertLessEqual(m["first_move_ms"], 1000)
        e = w.expect("game_end", game=gid, timeout=3)
        self.assertEqual((e["result"], e["reason"]), ("*", "no_start"))

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


class StallTest(FreshServerTest):
    """The database refuses writes for a while (another connection holds
    its write lock): a move nobody has seen yet costs nobody time."""

    @one_node

    def test_locked_database_charges_nobody_for_a_withheld_move(self):
        srv = self.server()
        w, b, gid = self.start_game(
            srv, clock={"type": "per_move", "per_move_s": 2})
        ServerTest.play(self, w, b, gid, "e2e4 e7e5")  # clocks run now
        lock = srv.hold_writer()
        try:
            t0 = time.monotonic()
            w.move(gid, "g1f3", 2)
            # after a second everyone hears why nothing comes
            s = b.expect("store_stall", timeout=3)
            self.assertGreaterEqual(s["stalled_ms"], 1000)
            w.expect("store_stall")
            # held twice black's budget, so far
            time.sleep(max(0.0, 4.0 - (time.monotonic() - t0)))
            self.assertFalse([m for m in b.backlog
                              if m["t"] in ("moved", "game_end")])
        finally:
            lock.release()
        m = b.expect("moved", game=gid, ply=3)
        shown = time.monotonic()
        self.assertGreater(shown - t0, 3.5)
        # black's whole budget runs from now, not from white's move
        self.assertEqual(m["clocks"]["running"], "black")
        self.assertEqual(m["clocks"]["black_ms"], 2000)
        time.sleep(1.0)  # half of it thinking: still in time
        b.move(gid, "b8c6", 3)
        for c in (w, b):
            c.expect("moved", game=gid, ply=4)
        # the stall is over once the store kept up for a while (3 s)
        r = b.expect("store_resumed", timeout=5)
        self.assertGreater(time.monotonic() - shown, 2.5)
        self.assertGreater(r["stalled_ms"], 3000)
        self.assertFalse([m for m in b.backlog if m["t"] == "game_end"])
        # and it does run: white now lets its 2 s pass
        e = b.expect("game_end", game=gid, timeout=5)
        self.assertEqual((e["result"], e["reason"]), ("0-1", "timeout"))
        self.assertIn("event=store_stall", srv.log_text())
        self.assertIn("event=store_resumed", srv.log_text())

    @one_node
    def test_a_disk_slow_at_every_commit_stalls_once(self):
        """Commits that each take a little more than the stall's second
        (a slow disk): one store_stall, and one store_resumed once the
        store has kept up for 3 s; not a pair at every move (they came
        every 0.8 s)."""
        srv = self.server()
        w, b, gid = self.start_game(srv)
        ServerTest.play(self, w, b, gid, "e2e4 e7e5")
        for ply, uci in enumerate(("g1f3", "b8c6", "f1c4"), 2):
            lock = srv.hold_writer()
            try:
                (w if ply % 2 == 0 else b).move(gid, uci, ply)
                time.sleep(1.3)
            finally:
                lock.release()
            for c in (w, b):
                c.expect("moved", game=gid, ply=ply + 1)
        b.expect("store_resumed", timeout=5)
        w.expect("store_resumed", timeout=1)
        for c in (w, b):
            self.assertEqual(len([m for m in c.backlog
                                  if m["t"] == "store_stall"]), 1)
            self.assertEqual([m for m in c.backlog
                              if m["t"] == "store_resumed"], [])
            c.backlog = []
            c.quiet(0.3)
        log = srv.log_text()
        self.assertEqual(log.count("event=store_stall "), 1, log)
        self.assertEqual(log.count("event=store_resumed "), 1, log)
