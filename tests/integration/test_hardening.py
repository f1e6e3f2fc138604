"""Hardening: keepalive (WebSocket pings find silent and half-open
connections, whose close starts the grace period), the descriptor budget
(the connection cap fits under the process's descriptor limit, so new
connections are refused with 503 instead of failing), separate rate-limit
budgets for moves and other messages, clients that stop reading (cut, and
the server's memory stays bounded while games go on), and connection
churn (memory and descriptors return to where they were).

Every assertion is about behaviour: what the server sends, whether it
closes, what /proc says about its memory and descriptors. Timeouts only
bound the waits."""
import json
import os
import re
import select
import shutil
import socket
import tempfile
import time
import unittest

from harness import (FISCHER_5_0, SERVER, WAIT, Client, Closed,
                     HandshakeError, Server, WebSocket)
from wsclient import OP_CLOSE, OP_PING, OP_PONG, OP_TEXT


def write_config(folder, obj):
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


def wait_until(pred, what, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError("timed out waiting for " + what)


def pump(client, seconds):
    """Reads client's connection for `seconds`, answering every WebSocket
    ping (as a browser does) and keeping text messages in its backlog.
    Returns the number of pings answered; raises Closed if the server
    closes."""
    pings = 0
    ws = client.ws
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return pings
        if not ws.buf:
            r, _, _ = select.select([ws.sock], [], [], left)
            if not r:
                continue
        ws.sock.settimeout(WAIT)  # the rest of a frame is on its way
        fin, opcode, data = ws.recv_frame()
        if opcode == OP_PING:
            ws.send_frame(OP_PONG, data)
            pings += 1
        elif opcode == OP_CLOSE:
            raise Closed(None, "close frame")
        elif opcode == OP_TEXT:
            client.backlog.append(json.loads(data))


def proc_status(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def rss_kb(server):
    return proc_status(server.proc.pid, "VmRSS")


def fd_count(server):
    return len(os.listdir("/proc/%d/fd" % server.proc.pid))


class HardeningTest(unittest.TestCase):
    """A server per test, started with a config file; clients and servers
    closed after."""

    def setUp(self):
        if not SERVER:
            raise unittest.SkipTest("CHESS_SERVER not set")
        self.dir = tempfile.mkdtemp(prefix="chess-hard-")
        self.servers, self.clients = [], []

    def tearDown(self):
        for c in self.clients:
            try:
                c.close()
            except OSError:
                pass
        for s in self.servers:
            s.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def server(self, config, **kw):
        s = Server(datadir=self.dir, extra=["--config", write_config(
            self.dir, config)], **kw)
        self.servers.append(s)
        return s

    def client(self, server, **kw):
        c = Client(server, **kw)
        self.clients.append(c)
        return c

    def start_game(self, srv):
        w, b = self.client(srv), self.client(srv)
        gid = w.request({"t": "invite", "clock": FISCHER_5_0,
                         "color": "white"}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
        return w, b, gid


class KeepaliveTest(HardeningTest):
    PING_S, TIMEOUT_S = 1, 3

    def keepalive_server(self, grace_s=60):
        return self.server({"ping_interval_s": self.PING_S,
                            "ping_timeout_s": self.TIMEOUT_S},
                           grace_s=grace_s)

    def test_silent_player_is_hung_up_and_counts_as_gone(self):
        srv = self.keepalive_server(grace_s=2)
        w, b, gid = self.start_game(srv)
        # white stops reading (so never answers a ping) but its TCP
        # connection stays up: the server must find out by itself
        gone = None
        deadline = time.monotonic() + self.TIMEOUT_S + 2 * WAIT
        while gone is None and time.monotonic() < deadline:
            pump(b, 0.2)  # black reads and answers pings
            for i, m in enumerate(b.backlog):
                if m.get("t") == "opponent_gone":
                    gone = b.backlog.pop(i)
                    break
        self.assertIsNotNone(gone, "no opponent_gone; backlog %r"
                             % b.backlog[-5:])
        self.assertEqual(gone["game"], gid)
        self.assertEqual(gone["color"], "white")
        self.assertEqual(gone["grace_ms"], 2000)
        # white's socket was closed by the server (no close frame: a
        # hang-up), after the ping it never answered
        self.assertIsNone(w.ws.recv_close())
        # the grace period runs out: white loses by abandonment
        end = b.expect("game_end", game=gid, timeout=2 + WAIT)
        self.assertEqual((end["result"], end["reason"]), ("0-1", "abandoned"))
        # black, which answered pings all along, is still connected
        b.request({"t": "ping"}, "pong")

    def test_answering_clients_stay_past_the_timeout(self):
        srv = self.keepalive_server()
        w, b, gid = self.start_game(srv)
        pings = {"w": 0, "b": 0}
        deadline = time.monotonic() + 3 * self.TIMEOUT_S
        while time.monotonic() < deadline:
            pings["w"] += pump(w, 0.1)
            pings["b"] += pump(b, 0.1)
        # they were pinged several times and answered, so nobody was
        # hung up and nobody is gone
        self.assertGreaterEqual(min(pings.values()), 2, pings)
        for c in (w, b):
            self.assertFalse([m for m in c.backlog
                              if m.get("t") == "opponent_gone"], c.backlog)
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)
        self.assertEqual(srv.http_json("/healthz")[1]["connections"], 2)

    def test_a_client_that_only_sends_is_hung_up(self):
        # messages prove the client writes, not that it reads: without a
        # pong it is closed at the timeout like a silent one
        srv = self.keepalive_server()
        c = self.client(srv)
        start = time.monotonic()
        with self.assertRaises(OSError):
            while time.monotonic() - start < self.TIMEOUT_S + 2 * WAIT:
                c.send({"t": "ping"})
                time.sleep(0.2)
        wait_until(lambda: srv.http_json("/healthz")[1]["connections"] == 0,
                   "the hang-up")


if __name__ == "__main__":
    unittest.main()
