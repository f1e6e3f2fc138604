"""Computer analysis of a finished game over the real server (PROTOCOL.md,
"Computer analysis"): with Debian's Stockfish at a tiny node budget, a
short game's blunder marked with the best move instead, the progress
pushed, the figures and the engine line stored and sent again (never
analysed twice), the PGN's evals; the refusals (a live game, no such
game, one at a time per player and per address, a number a day, a full
queue) and a player's own game before a spectator's; with the fake
engine (tests/unit/fake_uci.c), an engine that crashes once is re-asked
and one that always crashes reports its positions failed; and a job
under way when the server is killed is queued again after the restart.
"""
import json
import os
import time
import unittest

from harness import (CLUSTER, WAIT, FreshServerTest, not_in_cluster,
                     wait_until)

FAKE = os.environ.get("CHESS_FAKE_UCI", "")
BLITZ = {"type": "fischer", "initial_s": 180, "increment_s": 2}
# 3... Nf6?? allows 4. Qxf7#: a blunder by lichess's mate rule.
BLUNDER_GAME = "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7"
TINY = {"analysis_nodes": 2000}


def play(w, b, gid, moves):
    """Plays UCI moves from ply 0, White first; waits for each."""
    players = [w, b]
    for ply, uci in enumerate(moves.split()):
        players[ply % 2].move(gid, uci, ply)
        for c in players:
            c.expect("moved", game=gid, ply=ply + 1)


def analysed(srv, c):
    """The `analysed` marks of c's finished games, newest first."""
    body = srv.http("/api/players/%s/games" % c.pid)[2]
    return [g["analysed"] for g in json.loads(body)["games"]]


class AnalysisBase(FreshServerTest):
    def finished_game(self, srv, moves="e2e4 e7e5", source=None):
        """A game of two new players (from source) that White resigned
        after moves (or that ended in them); returns (w, b, gid)."""
        kw = {"source": source} if source else {}
        w, b, gid = self.start_game(srv, clock=BLITZ, **kw)
        play(w, b, gid, moves)
        if moves != BLUNDER_GAME:
            w.send({"t": "resign", "game": gid})
        for c in (w, b):
            c.expect("game_end", game=gid)
        return w, b, gid

    def done(self, c, gid, timeout=WAIT * 2):
        return c.expect("analysis", game=gid, status="done", timeout=timeout)


@not_in_cluster("a job runs on the node asked (PROTOCOL.md)")
class StockfishAnalysisTest(AnalysisBase):
    def test_blunder_marked_progress_and_stored_once(self):
        srv = self.server(config=TINY)
        w, b, gid = self.finished_game(srv, BLUNDER_GAME)
        self.assertEqual(analysed(srv, b), [False])
        first = w.request({"t": "analyse", "game": gid}, "analysis")
        self.assertIn(first["status"], ("queued", "running"))
        self.assertEqual(first["total"], 8)
        progress = w.expect("analysis_progress", game=gid)
        self.assertEqual(progress["total"], 8)
        a = self.done(w, gid)
        # the players' lists, once the result is committed (it is sent
        # before: an analysis acknowledges no one's action)
        wait_until(lambda: analysed(srv, b) == [True], "analysed in list")
        pos = a["positions"]
        self.assertEqual(len(pos), 8)
        self.assertEqual(pos[7], {"checkmate": True})  # (no engine asked)
        self.assertEqual(pos[6].get("mate"), 1)
        self.assertEqual(pos[6]["judgement"], "blunder")
        self.assertNotEqual(pos[5]["best"], "g8f6")
        self.assertTrue(pos[5]["best_san"])
        self.assertEqual(a["counts"]["black"]["blunder"], 1)
        self.assertGreater(a["accuracy"]["white"], a["accuracy"]["black"])
        self.assertTrue(a["engine"].startswith("Stockfish"), a["engine"])
        self.assertEqual(a["nodes"], 2000)
        self.assertEqual(a["options"]["Threads"], "1")
        # asked again, by a player or anyone: the stored one, not a new job
        again = w.request({"t": "analyse", "game": gid}, "analysis")
        self.assertEqual(again["positions"], pos)
        other = self.client(srv, source="127.0.0.9")
        got = other.request({"t": "analysis", "game": gid}, "analysis")
        self.assertEqual((got["status"], got["positions"]), ("done", pos))
        self.assertEqual(srv.log_text().count("event=analysis_start"), 1)
        # the PGN carries each move's evaluation
        pgn = srv.http("/api/games/%s/pgn" % gid)[2].decode()
        # (beside the clock; a move given lag credit has its [%lag] after)
        self.assertRegex(pgn, r"Nf6\s\{ \[%clk [0-9:]+\] \[%eval #1\][] ]")
        self.assertRegex(pgn, r"1\. e4\s\{ \[%clk [0-9:]+\] "
                              r"\[%eval -?\d+\.\d\d\][] ]")

    def test_refusals(self):
        srv = self.server(config=dict(TINY, analyses_per_day=1))
        w, b, gid = self.finished_game(srv)
        # a live game, no such game
        w2, b2, live = self.start_game(srv, clock=BLITZ, source="127.0.0.2")
        r = w2.request({"t": "analyse", "game": live}, "error")
        self.assertEqual(r["code"], "not_finished")
        r = w2.request({"t": "analyse", "game": "nosuchgame"}, "error")
        self.assertEqual(r["code"], "no_such_game")
        none = w2.request({"t": "analysis", "game": gid}, "analysis")
        self.assertEqual(none["status"], "none")
        # a day's number: one
        w.request({"t": "analyse", "game": gid}, "analysis")
        self.done(w, gid)
        w3, b3, gid3 = self.finished_game(srv, source="127.0.0.3")
        r = w.request({"t": "analyse", "game": gid3}, "error")
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn("24 hours", r["msg"])
        # someone else's day is not w's: b3 asks for its own game
        b3.request({"t": "analyse", "game": gid3}, "analysis")
        self.done(b3, gid3)

    def test_a_week_of_analyses(self):
        """3 a day and 4 in 7 days: past two thirds of the week (2) the
        day's limit is 2; the 7 days' limit holds on later days; 7 days
        after the first ones, the week is free again (test time)."""
        srv = self.server(config=dict(TINY, analyses_per_day=3,
                                      analyses_per_week=4),
                          env={"CHESS_TEST_CLOCK_MS": "0"})
        games = [self.finished_game(srv, source="127.0.1.%d" % i)
                 for i in range(1, 6)]
        asker = self.client(srv, source="127.0.0.7")

        def ask(i, code=None):
            gid = games[i][2]
            if code:
                return asker.request({"t": "analyse", "game": gid}, "error")
            asker.request({"t": "analyse", "game": gid}, "analysis")
            self.done(asker, gid)

        def advance(seconds):
            asker.request({"t": "test_clock", "advance_s": seconds}, "pong")

        ask(0)
        ask(1)
        r = ask(2, "error")  # the week at 2 of 4: the day's 3 is now 2
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn("2 analyses in 24 hours", r["msg"])
        advance(25 * 3600)
        ask(2)
        ask(3)
        r = ask(4, "error")
        self.assertIn("4 analyses in 7 days", r["msg"])
        advance(6 * 24 * 3600)  # 7 days and 1 h after the first two
        ask(4)


@not_in_cluster("the fake engine's environment is one process's")
class FakeEngineAnalysisTest(AnalysisBase):
    def fake(self, mode, once=False, config=None, delay_ms=None, env=None):
        if not FAKE:
            self.skipTest("CHESS_FAKE_UCI not set")
        env = dict(env or {}, FAKE_UCI_MODE=mode)
        if once:
            env["FAKE_UCI_ONCE"] = self.path("once")
        if delay_ms:
            env["FAKE_UCI_DELAY_MS"] = str(delay_ms)
        return self.server(config=config,
                           extra=["--engine-path", FAKE, "--engines", "1"],
                           env=env)

    def test_crash_once_is_asked_again(self):
        srv = self.fake("crash", once=True)
        w, b, gid = self.finished_game(srv)
        w.request({"t": "analyse", "game": gid}, "analysis")
        a = self.done(w, gid)
        self.assertFalse([p for p in a["positions"] if "failed" in p])
        self.assertIn("event=engine_restart reason=crash", srv.log_text())

    def test_always_crashing_reports_failed_positions(self):
        srv = self.fake("crash")
        w, b, gid = self.finished_game(srv)
        w.request({"t": "analyse", "game": gid}, "analysis")
        a = self.done(w, gid, timeout=WAIT * 4)
        self.assertEqual(a["positions"], [{"failed": True}] * 3)
        self.assertEqual(a["accuracy"], {"white": None, "black": None})

    def test_limits_queue_and_order(self):
        srv = self.fake("slow", delay_ms=400, config={"analysis_queue": 2})
        w1, b1, g1 = self.finished_game(srv, source="127.0.0.2")
        w2, b2, g2 = self.finished_game(srv, source="127.0.0.3")
        w3, b3, g3 = self.finished_game(srv, source="127.0.0.4")
        w4, b4, g4 = self.finished_game(srv, source="127.0.0.5")
        w1.request({"t": "analyse", "game": g1}, "analysis")  # runs
        # a watcher of g1 hears its progress
        watcher = self.client(srv, source="127.0.0.7")
        watcher.request({"t": "analysis", "game": g1}, "analysis")
        # one at a time per player, and per address
        r = w1.request({"t": "analyse", "game": g2}, "error")
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn("you have", r["msg"])
        r = b1.request({"t": "analyse", "game": g2}, "error")
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn("address", r["msg"])
        # a spectator's request for g3, then a player's own g2: g2 first
        spect = self.client(srv, source="127.0.0.6")
        q = spect.request({"t": "analyse", "game": g3}, "analysis")
        self.assertEqual(q["status"], "queued")
        w2.request({"t": "analyse", "game": g2}, "analysis")
        # the queue (2 waiting) is full
        r = w4.request({"t": "analyse", "game": g4}, "error")
        self.assertEqual((r["code"], r["msg"]),
                         ("busy", "the analysis queue is full: try later"))
        watcher.expect("analysis_progress", game=g1)
        for c, g in ((w1, g1), (w2, g2), (spect, g3)):
            self.done(c, g, timeout=WAIT * 4)
        starts = [line.split("game=")[1].split()[0]
                  for line in srv.log_text().splitlines()
                  if "event=analysis_start" in line]
        self.assertEqual(starts, [g1, g2, g3])

    def test_a_job_that_ends_during_the_count_is_counted_once(self):
        """Two a day, both asked at once: the second's count waits on the
        reader (CHESS_TEST_ANALYSIS_COUNT_MS) while the first's job runs
        and ends, then finds its row, whose result the server still holds
        as not yet seen by every read (the second's read began before the
        job): counted once, so the second is queued, and a third is
        refused at 2."""
        srv = self.fake("ok", config={"analyses_per_day": 2},
                        env={"CHESS_TEST_CLOCK_MS": "0",
                             "CHESS_TEST_ANALYSIS_COUNT_MS": "600"})
        games = [self.finished_game(srv, source="127.0.1.%d" % i)[2]
                 for i in (1, 2, 3)]
        asker = self.client(srv, source="127.0.0.7")
        asker.send({"t": "analyse", "game": games[0], "id": 1})
        asker.send({"t": "analyse", "game": games[1], "id": 2})
        order = []
        while len(order) < 3:
            m = asker.next(timeout=WAIT * 2)
            if m.get("id") == 2:
                self.assertEqual((m["t"], m.get("game")),
                                 ("analysis", games[1]), m)
                order.append("second asked")
            elif m["t"] == "analysis" and m.get("status") == "done":
                order.append("done " + m["game"])
        self.assertEqual(order, ["done " + games[0], "second asked",
                                 "done " + games[1]])
        r = asker.request({"t": "analyse", "game": games[2]}, "error")
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn("2 analyses in 24 hours", r["msg"])

    def test_restart_requeues(self):
        srv = self.fake("slow", delay_ms=500)
        w, b, gid = self.finished_game(srv)
        token = w.token
        w.request({"t": "analyse", "game": gid}, "analysis")
        w.expect("analysis_progress", game=gid, timeout=WAIT * 2)
        srv.kill()
        srv.start()
        c = self.client(srv, token=token)
        # (the restart's read of the queued rows may come after the ask)
        for _ in range(100):
            r = c.request({"t": "analysis", "game": gid}, "analysis")
            if r["status"] != "queued" or "positions" in r:
                break
            time.sleep(0.05)
        a = r if r["status"] == "done" else self.done(c, gid, WAIT * 4)
        self.assertEqual(len(a["positions"]), 3)
        self.assertFalse([p for p in a["positions"] if "failed" in p])
        self.assertIn("event=analysis_requeued game=%s" % gid,
                      srv.log_text())


def node_log(srv, i):
    return srv.nodes[i].log_text()


@unittest.skipUnless(CLUSTER, "a cluster's (test_analysis_cluster)")
class ClusterAnalysisTest(AnalysisBase):
    """Two nodes with the fake engine (slow): the job runs on one node,
    its page is open on the other (docs/cluster.md, "Computer analysis")."""

    def cluster(self, delay_ms=300, node_extra=None, config=None):
        if not FAKE:
            self.skipTest("CHESS_FAKE_UCI not set")
        return self.server(nodes=2, config=config,
                           extra=["--engine-path", FAKE, "--engines", "1"],
                           env={"FAKE_UCI_MODE": "slow",
                                "FAKE_UCI_DELAY_MS": str(delay_ms)},
                           node_extra=node_extra)

    def test_progress_and_result_reach_the_other_node(self):
        srv = self.cluster()
        srv.pin(0)
        w, b, gid = self.finished_game(srv, "e2e4 e7e5 g1f3 b8c6")
        w.request({"t": "analyse", "game": gid}, "analysis")
        w.expect("analysis_progress", game=gid, timeout=WAIT * 2)
        srv.pin(1)  # a spectator's page on the other node
        page = self.client(srv, source="127.0.0.7")
        first = page.request({"t": "analysis", "game": gid}, "analysis")
        self.assertEqual(first["status"], "queued")
        heard = []
        while True:
            m = page.next(timeout=WAIT * 2)
            if m.get("game") != gid:
                continue
            if m["t"] == "analysis":
                break
            if m["t"] == "analysis_progress":
                heard.append(m["done"])
        self.assertTrue(heard, "no progress heard on the other node")
        self.assertEqual(heard, sorted(heard))  # in order
        self.assertEqual(m["status"], "done")
        mine = self.done(w, gid)
        self.assertEqual(m["positions"], mine["positions"])
        self.assertEqual(len(m["positions"]), 5)
        # the job ran on node 1 alone; a late joiner on node 2 gets it
        self.assertIn("event=analysis_start game=" + gid, node_log(srv, 0))
        self.assertNotIn("event=analysis_start", node_log(srv, 1))
        late = self.client(srv, source="127.0.0.8")
        got = late.request({"t": "analysis", "game": gid}, "analysis")
        self.assertEqual((got["status"], got["positions"]),
                         ("done", mine["positions"]))

    def test_a_node_without_engines_has_its_jobs_run_elsewhere(self):
        """Node 1 runs no engine: its players' analyses run on node 2's
        pool; the limits and the queue's bound hold over both nodes."""
        srv = self.cluster(node_extra={0: ["--engine-path", ""]},
                           config={"analysis_queue": 1})
        srv.pin(0)
        w1, b1, g1 = self.finished_game(srv, source="127.0.0.2")
        w3, b3, g3 = self.finished_game(srv, source="127.0.0.3")
        w4, b4, g4 = self.finished_game(srv, source="127.0.0.4")
        first = w1.request({"t": "analyse", "game": g1}, "analysis")
        self.assertEqual((first["status"], len(first["positions"])),
                         ("queued", 3))
        w1.expect("analysis_progress", game=g1, timeout=WAIT * 2)
        # one at a time per player and per address, asked on node 2
        srv.pin(1)
        again = self.client(srv, token=w1.token, source="127.0.0.2")
        r = again.request({"t": "analyse", "game": g3}, "error")
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn("you have", r["msg"])
        r = self.client(srv, source="127.0.0.2").request(
            {"t": "analyse", "game": g3}, "error")
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn("address", r["msg"])
        # g3 waits (node 2 runs g1), and the queue of 1 is full
        q = w3.request({"t": "analyse", "game": g3}, "analysis")
        self.assertEqual(q["status"], "queued")
        r = w4.request({"t": "analyse", "game": g4}, "error")
        self.assertEqual((r["code"], r["msg"]),
                         ("busy", "the analysis queue is full: try later"))
        a = self.done(w1, g1, timeout=WAIT * 4)
        self.assertEqual(len(a["positions"]), 3)
        self.done(w3, g3, timeout=WAIT * 4)
        self.assertNotIn("event=analysis_start", node_log(srv, 0))
        starts = node_log(srv, 1).count("event=analysis_start")
        self.assertEqual(starts, 2)

    def test_a_day_s_count_holds_over_the_nodes(self):
        """One a day: a job asked on node 1 (no engine) runs on node 2;
        the next ask is refused on either node, the job counted once
        (on node 2, whose read and results both know it, not twice)."""
        srv = self.cluster(node_extra={0: ["--engine-path", ""]},
                           config={"analyses_per_day": 1})
        srv.pin(0)
        w1, b1, g1 = self.finished_game(srv, source="127.0.0.2")
        w2, b2, g2 = self.finished_game(srv, source="127.0.0.3")
        w1.request({"t": "analyse", "game": g1}, "analysis")
        self.done(w1, g1, timeout=WAIT * 4)
        self.assertIn("event=analysis_start game=" + g1, node_log(srv, 1))
        one = "you have asked for 1 analyses in 24 hours"
        r = w1.request({"t": "analyse", "game": g2}, "error")
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn(one, r["msg"])
        srv.pin(1)
        again = self.client(srv, token=w1.token, source="127.0.0.4")
        r = again.request({"t": "analyse", "game": g2}, "error")
        self.assertEqual(r["code"], "analysis_limit")
        self.assertIn(one, r["msg"])
        # another player's day is its own, on either node
        b2.request({"t": "analyse", "game": g2}, "analysis")
        self.done(b2, g2, timeout=WAIT * 4)

    def test_a_job_whose_node_dies_is_taken_up_by_another(self):
        srv = self.cluster(delay_ms=400)
        srv.pin(0)
        w, b, gid = self.finished_game(srv, "e2e4 e7e5 g1f3 b8c6")
        srv.pin(1)
        page = self.client(srv, source="127.0.0.7")
        w.request({"t": "analyse", "game": gid}, "analysis")
        w.expect("analysis_progress", game=gid, timeout=WAIT * 2)
        page.request({"t": "analysis", "game": gid}, "analysis")
        runner = next(i for i in (0, 1) if "event=analysis_start game=" +
                      gid in node_log(srv, i))
        survivor = 1 - runner
        srv.nodes[runner].kill()
        watcher = (w, page)[survivor]
        a = self.done(watcher, gid, timeout=WAIT * 4)
        self.assertEqual(len(a["positions"]), 5)
        self.assertFalse([p for p in a["positions"] if "failed" in p])
        log = node_log(srv, survivor)
        self.assertIn("event=analysis_taken game=%s how=again" % gid, log)
        # stored once, done: a new page on the survivor reads it
        c = self.client(srv, source="127.0.0.8")
        got = c.request({"t": "analysis", "game": gid}, "analysis")
        self.assertEqual((got["status"], got["positions"]),
                         ("done", a["positions"]))

    def test_a_busy_node_s_request_runs_on_the_other(self):
        """Two requests on node 1: node 1 runs one, node 2 the other (a
        node runs one job at a time, and node 2 takes the next job within
        a second, long before node 1 is done); each requester hears its
        own."""
        srv = self.cluster(delay_ms=500)
        srv.pin(0)
        moves = "e2e4 e7e5 g1f3 b8c6"
        w1, b1, g1 = self.finished_game(srv, moves, source="127.0.0.2")
        w2, b2, g2 = self.finished_game(srv, moves, source="127.0.0.3")
        w1.request({"t": "analyse", "game": g1}, "analysis")
        w2.request({"t": "analyse", "game": g2}, "analysis")
        for c, g in ((w1, g1), (w2, g2)):
            self.done(c, g, timeout=WAIT * 4)
        ran = [sum(node_log(srv, i).count("event=analysis_start game=" + g)
                   for g in (g1, g2)) for i in (0, 1)]
        self.assertEqual(ran, [1, 1])
