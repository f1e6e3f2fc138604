"""A cluster of nodes (docs/cluster.md): what
happens to a game when its host dies (kill -9), stops (SIGTERM), pauses
past its lease (SIGSTOP), or when Redis restarts; and the lobby's seeks
placed at once on every node. The players of each game are on
different nodes. Runs only as a cluster (CHESS_TEST_CLUSTER=3)."""
import os
import signal
import subprocess
import time
import unittest

import harness
from harness import CLUSTER, FISCHER_5_0, FreshServerTest, WAIT

LEASE_S = 3.0  # server/cluster/cluster.h: CLUSTER_LEASE_MS
TICK_S = 1.0   # CLUSTER_TICK_MS


@unittest.skipUnless(CLUSTER >= 3, "a cluster of 3 nodes (CHESS_TEST_CLUSTER)")
class ClusterTest(FreshServerTest):
    """A cluster of its own per test (nodes die in them)."""

    def setUp(self):
        super().setUp()
        self.srv = self.server({"max_connections_per_ip": 5000,
                                "max_invites_per_ip": 5000})

    def client_on(self, i, **kw):
        self.srv.pin(i)
        try:
            return self.client(self.srv, **kw)
        finally:
            self.srv.pin(None)

    def game_on(self, host, other):
        """White on node host (the game's host: its invitation was made
        there), black on node other, both past their first moves;
        returns (white, black, gid)."""
        w, b = self.client_on(host), self.client_on(other)
        gid = w.request({"t": "invite", "clock": FISCHER_5_0,
                         "color": "white"}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
        self.assertEqual(self.srv.host_of(gid), host)
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)
        b.move(gid, "e7e5", 1)
        for c in (w, b):
            c.expect("moved", game=gid, ply=2)
        return w, b, gid

    def sees_ply(self, c, gid, ply, timeout=WAIT):
        """Waits until c has seen the game at ply: its `moved`, or a
        `state` at ply or later (a connection that attached to a new host
        just after the move gets the move in its resync). Returns the
        clocks it saw."""
        deadline = time.monotonic() + timeout
        while True:
            m = c.expect_any(deadline)
            if m.get("game") != gid:
                continue
            if m["t"] == "moved" and m["ply"] == ply:
                return m["clocks"]
            if m["t"] == "state" and m["ply"] >= ply:
                return m["clocks"]

    def reconnect(self, c, node):
        """c's player on node `node` again, with its token."""
        c.close()
        return self.client_on(node, token=c.token)

    def test_players_on_two_nodes_spectator_on_the_third(self):
        w, b, gid = self.game_on(0, 1)
        s = self.client_on(2)
        st = s.request({"t": "watch", "game": gid}, "state")
        self.assertEqual(st["ply"], 2)
        w.move(gid, "g1f3", 2)
        for c in (w, b, s):
            self.assertEqual(c.expect("moved", game=gid, ply=3)["san"], "Nf3")
        b.send({"t": "resign", "game": gid})
        for c in (w, b, s):
            self.assertEqual(c.expect("game_end", game=gid)["reason"],
                             "resignation")

    def test_kill_of_the_host_resumes_elsewhere(self):
        """kill -9 of a game's host mid-game: the player who was on it
        reconnects through another node; the game resumes with every
        acknowledged move and the clocks as they were (the outage is
        charged to nobody), within the lease and the restore."""
        w, b, gid = self.game_on(0, 1)
        w.move(gid, "g1f3", 2)
        moved = b.expect("moved", game=gid, ply=3)
        w.expect("moved", game=gid, ply=3)
        before = moved["clocks"]
        killed = time.monotonic()
        self.srv.nodes[0].kill()
        w2 = self.reconnect(w, 2)
        self.assertEqual(w2.games, [gid])
        # black's move waits for the adoption: it is answered at once
        # after (forwarded again), never lost
        b.move(gid, "b8c6", 3)
        m = b.expect("moved", game=gid, ply=4, timeout=LEASE_S + 5)
        resumed = time.monotonic() - killed
        self.sees_ply(w2, gid, 4)  # (its moved, or its resync's state)
        self.assertLess(resumed, LEASE_S + TICK_S + 2.0)
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5", "g1f3", "b8c6"])
        # white's clock is as it was; black thought while the host was
        # gone (its clock ran from white's move until the host's last
        # sign of life, at most a lease tick before the kill, and not
        # during the outage)
        self.assertEqual(m["clocks"]["white_ms"], before["white_ms"])
        lost = before["black_ms"] - m["clocks"]["black_ms"]
        self.assertGreaterEqual(lost, 0)
        self.assertLess(lost, 1000 * (TICK_S + 0.5), (before, m["clocks"]))
        self.assertEqual(self.srv.host_of(gid) in (1, 2), True)
        print("\nkill -9 of the host: moves again after %.2f s" % resumed)

    def test_sigterm_hands_the_game_over_at_once(self):
        w, b, gid = self.game_on(0, 1)
        stopped = time.monotonic()
        self.srv.nodes[0].proc.send_signal(signal.SIGTERM)
        w2 = self.reconnect(w, 2)
        st = w2.request({"t": "sync", "game": gid}, "state", )
        self.assertEqual(st["ply"], 2)
        w2.move(gid, "g1f3", 2)
        clocks = self.sees_ply(b, gid, 3)
        took = time.monotonic() - stopped
        self.assertLess(took, LEASE_S)  # handed over, not adopted
        self.assertEqual(self.srv.nodes[0].proc.wait(timeout=WAIT), 0)
        self.assertIn("event=cluster_handed_over game=" + gid,
                      self.srv.nodes[0].log_text())
        # no pause: white's clock ran only while white thought
        self.assertGreater(clocks["white_ms"], 300000 - 1000 * took - 500)
        print("\nSIGTERM of the host: moves again after %.2f s" % took)

    def computer_game_on(self, host):
        """A game against the computer (level 8: up to a second a move)
        hosted on node host, its player there, white; the player's
        second move played, the computer thinking on it. Returns
        (player, gid, the computer's first reply)."""
        c = self.client_on(host)
        c.send({"t": "computer", "level": 8, "color": "white",
                "clock": FISCHER_5_0})
        gid = c.expect("game_start")["game"]
        self.assertEqual(self.srv.host_of(gid), host)
        c.move(gid, "e2e4", 0)
        reply = c.expect("moved", game=gid, ply=2, timeout=WAIT * 2)
        c.move(gid, "d2d4", 2)
        c.expect("moved", game=gid, ply=3)
        return c, gid, reply

    def test_computer_game_adopted_after_its_host_died(self):
        """kill -9 of the host while its engine thinks: another node
        adopts the game and its engine is asked the move again."""
        c, gid, reply = self.computer_game_on(0)
        self.srv.nodes[0].kill()
        c2 = self.reconnect(c, 2)
        self.assertEqual(c2.games, [gid])
        c2.send({"t": "sync", "game": gid})
        self.sees_ply(c2, gid, 4, timeout=LEASE_S + 10)
        st = c2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"][:3], ["e2e4", reply["uci"], "d2d4"])
        self.assertIn(self.srv.host_of(gid), (1, 2))
        host = self.srv.nodes[self.srv.host_of(gid)]
        self.assertIn("event=cluster_adopted game=" + gid, host.log_text())

    def test_computer_game_handed_over_on_sigterm(self):
        c, gid, reply = self.computer_game_on(0)
        self.srv.nodes[0].proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.srv.nodes[0].proc.wait(timeout=WAIT), 0)
        self.assertIn("event=cluster_handed_over game=" + gid,
                      self.srv.nodes[0].log_text())
        c2 = self.reconnect(c, 1)
        c2.send({"t": "sync", "game": gid})
        self.sees_ply(c2, gid, 4, timeout=WAIT * 2)
        st = c2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"][:3], ["e2e4", reply["uci"], "d2d4"])

    def test_rolling_restart_under_load_loses_no_game_and_no_move(self):
        """chess-loadgen plays 200 games with each game's players on two
        nodes (--ports) and reconnects a cut connection through the next
        node with its token (--resume), as a browser does; meanwhile each
        node in turn is stopped (SIGTERM: its games handed over) and
        started again on its port. No acknowledged move is missing from
        any resync, no game is given up or abandoned, and play goes on."""
        loadgen = os.environ.get("CHESS_LOADGEN")
        if not loadgen:
            self.fail("CHESS_LOADGEN not set (tests/cluster/meson.build)")
        ports = [n.port for n in self.srv.nodes]
        out = self.path("loadgen.out")
        with open(out, "w") as f, open(self.path("loadgen.err"), "w") as e:
            lg = subprocess.Popen(
                [loadgen, "--url", "ws://127.0.0.1:%d/ws" % ports[0],
                 "--ports", ",".join(map(str, ports)), "--resume",
                 "--games", "200", "--move-interval-ms", "1000",
                 "--duration-s", "40", "--ramp-timeout-s", "60"],
                stdout=f, stderr=e)
        self.procs.append(lg)

        def live():
            return sum(n.http_json("/healthz")[1]["live_games"]
                       for n in self.srv.nodes if n.proc.poll() is None)
        harness.wait_until(lambda: live() >= 200, "200 games in play",
                           timeout=60)
        time.sleep(3)  # inside the window (it opens when all have begun)
        for i in range(len(self.srv.nodes)):
            self.assertEqual(self.srv.nodes[i].terminate(), 0)
            self.srv.restart_node(i, same_port=True)
            time.sleep(4)
        self.assertEqual(lg.wait(timeout=120), 0)
        with open(out) as f:
            line = f.read().strip()
        got = dict(kv.split("=", 1) for kv in line.split())
        print("\nrolling restart: " + " ".join(
            "%s=%s" % (k, got.get(k)) for k in (
                "moves", "moves_per_s", "opp_p99_us", "opp_max_us",
                "reconnects", "resumes", "resyncs", "lost_moves",
                "ended_away", "abandoned", "resets", "errors_by_code")))
        for k in ("lost_moves", "abandoned", "resets", "stalls",
                  "failed_procs"):
            self.assertEqual(got[k], "0", k + ": " + line)
        # every node's connections came back through the others
        self.assertGreaterEqual(int(got["reconnects"]), 200, line)
        self.assertGreaterEqual(int(got["resumes"]),
                                int(got["reconnects"]), line)
        self.assertGreater(int(got["moves"]), 200 * 20, line)
        # and the database agrees: no game ended abandoned
        self.assertEqual(self.srv.sql(
            "SELECT count(*) FROM games WHERE reason = 'abandoned'"),
            [(0,)])

    def test_redis_restart_loses_no_move(self):
        w, b, gid = self.game_on(0, 1)
        self.srv.redis.stop()
        for c in (w, b):
            c.expect("cluster_lost")
        # the host (node 0) still takes white's move: its journal is
        # PostgreSQL's, and white's connection is its own
        w.move(gid, "g1f3", 2)
        w.expect("moved", game=gid, ply=3)
        self.srv.redis.start()
        for c in (w, b):
            c.expect("cluster_back", timeout=10)
        # black resyncs and sees the move it missed
        st = b.expect("state", game=gid, ply=3, timeout=10)
        self.assertEqual(st["moves"][-1], "g1f3")
        b.move(gid, "b8c6", 3)
        for c in (w, b):
            c.expect("moved", game=gid, ply=4, timeout=10)

    def test_thousand_seeks_pair_each_seeker_once(self):
        n = 300 if os.environ.get("CHESS_SERVER_WRAPPER") else 1000
        clients = [self.client(self.srv) for _ in range(n)]
        for c in clients:
            c.send({"t": "seek", "clock": FISCHER_5_0, "color": "random"})
        starts = {}
        for c in clients:
            c.expect("seeking")
        for c in clients:
            g = c.expect("game_start", timeout=WAIT * 2)
            c.expect("state", game=g["game"])
            starts.setdefault(g["game"], []).append(c.pid)
        self.assertEqual(len(starts), n // 2)
        seated = [p for ps in starts.values() for p in ps]
        self.assertEqual(len(seated), n)
        self.assertEqual(len(set(seated)), n)  # each seeker exactly once
        self.assertTrue(all(len(ps) == 2 for ps in starts.values()))
        for c in clients[:20]:  # and no second game
            c.quiet(0.05)

    def test_whole_cluster_restart_resumes_every_game(self):
        """Every node stopped and started again (Redis restarted empty
        too): each live game is adopted by a node (the store's live games,
        scanned at start), resumes with its moves and its clocks as at the
        stop, and the downtime is charged to nobody."""
        w, b, gid = self.game_on(0, 1)
        before = w.request({"t": "sync", "game": gid}, "state")["clocks"]
        self.srv.stop_nodes()
        self.srv.redis.restart()
        time.sleep(1.0)  # downtime that must be charged to no one
        for i in range(len(self.srv.nodes)):
            self.srv.restart_node(i)
        w2, b2 = self.reconnect(w, 2), self.reconnect(b, 0)
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5"])
        b2.expect("state", game=gid, timeout=LEASE_S + 2)
        w2.move(gid, "g1f3", 2)
        m = b2.expect("moved", game=gid, ply=3, timeout=LEASE_S + 2)
        self.assertEqual(m["clocks"]["black_ms"], before["black_ms"])
        # white was to move at the stop: charged its thinking, not the
        # second of downtime
        self.assertGreater(m["clocks"]["white_ms"],
                           before["white_ms"] - 900)

    def test_a_paused_host_is_fenced_and_its_clients_resynced(self):
        """Two nodes both believing they host a game: the host is paused
        (SIGSTOP) past its lease, another node adopts the game and it goes
        on there; resumed (SIGCONT), the stale host plays a move it had
        been sent meanwhile: PostgreSQL refuses its write (the game's
        epoch moved on), so the move is never shown to anyone, and the
        stale host's client is closed (1012) and resyncs from the true
        host."""
        w, b, gid = self.game_on(0, 1)
        stale = self.srv.nodes[0]
        stale.proc.send_signal(signal.SIGSTOP)
        try:
            w.move(gid, "g1f3", 2)  # waits in the paused node's socket
            deadline = time.monotonic() + LEASE_S + TICK_S + 5
            while self.srv.host_of(gid) in (0, None):
                self.assertLess(time.monotonic(), deadline, "not adopted")
                time.sleep(0.05)
            # the game goes on at its new host: white plays there
            w2 = self.client_on(2, token=w.token)
            w2.move(gid, "d2d4", 2)
            self.sees_ply(b, gid, 3)
        finally:
            stale.proc.send_signal(signal.SIGCONT)
        # the stale host's move is refused and its client cut
        with self.assertRaises(harness.Closed) as cm:
            while True:
                m = w.next(timeout=LEASE_S + 5)
                self.assertFalse(m.get("t") == "moved" and
                                 m.get("uci") == "g1f3", m)
        self.assertEqual(cm.exception.code, 1012)
        w3 = self.client_on(1, token=w.token)
        st = w3.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5", "d2d4"])
        b.move(gid, "g8f6", 3)
        for c in (w2, w3):
            self.sees_ply(c, gid, 4)
        rows = self.srv.sql("SELECT uci FROM journal WHERE gid = ? "
                            "ORDER BY ply", gid)
        self.assertEqual([r[0] for r in rows],
                         ["e2e4", "e7e5", "d2d4", "g8f6"])
        log = stale.log_text()
        self.assertTrue("event=cluster_fenced game=" + gid in log or
                        "event=cluster_lease_lost" in log, log[-3000:])
