"""The HTTP API: a game as JSON, its PGN, a player's finished games
(newest first, paged), /healthz, /metrics (and that each metric moves
with the events it counts) and the client pages."""
import email.utils
import gzip
import os
import re
import signal
import socket
import subprocess
import time

import metricsdoc
from harness import (CLUSTER, FISCHER_5_0, POSTGRES, WAIT, FreshServerTest,
                     ServerTest, one_node, wait_until)

# A cluster node's families and their types (docs/PROTOCOL.md).
CLUSTER_FAMILIES = (
    ("chess_cluster_node_info", "gauge"), ("chess_cluster_leased", "gauge"),
    ("chess_cluster_lease_age_seconds", "gauge"),
    ("chess_cluster_leases_lost_total", "counter"),
    ("chess_cluster_hosted_games", "gauge"),
    ("chess_cluster_followed_games", "gauge"),
    ("chess_cluster_remote_sessions", "gauge"),
    ("chess_cluster_adoptions_in_progress", "gauge"),
    ("chess_cluster_adoptions_total", "counter"),
    ("chess_cluster_take_failures_total", "counter"),
    ("chess_cluster_handovers_total", "counter"),
    ("chess_cluster_fences_total", "counter"),
    ("chess_cluster_commands_held_total", "counter"),
    ("chess_cluster_commands_refused_total", "counter"),
    ("chess_cluster_commands_forwarded_total", "counter"),
    ("chess_cluster_limit_takes_total", "counter"),
    ("chess_cluster_dead_nodes_total", "counter"),
    ("chess_cluster_messages_refused_total", "counter"),
    ("chess_redis_up", "gauge"), ("chess_redis_reconnects_total", "counter"),
    ("chess_redis_errors_total", "counter"),
    ("chess_redis_queue_depth", "gauge"),
    ("chess_redis_pending_commands", "gauge"),
    ("chess_redis_round_trip_seconds", "histogram"),
    ("chess_redis_publish_seconds", "histogram"))


METRIC_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL_NAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
LABEL_VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(
    r"^(%s)(?:\{((?:%s=%s)(?:,%s=%s)*)?,?\})? (\S+)(?: (-?\d+))?$"
    % (METRIC_NAME, LABEL_NAME, LABEL_VALUE, LABEL_NAME, LABEL_VALUE))
LABEL = re.compile(r"(%s)=(%s)" % (LABEL_NAME, LABEL_VALUE))
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


def prom_float(text):
    """A sample value as the text format allows (Go's ParseFloat plus
    +Inf, -Inf, NaN); raises ValueError otherwise."""
    if text in ("+Inf", "Inf"):
        return float("inf")
    if text == "-Inf":
        return float("-inf")
    if text == "NaN":
        return float("nan")
    if not re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text):
        raise ValueError("bad sample value %r" % text)
    return float(text)


def parse_prometheus(test, text):
    """Parses the Prometheus text exposition format (version 0.0.4)
    strictly; fails the test on any violation. Returns {family: {"type",
    "help", "samples": [(name, {labels}, value)]}}."""
    test.assertTrue(text.endswith("\n"), "exposition must end in a newline")
    families = {}
    order = []          # family of each sample line, to check grouping

    def family_of(name):
        for suffix in ("_bucket", "_sum", "_count"):
            base = name[:-len(suffix)]
            if name.endswith(suffix) and families.get(base, {}).get(
                    "type") in ("histogram", "summary"):
                return base
        return name
    for n, line in enumerate(text.split("\n")[:-1], 1):
        where = "line %d: %r" % (n, line)
        test.assertNotEqual(line.strip(), "", "blank line, " + where)
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 2 and parts[1] in ("HELP", "TYPE"):
                test.assertGreaterEqual(len(parts), 4, where)
                test.assertRegex(parts[2], "^%s$" % METRIC_NAME, where)
                fam = families.setdefault(parts[2], {"samples": []})
                test.assertNotIn(parts[1].lower(), fam,
                                 "second %s, %s" % (parts[1], where))
                if parts[1] == "TYPE":
                    test.assertIn(parts[3], TYPES, where)
                    test.assertEqual(fam["samples"], [],
                                     "TYPE after samples, " + where)
                    fam["type"] = parts[3]
                else:
                    test.assertNotRegex(parts[3], r"\\[^\\n]", where)
                    fam["help"] = parts[3]
            continue
        m = SAMPLE.match(line)
        test.assertIsNotNone(m, "not a sample, " + where)
        name, labels_text, value = m.group(1), m.group(2), m.group(3)
        labels = {}
        for lm in LABEL.finditer(labels_text or ""):
            test.assertNotIn(lm.group(1), labels, "label twice, " + where)
            labels[lm.group(1)] = lm.group(2)[1:-1]
        try:
            v = prom_float(value)
        except ValueError as e:
            test.fail("%s, %s" % (e, where))
        fam_name = family_of(name)
        fam = families.setdefault(fam_name, {"samples": []})
        test.assertIn("type", fam, "sample before its TYPE, " + where)
        test.assertIn("help", fam, "sample without HELP, " + where)
        if order and order[-1] != fam_name:
            test.assertNotIn(fam_name, order,
                             "samples of %s not together" % fam_name)
        order.append(fam_name)
        key = (name, tuple(sorted(labels.items())))
        test.assertNotIn(key, [(s[0], tuple(sorted(s[1].items())))
                               for s in fam["samples"]],
                         "duplicate series, " + where)
        fam["samples"].append((name, labels, v))
        if fam["type"] == "counter":
            test.assertTrue(name.endswith("_total"), where)
            test.assertGreaterEqual(v, 0, where)
            if not name.endswith("_seconds_total"):  # counts are whole
                test.assertEqual(v, int(v), where)
        if fam["type"] == "histogram":
            test.assertIn(name, (fam_name + "_bucket", fam_name + "_sum",
                                 fam_name + "_count"), where)
    for fam_name, fam in families.items():
        test.assertIn("type", fam, fam_name)
        if fam["type"] != "histogram":
            continue
        buckets = [(s[1], s[2]) for s in fam["samples"]
                   if s[0] == fam_name + "_bucket"]
        sums = [s[2] for s in fam["samples"] if s[0] == fam_name + "_sum"]
        counts = [s[2] for s in fam["samples"]
                  if s[0] == fam_name + "_count"]
        test.assertEqual((len(sums), len(counts)), (1, 1), fam_name)
        test.assertGreater(len(buckets), 1, fam_name)
        bounds = [prom_float(b[0]["le"]) for b in buckets]
        test.assertEqual(bounds, sorted(bounds), "le ascending")
        test.assertEqual(len(set(bounds)), len(bounds), "le unique")
        test.assertEqual(buckets[-1][0]["le"], "+Inf", fam_name)
        values = [b[1] for b in buckets]
        test.assertEqual(values, sorted(values), "buckets cumulative")
        test.assertEqual(values[-1], counts[0], "+Inf bucket == _count")
        test.assertGreaterEqual(sums[0], 0)
        if counts[0] == 0:
            test.assertEqual(sums[0], 0)
    return families


class HttpTest(ServerTest):
    @classmethod
    def setUpClass(cls):
        cls.started = time.time()
        super().setUpClass()
        cls.listening = time.time()

    def metrics(self):
        """The samples of /metrics, strictly parsed: {(name, ((label,
        value), ...)): value}."""
        status, ctype, body = self.server.http("/metrics")
        self.assertEqual(status, 200)
        fams = parse_prometheus(self, body.decode())
        return {(name, tuple(sorted(labels.items()))): v
                for fam in fams.values() for name, labels, v in fam["samples"]}

    def test_metrics_are_documented(self):
        """docs/PROTOCOL.md's lists of metrics name exactly the families
        /metrics exposes: those of every server, and those of its
        database's kind and of a cluster node's where it is one."""
        status, _, body = self.server.http("/metrics")
        self.assertEqual(status, 200)
        exposed = set(parse_prometheus(self, body.decode()))
        listed = metricsdoc.expected(bool(POSTGRES), bool(CLUSTER))
        self.assertEqual(sorted(exposed - listed), [],
                         "exposed, not in PROTOCOL.md")
        self.assertEqual(sorted(listed - exposed), [],
                         "in PROTOCOL.md, not exposed")

    def quiet(self):
        """Waits until the earlier tests' connections (on this class's one
        server) have all closed, so counts taken next move only with this
        test's own."""
        wait_until(lambda: self.server.http_json("/healthz")[1]
                   ["connections"] == 0, "earlier connections to close")

    def finished_game(self, moves="f2f3 e7e5 g2g4 d8h4"):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, moves)
        b.expect("game_end", game=gid)
        return w, b, gid

    def test_game_json_live_and_finished(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4")
        status, g = self.server.http_json("/api/games/" + gid)
        self.assertEqual(status, 200)
        self.assertNotIn("t", g)
        self.assertEqual(g["game"], gid)
        self.assertEqual(g["moves"], ["e2e4"])
        self.assertEqual(g["status"], "started")
        self.assertIsInstance(g["created_ms"], int)
        self.assertIsInstance(g["started_ms"], int)
        self.assertIsNone(g["ended_ms"])
        w2, b2, gid2 = self.finished_game()
        status, g = self.server.http_json("/api/games/" + gid2)
        self.assertEqual(g["result"], "0-1")
        self.assertEqual(g["reason"], "checkmate")
        self.assertIsInstance(g["ended_ms"], int)
        status, g = self.server.http_json("/api/games/nosuchgame")
        self.assertEqual(status, 404)
        self.assertEqual(g, {"error": "no_such_game"})
        status, g = self.server.http_json("/api/games/bad%20id")
        self.assertEqual(status, 404)

    def test_pgn(self):
        w, b, gid = self.finished_game()
        status, ctype, body = self.server.http("/api/games/%s/pgn" % gid)
        self.assertEqual(status, 200)
        self.assertEqual(ctype, "application/x-chess-pgn")
        pgn = body.decode()
        self.assertIn('[Result "0-1"]', pgn)
        self.assertIn('[TimeControl "300+0"]', pgn)
        self.assertIn('[White "%s"]' % w.player["name"], pgn)
        self.assertIn("Qh4#", pgn)
        self.assertIn("%clk", pgn)
        w2, b2, gid2 = self.invite_game(fen="k7/8/8/8/8/8/8/KQ6 w - - 0 1")
        status, _, body = self.server.http("/api/games/%s/pgn" % gid2)
        self.assertEqual(status, 200)
        self.assertIn('[SetUp "1"]', body.decode())
        self.assertIn('[Result "*"]', body.decode())
        status, _, _ = self.server.http("/api/games/nosuchgame/pgn")
        self.assertEqual(status, 404)

    def test_player_games_paged(self):
        w, b = self.client(), self.client()
        gids = []
        for i in range(3):
            gid = w.request({"t": "invite", "clock": {
                "type": "per_move", "per_move_s": 30}, "color": "white"},
                "invited")["game"]
            b.send({"t": "join", "game": gid})
            b.expect("game_start", game=gid)
            w.send({"t": "resign", "game": gid})
            b.expect("game_end", game=gid)
            gids.append(gid)
        # an aborted game is not listed
        gid = w.request({"t": "invite", "clock": {
            "type": "per_move", "per_move_s": 30}}, "invited")["game"]
        w.send({"t": "abort", "game": gid})
        w.expect("game_end", game=gid)
        path = "/api/players/%s/games" % b.pid
        status, page = self.server.http_json(path + "?limit=2")
        self.assertEqual(status, 200)
        got = [g["game"] for g in page["games"]]
        self.assertEqual(len(got), 2)
        self.assertEqual(page["next"], got[-1])
        g0 = page["games"][0]
        self.assertEqual(g0["black"]["id"], b.pid)
        self.assertEqual(g0["result"], "0-1")
        self.assertEqual(g0["reason"], "resignation")
        self.assertEqual(g0["clock"], {"type": "per_move", "per_move_s": 30})
        status, page2 = self.server.http_json(
            path + "?limit=2&before=" + page["next"])
        got += [g["game"] for g in page2["games"]]
        self.assertIsNone(page2["next"])
        self.assertEqual(sorted(got), sorted(gids))
        self.assertEqual(len(set(got)), 3)
        status, _ = self.server.http_json(path + "?limit=101")
        self.assertEqual(status, 400)
        status, _ = self.server.http_json(path + "?limit=0")
        self.assertEqual(status, 400)
        status, page = self.server.http_json("/api/players/nobody/games")
        self.assertEqual((status, page["games"], page["next"]),
                         (200, [], None))

    @one_node

    def test_healthz_and_metrics(self):
        status, body = self.server.http_json("/healthz")
        self.assertEqual(status, 200)
        self.assertEqual(body["status"], "ok")
        self.finished_game()
        c = self.client(hello=False)
        c.send({"t": "seek"})
        c.expect_error("unauthenticated")
        status, ctype, body = self.server.http("/metrics")
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/plain"))
        text = body.decode()

        def value(name):
            m = re.search("^%s (\\S+)$" % re.escape(name), text, re.M)
            self.assertIsNotNone(m, name)
            return float(m.group(1))
        self.assertGreaterEqual(value("chess_connections"), 1)
        self.assertGreaterEqual(value("chess_moves_total"), 4)
        self.assertGreaterEqual(
            value('chess_games_finished_total{reason="checkmate"}'), 1)
        self.assertGreaterEqual(
            value('chess_messages_rejected_total{code="unauthenticated"}'),
            1)
        self.assertGreaterEqual(value("chess_move_seconds_count"), 4)
        # every move played has been seen by its players, so committed:
        # each one measured
        self.assertEqual(value("chess_move_commit_seconds_count"),
                         value("chess_moves_total"))
        self.assertGreater(value("chess_move_commit_seconds_sum"), 0)
        fams = parse_prometheus(self, text)
        for name, kind in (("chess_connections", "gauge"),
                           ("chess_connections_total", "counter"),
                           ("chess_live_games", "gauge"),
                           ("chess_open_seeks", "gauge"),
                           ("chess_messages_total", "counter"),
                           ("chess_moves_total", "counter"),
                           ("chess_games_finished_total", "counter"),
                           ("chess_messages_rejected_total", "counter"),
                           ("chess_store_queue_depth", "gauge"),
                           ("chess_out_queue_bytes", "gauge"),
                           ("chess_connections_cut_total", "counter"),
                           ("chess_upgrades_refused_total", "counter"),
                           ("chess_move_seconds", "histogram"),
                           ("chess_move_lag_credit_seconds", "histogram"),
                           ("chess_move_commit_seconds", "histogram"),
                           ("chess_event_loop_lag_seconds", "histogram"),
                           ("chess_ws_closes_total", "counter"),
                           ("chess_http_requests_total", "counter"),
                           ("chess_store_failures_total", "counter"),
                           ("chess_build_info", "gauge"),
                           ("process_resident_memory_bytes", "gauge"),
                           ("process_open_fds", "gauge"),
                           ("process_max_fds", "gauge"),
                           ("process_cpu_seconds_total", "counter"),
                           ("process_start_time_seconds", "gauge"),
                           ("chess_store_queue_wait_seconds", "histogram"),
                           ("chess_store_statements_seconds", "histogram"),
                           ("chess_store_commit_seconds", "histogram"),
                           ("chess_store_retries_total", "counter"),
                           ("chess_store_backend", "gauge"),
                           ("chess_store_reads_total", "counter"),
                           ("chess_store_reads_waiting", "gauge"),
                           ("chess_store_read_seconds", "histogram"),
                           ("chess_store_reads_limited_total", "counter"),
                           ("chess_unknown_games_total", "counter")) + (
                POSTGRES and (("chess_store_pg_reconnects_total", "counter"),
                              ("chess_store_pg_commits_resolved_total",
                               "counter"))
                or (("chess_store_checkpoint_wait_seconds", "histogram"),
                    ("chess_store_checkpoints_total", "counter"),
                    ("chess_store_wal_restarts_total", "counter"),
                    ("chess_store_wal_frames", "gauge"),
                    ("chess_database_file_lost", "gauge"))) + (
                CLUSTER and CLUSTER_FAMILIES or ()):
            self.assertEqual(fams[name]["type"], kind, name)
        backend = [s[1] for s in fams["chess_store_backend"]["samples"]]
        self.assertEqual(backend,
                         [{"backend": "postgres" if POSTGRES else "sqlite"}])
        ops = {s[1]["op"] for s in
               fams["chess_store_failures_total"]["samples"]}
        self.assertEqual(ops, {"commit", "write_dropped", "writes_lost",
                               "read",
                               "fenced" if POSTGRES else "checkpoint"})
        reasons = {s[1]["reason"] for s in
                   fams["chess_games_finished_total"]["samples"]}
        self.assertIn("checkmate", reasons)
        self.assertIn("timeout_vs_insufficient", reasons)
        for h in ("chess_move_seconds", "chess_move_commit_seconds"):
            self.assertEqual(value(h + '_bucket{le="+Inf"}'),
                             value(h + "_count"))
        self.check_store_timing(value, fams)
        value("chess_live_games")
        value("chess_store_queue_depth")
        value("chess_out_queue_bytes")

    def test_latency_buckets_reach_10_s(self):
        m = self.metrics()
        for h in ("chess_move_seconds", "chess_move_commit_seconds",
                  "chess_event_loop_lag_seconds"):
            les = [dict(k[1])["le"] for k in m if k[0] == h + "_bucket"]
            for le in ("0.25", "0.5", "1", "2.5", "5", "10", "+Inf"):
                self.assertIn(le, les, h)

    @one_node

    def test_process_metrics(self):
        m = self.metrics()
        one = lambda name: m[(name, ())]  # noqa: E731
        self.assertGreater(one("process_resident_memory_bytes"), 1 << 20)
        self.assertGreaterEqual(one("process_max_fds"),
                                one("process_open_fds"))
        start = one("process_start_time_seconds")
        self.assertGreaterEqual(start, self.started - 1)
        self.assertLessEqual(start, self.listening + 1)
        # descriptors: one per WebSocket, given back when they close
        self.quiet()
        fds = self.metrics()[("process_open_fds", ())]
        clients = [self.client() for _ in range(5)]
        m = self.metrics()
        self.assertGreaterEqual(m[("process_open_fds", ())], fds + 5)
        for c in clients:
            c.close()
        wait_until(lambda: self.metrics()[("process_open_fds", ())] <= fds,
                   "the descriptors closed")
        # CPU time only grows, and work makes it grow
        cpu = self.metrics()[("process_cpu_seconds_total", ())]
        for _ in range(200):
            self.server.http("/api/games/nosuchgame")
        self.assertGreater(self.metrics()[("process_cpu_seconds_total", ())],
                           cpu)

    def test_build_info(self):
        """The version and the commit, as the start line says; the commit
        is this checkout's (git rev-parse), or "unknown" without one."""
        m = self.metrics()
        info = [(dict(k[1]), v) for k, v in m.items()
                if k[0] == "chess_build_info"]
        line = re.search(r"event=listening version=(\S+) .* commit=(\S+)",
                         self.server.log_text())
        self.assertEqual(info, [({"version": line.group(1),
                                  "commit": line.group(2)}, 1)])
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..")
        if os.path.exists(os.path.join(root, ".git")):
            head = subprocess.run(
                ["git", "-C", root, "rev-parse", "--short=12", "HEAD"],
                capture_output=True, text=True).stdout.strip()
            if head:  # (git present)
                # the build's commit: HEAD, or one before it (a commit
                # made since the build)
                self.assertRegex(line.group(2), "^[0-9a-f]{12}$")
                self.assertEqual(subprocess.run(
                    ["git", "-C", root, "merge-base", "--is-ancestor",
                     line.group(2), head]).returncode, 0)

    def closes(self, code):
        return self.metrics()[("chess_ws_closes_total",
                               (("code", code),))]

    @one_node

    def test_ws_closes_by_code(self):
        for how, code in (("1000", "1000"), ("1001", "1001"),
                          ("4000", "other"), ("drop", "1006"),
                          ("too_large", "1009")):
            self.quiet()
            before = self.closes(code)
            c = self.client()
            if how == "drop":       # no close frame at all
                c.ws.sock.close()
            elif how == "too_large":  # the server closes with 1009
                c.ws.send_text('{"t":"ping","id":"%s"}' % ("x" * 4100))
                self.assertEqual(c.ws.recv_close(), 1009)
                c.ws.sock.close()  # (the server waits for an answer)
            else:
                c.ws.close(int(how))
            wait_until(lambda: self.closes(code) == before + 1,
                       "close %s counted as %s" % (how, code))
        # nothing else can add a label value
        codes = {dict(k[1])["code"] for k in self.metrics()
                 if k[0] == "chess_ws_closes_total"}
        self.assertEqual(codes, {"1000", "1001", "1002", "1003", "1005",
                                 "1006", "1007", "1008", "1009", "1011",
                                 "other"})

    def test_http_requests_by_route_and_status(self):
        def http_counts():
            return {tuple(v for _, v in k[1]): n
                    for k, n in self.metrics().items()
                    if k[0] == "chess_http_requests_total"}
        before = http_counts()
        gets = [("/", "static", "200"), ("/g/SomeGame1", "static", "200"),
                ("/nope.html", "static", "404"),
                ("/../etc/passwd", "static", "404"),
                ("/api/games/nosuchgame", "api_game", "404"),
                ("/api/games/nosuchgame/pgn", "pgn", "404"),
                ("/api/players/nobody/games", "player_games", "200"),
                ("/api/players/nobody/games?limit=0", "player_games",
                 "400"),
                ("/api/players/nobody", "player", "404"),
                ("/api/leaderboard/blitz", "leaderboard", "200"),
                ("/api/unknown", "other", "404"),
                ("/healthz", "healthz", "200"),
                ("/readyz", "readyz", "200")]
        want = {}
        for path, route, status in gets:
            got, _, _ = self.server.http(path)
            self.assertEqual(str(got), status, path)
            want[(route, status)] = want.get((route, status), 0) + 1
        want[("metrics", "200")] = 1  # the scrape before
        after = http_counts()
        delta = {k: after[k] - before.get(k, 0) for k in after
                 if after[k] != before.get(k, 0)}
        self.assertEqual(delta, want)
        # any path lands in the fixed label sets
        for i in range(30):
            self.server.http("/random-%d-%s" % (i, os.urandom(4).hex()))
        routes = {k[0] for k in http_counts()}
        self.assertLessEqual(routes, {"api_game", "pgn", "player_games",
                                      "player", "leaderboard",
                                      "static", "healthz", "readyz",
                                      "metrics", "redirect", "other"})

    def test_event_loop_lag(self):
        def lags():
            # one scrape: the samples, those up to 0.5 s, those up to 10 s
            # (two scrapes would see the samples taken between them)
            name = "chess_event_loop_lag_seconds_"
            m = self.metrics()
            return (m[(name + "count", ())],
                    m[(name + "bucket", (("le", "0.5"),))],
                    m[(name + "bucket", (("le", "10"),))])

        def late():
            n, fast, _ = lags()
            return n - fast
        n = lags()[0]
        wait_until(lambda: lags()[0] >= n + 3, "lag samples")
        n, fast, within = lags()
        slow, within_before = n - fast, within - fast
        # a stopped process: the timer due meanwhile fires at least
        # 0.5 s late, within the buckets (10 s)
        self.server.proc.send_signal(signal.SIGSTOP)
        try:
            time.sleep(0.8)
        finally:
            self.server.proc.send_signal(signal.SIGCONT)
        wait_until(lambda: late() > slow, "a late sample")
        _, fast, within = lags()
        self.assertGreater(within - fast, within_before)

    @one_node

    def test_store_failures_and_a_commit_stall(self):
        def m(name, labels=()):
            return self.metrics()[(name, labels)]
        commit = (("op", "commit"),)
        failed = m("chess_store_failures_total", commit)
        slow = (m("chess_move_commit_seconds_bucket", (("le", "10"),))
                - m("chess_move_commit_seconds_bucket", (("le", "2.5"),)))
        w, b, gid = self.invite_game()
        # another process holds a lock the writer needs: its transaction
        # fails after 5 s (SQLite's busy timeout, PostgreSQL's
        # lock_timeout) and is retried
        lock = self.server.hold_writer()
        try:
            w.move(gid, "e2e4", 0)
            wait_until(lambda: m("chess_store_failures_total", commit)
                       > failed, "a failed commit", timeout=20)
        finally:
            lock.release()
        b.expect("moved", game=gid, ply=1, timeout=10)
        # the stall shows in the commit histogram (between 2.5 and 10 s)
        self.assertGreater(
            m("chess_move_commit_seconds_bucket", (("le", "10"),))
            - m("chess_move_commit_seconds_bucket", (("le", "2.5"),)), slow)
        for op in ("write_dropped", "writes_lost", "read",
                   "fenced" if POSTGRES else "checkpoint"):
            m("chess_store_failures_total", (("op", op),))
    def check_store_timing(self, value, fams):
        """The journal writer's split of a commit: one statements and one
        COMMIT sample per transaction, a queue-wait sample per
        transaction that carried writes (the 4 moves and the players and
        games rows took at least one), no checkpoint wait (the WAL is far
        from its cap); and a move played now adds samples."""
        txs = value("chess_store_commit_seconds_count")
        self.assertEqual(value("chess_store_statements_seconds_count"), txs)
        self.assertGreaterEqual(
            value("chess_store_queue_wait_seconds_count"), 1)
        self.assertLessEqual(
            value("chess_store_queue_wait_seconds_count"), txs)
        self.assertGreater(value("chess_store_commit_seconds_sum"), 0)
        if not POSTGRES:  # (a WAL of the store's own)
            self.assertEqual(
                value("chess_store_checkpoint_wait_seconds_count"), 0)
            self.assertGreater(value("chess_store_wal_frames"), 0)
        bounds = [s[1]["le"] for s in
                  fams["chess_store_commit_seconds"]["samples"]
                  if s[0].endswith("_bucket")]
        self.assertIn("0.005", bounds)
        queued = value("chess_store_queue_wait_seconds_count")
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4")
        _, _, body = self.server.http("/metrics")
        text = body.decode()
        parse_prometheus(self, text)

        def now(name):
            m = re.search("^%s (\\S+)$" % re.escape(name), text, re.M)
            self.assertIsNotNone(m, name)
            return float(m.group(1))
        self.assertGreater(now("chess_store_commit_seconds_count"), txs)
        self.assertGreater(now("chess_store_queue_wait_seconds_count"),
                           queued)

    def test_prometheus_parser_rejects(self):
        """The strict parser is itself strict: each broken exposition
        fails it."""
        good = ("# HELP a_total A.\n# TYPE a_total counter\n"
                'a_total{x="1"} 3\n')
        parse_prometheus(self, good)
        h = ("# HELP h H.\n# TYPE h histogram\n"
             'h_bucket{le="0.1"} %s\nh_bucket{le="%s"} %s\n'
             "h_sum 1.5\nh_count %s\n")
        parse_prometheus(self, h % (1, "+Inf", 2, 2))
        bad = [
            good.rstrip("\n"),                        # no final newline
            good.replace("counter", "countr"),         # unknown type
            good.replace("a_total{", "1a_total{"),     # bad name
            good.replace('x="1"', "x=1"),              # unquoted label
            good.replace('x="1"', '1x="1"'),           # bad label name
            good.replace(" 3\n", " three\n"),          # bad value
            good.replace("# HELP a_total A.\n", ""),   # no HELP
            good + 'a_total{x="1"} 4\n',               # duplicate series
            good.replace("a_total", "a"),              # counter w/o _total
            good.replace(" 3\n", " -3\n"),             # negative counter
            good.replace(" 3\n", " 3.5\n"),            # a count with a fraction
            h % (3, "+Inf", 2, 2),                     # not cumulative
            h % (1, "5", 2, 2),                        # no +Inf bucket
            h % (1, "+Inf", 2, 3),                     # +Inf != count
            good + "\n",                               # blank line
        ]
        for text in bad:
            with self.assertRaises(AssertionError, msg=text):
                parse_prometheus(self, text)

    def test_pages(self):
        status, ctype, body = self.server.http("/")
        self.assertEqual(status, 200)
        self.assertIn(b"chess test page", body)
        status, ctype, body = self.server.http("/g/someGameId")
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/html"))
        self.assertIn(b"chess test page", body)
        # a player's page of finished games (the client routes it)
        status, ctype, body = self.server.http("/p/somePlayerId")
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/html"))
        self.assertIn(b"chess test page", body)
        status, ctype, body = self.server.http("/leaderboard")
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/html"))
        self.assertIn(b"chess test page", body)
        status, _, _ = self.server.http("/leaderboards")
        self.assertEqual(status, 404)
        # the analysis board (the client routes it, its query too)
        status, ctype, body = self.server.http("/analysis?game=x")
        self.assertEqual(status, 200)
        self.assertIn(b"chess test page", body)
        status, _, _ = self.server.http("/nope.html")
        self.assertEqual(status, 404)
        status, _ = self.server.http_json("/api/unknown")
        self.assertEqual(status, 404)

    def test_static_files_revalidate_by_etag(self):
        def get(path, extra=""):
            req = ("GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (path, extra))
            return raw_answers(self.server.port, req.encode(), ["GET"])[0]
        line, h, body = get("/index.html")
        self.assertIn(" 200 ", line)
        self.assertIn(b"chess test page", body)
        self.assertEqual(h.get("cache-control"), "no-cache")
        etag = h["etag"]
        self.assertRegex(etag, r'^"[0-9a-f]+-[0-9a-f]+"$')
        # the same file under /g/GID has the same validator
        self.assertEqual(get("/g/SomeGame1")[1]["etag"], etag)
        for inm in (etag, "W/" + etag, '"other", ' + etag, "*"):
            line, h, body = get("/index.html", "If-None-Match: %s\r\n" % inm)
            self.assertIn(" 304 ", line, inm)
            self.assertEqual(body, b"")
            self.assertNotIn("content-length", h)
            self.assertEqual((h["etag"], h["cache-control"]),
                             (etag, "no-cache"))
        line, h, body = get("/index.html", 'If-None-Match: "other"\r\n')
        self.assertIn(" 200 ", line)
        self.assertIn(b"chess test page", body)
        # a 304 keeps the connection: the next request on it is answered
        req = ("GET /index.html HTTP/1.1\r\nHost: x\r\n"
               "If-None-Match: %s\r\n\r\n"
               "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n" % etag)
        answers = raw_answers(self.server.port, req.encode(), ["GET", "GET"])
        self.assertEqual([a[0].split()[1] for a in answers], ["304", "200"])
        # a changed file is sent again, under a new validator
        with open(os.path.join(self.server.web, "index.html"), "a") as f:
            f.write("<!-- changed -->\n")
        line, h, body = get("/index.html", "If-None-Match: %s\r\n" % etag)
        self.assertIn(" 200 ", line)
        self.assertIn(b"changed", body)
        self.assertNotEqual(h["etag"], etag)


    def test_static_files_gzip_when_accepted(self):
        """Text files go gzip-compressed to a request that accepts gzip
        (read as RFC 9110 says: q=0 refuses), identity to any other, under
        different validators, always with Vary: Accept-Encoding; files
        that do not gain are sent as they are."""
        script = ("// a client module\n" +
                  "export function f(x) { return x * 2; }\n" * 200)
        with open(os.path.join(self.server.web, "mod.js"), "w") as f:
            f.write(script)
        with open(os.path.join(self.server.web, "tiny.css"), "w") as f:
            f.write("a{}")
        with open(os.path.join(self.server.web, "pic.png"), "wb") as f:
            f.write(b"\x89PNG" + b"\0" * 2000)

        def get(path, extra="", method="GET"):
            req = ("%s %s HTTP/1.1\r\nHost: x\r\n%s\r\n"
                   % (method, path, extra))
            return raw_answers(self.server.port, req.encode(), [method])[0]
        line, h, plain = get("/mod.js")
        self.assertIn(" 200 ", line)
        self.assertEqual(plain, script.encode())
        self.assertNotIn("content-encoding", h)
        self.assertEqual(h.get("vary"), "accept-encoding")
        etag = h["etag"]
        for ae in ("gzip", "gzip, deflate, br, zstd", "br;q=1, gzip;q=0.5",
                   "x-gzip", "*", "GZIP"):
            line, hz, body = get("/mod.js", "Accept-Encoding: %s\r\n" % ae)
            self.assertIn(" 200 ", line, ae)
            self.assertEqual(hz.get("content-encoding"), "gzip", ae)
            self.assertEqual(hz.get("vary"), "accept-encoding", ae)
            self.assertEqual(hz["content-type"], h["content-type"])
            self.assertEqual(int(hz["content-length"]), len(body))
            self.assertLess(len(body), len(plain) // 4, ae)
            self.assertEqual(gzip.decompress(body), plain, ae)
            self.assertEqual(hz["etag"], etag[:-1] + '-gz"', ae)
        gz_etag = hz["etag"]
        for ae in ("identity", "gzip;q=0", "br, gzip;q=0.000", "*;q=0",
                   "gzip;q=0, *", "deflate", "gzipx", ""):
            line, hi, body = get("/mod.js", "Accept-Encoding: %s\r\n" % ae)
            self.assertIn(" 200 ", line, ae)
            self.assertNotIn("content-encoding", hi, ae)
            self.assertEqual(body, plain, ae)
            self.assertEqual(hi["etag"], etag, ae)
            self.assertEqual(hi.get("vary"), "accept-encoding", ae)
        # each representation revalidates under its own validator
        line, h304, body = get("/mod.js", "Accept-Encoding: gzip\r\n"
                               "If-None-Match: %s\r\n" % gz_etag)
        self.assertIn(" 304 ", line)
        self.assertEqual(body, b"")
        self.assertEqual((h304["etag"], h304.get("vary")),
                         (gz_etag, "accept-encoding"))
        line, _, body = get("/mod.js", "Accept-Encoding: gzip\r\n"
                            "If-None-Match: %s\r\n" % etag)
        self.assertIn(" 200 ", line)
        self.assertEqual(gzip.decompress(body), plain)
        line, _, body = get("/mod.js", "If-None-Match: %s\r\n" % gz_etag)
        self.assertIn(" 200 ", line)
        self.assertEqual(body, plain)
        # HEAD: the gzip answer's headers, no body; then the connection
        # goes on
        req = ("HEAD /mod.js HTTP/1.1\r\nHost: x\r\n"
               "Accept-Encoding: gzip\r\n\r\n"
               "GET /mod.js HTTP/1.1\r\nHost: x\r\n"
               "Accept-Encoding: gzip\r\n\r\n")
        (l1, hh, b1), (l2, hg, b2) = raw_answers(self.server.port,
                                                 req.encode(),
                                                 ["HEAD", "GET"])
        self.assertIn(" 200 ", l1)
        self.assertEqual(hh.get("content-encoding"), "gzip")
        self.assertEqual(int(hh["content-length"]), len(b2))
        self.assertEqual(gzip.decompress(b2), plain)
        # a changed file: compressed again, under a new validator
        with open(os.path.join(self.server.web, "mod.js"), "a") as f:
            f.write("// changed\n")
        line, h2, body = get("/mod.js", "Accept-Encoding: gzip\r\n"
                             "If-None-Match: %s\r\n" % gz_etag)
        self.assertIn(" 200 ", line)
        self.assertTrue(gzip.decompress(body).endswith(b"// changed\n"))
        self.assertNotEqual(h2["etag"], gz_etag)
        self.assertTrue(h2["etag"].endswith('-gz"'))
        # no gain: a tiny text file and a PNG go as they are
        for path, want in (("/tiny.css", b"a{}"),
                           ("/pic.png", b"\x89PNG" + b"\0" * 2000)):
            line, h, body = get(path, "Accept-Encoding: gzip\r\n")
            self.assertIn(" 200 ", line, path)
            self.assertNotIn("content-encoding", h, path)
            self.assertEqual(body, want, path)
            self.assertFalse(h["etag"].endswith('-gz"'), path)
            self.assertEqual(h.get("vary"), "accept-encoding", path)
        # a large answer, sent in several writes, arrives whole
        big = "".join("const v%d = %d;\n" % (i, i * i) for i in range(20000))
        with open(os.path.join(self.server.web, "big.js"), "w") as f:
            f.write(big)
        line, h, body = get("/big.js", "Accept-Encoding: gzip\r\n")
        self.assertEqual(h.get("content-encoding"), "gzip")
        self.assertGreater(len(body), 16384)
        self.assertEqual(gzip.decompress(body), big.encode())


class HistoryTest(FreshServerTest):
    """A player's list of games (GET /api/players/PID/games): its filters
    and openings, on a server of its own whose API limit lets a test ask
    as often as it needs."""

    def setUp(self):
        super().setUp()
        self.srv = self.server(config={"http_rate_per_s": 1000,
                                       "http_burst": 1000})

    def test_player_games_name_their_openings(self):
        """Each listed game names the opening it reached, as its PGN's
        [ECO] and [Opening] tags do; a game without a named position has
        none."""
        w, b, gid = self.start_game(self.srv)
        for ply, uci in enumerate("f2f3 e7e5 g2g4 d8h4".split()):
            (w, b)[ply % 2].move(gid, uci, ply)
            w.expect("moved", game=gid, ply=ply + 1)
        b.expect("game_end", game=gid)
        status, _, body = self.srv.http("/api/games/%s/pgn" % gid)
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', body.decode(), re.M))
        self.assertIn("ECO", tags)
        status, page = self.srv.http_json("/api/players/%s/games" % w.pid)
        self.assertEqual(page["games"][0]["game"], gid)
        self.assertEqual(page["games"][0]["opening"],
                         {"eco": tags["ECO"], "name": tags["Opening"]})
        gid2 = w.request({"t": "invite", "clock": FISCHER_5_0,
                          "color": "white"}, "invited")["game"]
        b.send({"t": "join", "game": gid2})
        b.expect("game_start", game=gid2)
        b.send({"t": "resign", "game": gid2})
        w.expect("game_end", game=gid2)
        status, page = self.srv.http_json("/api/players/%s/games" % w.pid)
        self.assertEqual(page["games"][0]["game"], gid2)
        self.assertIsNone(page["games"][0]["opening"])

    def test_player_games_filtered(self):
        """The player page's filters: speed, rated, result and opponent
        (its PID, or its name in any case), each alone; a bad value is a
        400 naming it; a filtered page goes on from the last game it
        looked at."""
        w, b, c = self.client(self.srv), self.client(self.srv), self.client(self.srv)

        def game(white, black, clock, loser):
            gid = white.request({"t": "invite", "clock": clock,
                                 "color": "white"}, "invited")["game"]
            black.send({"t": "join", "game": gid})
            black.expect("game_start", game=gid)
            loser.send({"t": "resign", "game": gid})
            white.expect("game_end", game=gid)
            time.sleep(0.005)  # the next ends a later ms: newest first
            return gid
        g1 = game(w, b, {"type": "per_move", "per_move_s": 30}, w)
        g2 = game(w, b, FISCHER_5_0, b)
        g3 = game(w, c, {"type": "fischer", "initial_s": 60,
                         "increment_s": 0}, c)

        def listed(pid, query):
            status, page = self.srv.http_json(
                "/api/players/%s/games?%s" % (pid, query))
            self.assertEqual(status, 200, page)
            return [g["game"] for g in page["games"]], page["next"]
        self.assertEqual(listed(b.pid, "speed=per_move")[0], [g1])
        self.assertEqual(listed(b.pid, "speed=blitz")[0], [g2])
        self.assertEqual(listed(w.pid, "speed=bullet")[0], [g3])
        self.assertEqual(listed(b.pid, "result=win")[0], [g1])
        self.assertEqual(listed(b.pid, "result=loss")[0], [g2])
        self.assertEqual(listed(b.pid, "result=draw")[0], [])
        self.assertEqual(listed(b.pid, "rated=true")[0], [])
        self.assertEqual(listed(b.pid, "rated=false")[0], [g2, g1])
        self.assertEqual(listed(w.pid, "vs=" + c.pid)[0], [g3])
        self.assertEqual(listed(w.pid, "vs=" + b.player["name"].upper())[0],
                         [g2, g1])
        self.assertEqual(listed(w.pid, "vs=nobody")[0], [])
        # w's wins, one a page: g3, then g2 (the scan stopped there), then
        # an empty last page (g1 is a loss)
        self.assertEqual(listed(w.pid, "result=win&limit=1"), ([g3], g3))
        self.assertEqual(listed(w.pid, "result=win&limit=1&before=" + g3),
                         ([g2], g2))
        self.assertEqual(listed(w.pid, "result=win&limit=1&before=" + g2),
                         ([], None))
        for query, error in (("speed=turbo", "bad_speed"),
                             ("rated=yes", "bad_rated"),
                             ("result=won", "bad_result"),
                             ("vs=a%20b", "bad_vs")):
            status, body = self.srv.http_json(
                "/api/players/%s/games?%s" % (w.pid, query))
            self.assertEqual((status, body), (400, {"error": error}), query)


class ApiRateLimitTest(FreshServerTest):
    def test_api_requests_per_address_are_capped(self):
        srv = self.server(config={"http_rate_per_s": 1, "http_burst": 5})
        for i in range(5):
            status, body = srv.http_json("/api/games/NoSuchGame")
            self.assertEqual(status, 404, i)
        status, body = srv.http_json("/api/games/NoSuchGame")
        self.assertEqual((status, body), (429, {"error": "rate_limited"}))
        status, _ = srv.http_json("/api/players/NoSuchPlayer/games")
        self.assertEqual(status, 429)
        # the health check, the metrics and the pages are not counted
        self.assertEqual(srv.http_json("/healthz")[0], 200)
        status, _, text = srv.http("/metrics")
        self.assertEqual(status, 200)
        self.assertIn("chess_http_rate_limited_total 2", text.decode())
        self.assertEqual(srv.http("/")[0], 200)
        # one token a second comes back
        wait_until(lambda: srv.http_json("/api/games/NoSuchGame")[0] == 404,
                   "a refilled token", timeout=3)


def raw_answers(port, request, methods):
    """Sends request (bytes) on one connection and reads one response per
    method in methods (the methods of the requests in it, in order): each
    is (status line, {lower-case header name: value}, body bytes). A
    response to HEAD has no body whatever its Content-Length says; any
    other has Content-Length bytes. Stops early when the server closes."""
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(WAIT)
    s.sendall(request)
    data, answers = b"", []
    try:
        for method in methods:
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    return answers
                data += chunk
            head, data = data.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = 0 if method == "HEAD" else int(
                headers.get("content-length", "0"))
            while len(data) < length:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            answers.append((lines[0], headers, data[:length]))
            data = data[length:]
    finally:
        s.close()
    return answers


def raw_responses(port, request, count):
    """Sends GET requests (bytes) on one connection and reads `count`
    whole responses; returns their status lines."""
    return [a[0] for a in raw_answers(port, request, ["GET"] * count)]


def http_request(method, path):
    return b"%s %s HTTP/1.1\r\nHost: x\r\n\r\n" % (
        method.encode(), path.encode())


class RawHttpTest(ServerTest):
    def test_pipelined_requests_are_all_answered(self):
        # a second request sent before the first answer (HTTP/1.1
        # pipelining) after a file, a 404 and an API answer
        get = b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n"
        for first in (b"/", b"/nope.html", b"/healthz"):
            statuses = raw_responses(self.server.port,
                                     get % first + get % b"/", 2)
            self.assertEqual(len(statuses), 2, first)
            self.assertEqual(statuses[1], "HTTP/1.1 200 OK", first)

    def test_overlong_url_is_answered_414(self):
        request = b"GET /" + b"a" * 600 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        statuses = raw_responses(self.server.port, request, 1)
        self.assertEqual(len(statuses), 1)
        self.assertTrue(statuses[0].startswith("HTTP/1.1 414 "), statuses)

    def answers_of(self, gid, pid):
        """The paths every kind of answer comes from: files, the game
        page, a missing file, /healthz, /metrics, the API (200 and 404)."""
        return ["/", "/g/" + gid, "/nope.html", "/healthz", "/metrics",
                "/api/games/" + gid, "/api/games/%s/pgn" % gid,
                "/api/games/NoSuchGame", "/api/players/%s/games" % pid,
                "/api/nothing"]

    def test_head_answers_as_get_without_a_body(self):
        w, b, gid = self.invite_game()
        for path in self.answers_of(gid, w.pid):
            # HEAD, GET of the same path and a third request on one
            # connection: a body after the HEAD answer would be read as
            # the second answer's status line
            got = raw_answers(self.server.port,
                              http_request("HEAD", path)
                              + http_request("GET", path)
                              + http_request("GET", "/healthz"),
                              ["HEAD", "GET", "GET"])
            self.assertEqual(len(got), 3, path)
            (hs, hh, _), (gs, gh, body), (third, _, _) = got
            self.assertEqual(hs, gs, path)
            self.assertEqual(third, "HTTP/1.1 200 OK", path)
            self.assertEqual(sorted(hh), sorted(gh), path)
            for name in gh:
                if name == "date" or (path == "/metrics"
                                      and name == "content-length"):
                    continue  # the time, and metrics that count the HEAD
                self.assertEqual(hh[name], gh[name], (path, name))
            self.assertEqual(int(gh["content-length"]), len(body), path)

    def assert_common_headers(self, headers, what):
        """Date (now, RFC 9110's IMF-fixdate) and the security headers:
        scripts, styles and connections only to the page's own origin,
        no framing, no sniffing, no referrer; no X-XSS-Protection."""
        date = headers.get("date")
        self.assertIsNotNone(date, what)
        self.assertRegex(date, r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d "
                         r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
                         r" \d{4} \d\d:\d\d:\d\d GMT$", what)
        age = time.time() - email.utils.parsedate_to_datetime(
            date).timestamp()
        self.assertTrue(0 <= age < 2, (what, date, age))
        self.assertNotIn("x-xss-protection", headers, what)
        csp = {}
        for d in headers.get("content-security-policy", "").split(";"):
            words = d.split()
            if words:
                csp[words[0]] = words[1:]
        self.assertEqual(csp.get("connect-src"), ["'self'"], what)
        for name, value in (("default-src", ["'none'"]),
                            ("script-src", ["'self'"]),
                            ("style-src", ["'self'"]),
                            ("frame-ancestors", ["'none'"])):
            self.assertEqual(csp.get(name), value, what)
        self.assertEqual(headers.get("x-content-type-options"), "nosniff",
                         what)
        self.assertEqual(headers.get("x-frame-options"), "deny", what)
        self.assertEqual(headers.get("referrer-policy"), "no-referrer", what)

    def test_every_answer_has_date_and_security_headers(self):
        w, b, gid = self.invite_game()
        for path in self.answers_of(gid, w.pid):
            got = raw_answers(self.server.port,
                              http_request("GET", path), ["GET"])
            self.assertEqual(len(got), 1, path)
            self.assert_common_headers(got[0][1], path)
        # the 414, and a WebSocket upgrade refused (a path but /ws)
        got = raw_answers(self.server.port,
                          http_request("GET", "/" + "a" * 600), ["GET"])
        self.assertTrue(got[0][0].startswith("HTTP/1.1 414 "), got)
        self.assert_common_headers(got[0][1], "414")
        got = raw_answers(self.server.port, (
            b"GET /notws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"),
            ["GET"])
        # (lws answers a refused upgrade as HTTP/1.0)
        self.assertRegex(got[0][0], r"^HTTP/1\.[01] 404 ")
        self.assert_common_headers(got[0][1], "upgrade refused")
        # the date moves on (a second later, it is that second's)
        time.sleep(1.5)
        got = raw_answers(self.server.port, http_request("GET", "/"),
                          ["GET"])
        self.assert_common_headers(got[0][1], "1.5 s later")
