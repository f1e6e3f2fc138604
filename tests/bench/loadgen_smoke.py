"""Smoke test of chess-loadgen against a real chess-server.

usage: loadgen_smoke.py CHESS_SERVER CHESS_LOADGEN

Starts the server on a free port with a temporary database, runs the load
generator for about three seconds in each mode with a handful of games
(open loop, under the server's default rate limits), and checks its
summary line: moves were played and seen by opponents and spectators,
connections were set up, and nothing failed (no errors, no unexpected
closes, no failed processes). Keeps the tool from rotting; it measures
nothing.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

SERVER, LOADGEN, ECHO_SERVER = sys.argv[1], sys.argv[2], sys.argv[3]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def parse_summary(line):
    """key=value pairs of the summary line, as a dict of strings."""
    pairs = dict(kv.split("=", 1) for kv in line.split())
    if not pairs:
        raise AssertionError("empty summary line")
    return pairs


class LoadgenSmoke(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="chess-loadgen-")
        web = os.path.join(cls.dir, "web")
        os.makedirs(web)
        with open(os.path.join(web, "index.html"), "w") as f:
            f.write("<!doctype html><title>loadgen smoke</title>\n")
        cls.port = free_port()
        cls.log = open(os.path.join(cls.dir, "server.log"), "wb")
        cls.server = subprocess.Popen(
            [SERVER, "--port", str(cls.port),
             "--db", os.path.join(cls.dir, "db", "chess.db"),
             "--web", web, "--guests-per-ip-per-min", "10000000"],
            stdout=cls.log, stderr=cls.log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if cls.server.poll() is not None:
                cls.cleanup()
                raise RuntimeError("server exited: " + cls.log_text)
            try:
                socket.create_connection(("127.0.0.1", cls.port),
                                         timeout=1).close()
                return
            except OSError:
                time.sleep(0.01)
        cls.cleanup()  # tearDownClass does not run when this raises
        raise RuntimeError("server did not start: " + cls.log_text)

    @classmethod
    def server_log(cls):
        with open(os.path.join(cls.dir, "server.log"), "rb") as f:
            return f.read().decode("utf-8", "replace")

    @classmethod
    def cleanup(cls):
        """Stops the server (SIGTERM, then SIGKILL) and removes the
        folder; keeps the log text in cls.log_text."""
        if cls.server.poll() is None:
            cls.server.send_signal(signal.SIGTERM)
            try:
                cls.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                cls.server.kill()
                cls.server.wait()
        cls.log.close()
        cls.log_text = cls.server_log()
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def tearDownClass(cls):
        cls.cleanup()

    def run_loadgen(self, *args):
        cmd = [LOADGEN, "--url", "ws://127.0.0.1:%d/ws" % self.port,
               "--server-pid", str(self.server.pid),
               "--ramp-timeout-s", "20"] + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stdout)
        s = parse_summary(lines[0])
        self.assertEqual(s["errors"], "0", lines[0])
        self.assertEqual(s["errors_by_code"], "none", lines[0])
        self.assertEqual(s["unexpected_closes"], "0", lines[0])
        self.assertEqual(s["connect_failures"], "0", lines[0])
        self.assertEqual(s["failed_procs"], "0", lines[0])
        self.assertEqual(s["stalls"], "0", lines[0])
        self.assertGreater(int(s["server_rss_kb"]), 0, lines[0])
        float(s["server_cpu_pct"])
        return s, lines[0]

    def test_play_open_loop_two_processes_with_spectators(self):
        # 4 games, a move every 100 ms per game: each side moves 5 times a
        # second, under the default limit of 10 per connection.
        s, line = self.run_loadgen("--games", "4", "--move-interval-ms",
                                   "100", "--duration-s", "3",
                                   "--spectators-per-game", "1",
                                   "--procs", "2", "--seed", "7")
        self.assertEqual(s["mode"], "play")
        self.assertEqual(s["connections"], "12", line)
        self.assertEqual(s["games_live"], "4", line)
        moves = int(s["moves"])
        # ~40 moves a second are offered; allow a slow (sanitizer) build
        self.assertGreater(moves, 20, line)
        self.assertEqual(int(s["own_samples"]), moves, line)
        self.assertGreaterEqual(int(s["opp_samples"]), moves - 4, line)
        self.assertGreaterEqual(int(s["spec_samples"]), moves - 4, line)
        for k in ("own", "opp", "spec"):
            p50, p99 = int(s[k + "_p50_us"]), int(s[k + "_p99_us"])
            mx = int(s[k + "_max_us"])
            self.assertTrue(0 < p50 <= p99 <= mx, line)
        # the server's own count of the window's moves and of their
        # commits (/metrics before and after): the same moves, but for
        # those in flight at either edge, one per game at most
        server_moves = int(s["server_moves"])
        commits = int(s["commit_samples"])
        self.assertLessEqual(abs(server_moves - moves), 2 * 4, line)
        self.assertLessEqual(abs(commits - server_moves), 2 * 4, line)
        p50, p99 = int(s["commit_p50_us"]), int(s["commit_p99_us"])
        self.assertTrue(0 < p50 <= p99 <= int(s["commit_p999_us"]), line)
        self.assertEqual(s["ckpt_waits"], "0", line)

    def server_moves_total(self):
        url = "http://127.0.0.1:%d/metrics" % self.port
        with urllib.request.urlopen(url, timeout=10) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("chess_moves_total "):
                    return int(float(line.split()[1]))
        raise AssertionError("no chess_moves_total in /metrics")

    def test_plies(self):
        """--plies N: each slot plays N moves in all and the window ends
        with the last slot's, long before --duration-s (which would
        outlast the subprocess's timeout)."""
        before = self.server_moves_total()
        s, line = self.run_loadgen("--games", "3", "--plies", "12",
                                   "--move-interval-ms", "100",
                                   "--duration-s", "50", "--seed", "3")
        self.assertEqual(self.server_moves_total() - before, 3 * 12, line)
        self.assertEqual(s["games_live"], "3", line)

    def run_echo(self, mode, *server_args):
        """chess-loadgen --mode MODE over 10 connections for a second
        against echo_server started with SERVER_ARGS; returns the
        summary after checking what every run must show."""
        port = free_port()
        echo = subprocess.Popen([ECHO_SERVER, "--port", str(port)] +
                                list(server_args))
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port),
                                             timeout=1).close()
                    break
                except OSError:
                    self.assertLess(time.monotonic(), deadline)
                    self.assertIsNone(echo.poll())
                    time.sleep(0.01)
            cmd = [LOADGEN, "--url", "ws://127.0.0.1:%d/ws" % port,
                   "--mode", mode, "--connections", "10",
                   "--duration-s", "1", "--server-pid", str(echo.pid)]
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            line = p.stdout.strip()
            s = parse_summary(line)
            self.assertEqual(s["mode"], mode, line)
            self.assertEqual(s["connections"], "10", line)
            self.assertGreater(int(s["echoes"]), 10, line)
            self.assertEqual(s["echo_samples"], s["echoes"], line)
            self.assertEqual(s["unexpected_closes"], "0", line)
            self.assertEqual(s["connect_failures"], "0", line)
        finally:
            echo.send_signal(signal.SIGTERM)
            echo.wait(timeout=10)
        self.assertEqual(echo.returncode, 0)
        return s

    def test_echo(self):
        """--mode echo against tests/bench's echo_server: every
        connection's messages come back."""
        self.run_echo("echo")

    def test_relay(self):
        """--mode relay against echo_server --relay: the five pairs take
        turns, each move coming back to its sender (counted) and giving
        the partner the turn; against a plain echo server nobody would
        get a turn, and nothing would be counted."""
        self.run_echo("relay", "--relay", "540")
        with self.assertRaises(AssertionError):
            self.run_echo("relay")

    def test_idle(self):
        s, line = self.run_loadgen("--mode", "idle", "--games", "3",
                                   "--duration-s", "1")
        self.assertEqual(s["mode"], "idle")
        self.assertEqual(s["connections"], "6", line)
        self.assertEqual(s["moves"], "0", line)   # silent in the window
        self.assertNotEqual(s["server_rss_bytes_per_conn"], "na", line)

    def test_connect(self):
        s, line = self.run_loadgen("--mode", "connect", "--connections", "4",
                                   "--duration-s", "1")
        self.assertEqual(s["mode"], "connect")
        self.assertGreater(int(s["connects"]), 10, line)
        self.assertEqual(int(s["welcome_samples"]), int(s["connects"]),
                         line)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
