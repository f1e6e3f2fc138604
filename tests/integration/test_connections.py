"""TCP connections as an attacker on the internet makes them: silent
connections (never a request) are capped per socket address and closed
after request_timeout_s; behind a trusted proxy the per-address limits
see the client's address from X-Forwarded-For (the WebSocket cap, the
guests, the HTTP API's bucket; an IPv6 client by its /64), and from anyone
else the header is ignored.

The attacker connects from 127.0.0.2 (and 127.0.0.3), other addresses of
the loopback network; the players from 127.0.0.1."""
import shutil
import signal
import socket
import subprocess
import time

from harness import (WAIT, WRAPPED, Closed, FreshServerTest, HandshakeError,
                     WebSocket, not_in_cluster, one_node, wait_until)

HTTP_EXTRA = 16  # LIMIT_HTTP_CONNS_PER_IP in server/lib/tunables.h


def connect_from(source, port):
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(WAIT)
    s.connect(("127.0.0.1", port))
    return s


def closed_by_server(sock, timeout):
    """True when the server closes sock within timeout (end of stream or
    a reset); False when it is still open then."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def read_response(sock):
    """One whole HTTP response (with a Content-Length) from sock."""
    sock.settimeout(WAIT)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, body = data.split(b"\r\n\r\n", 1)
    length = int([line.split(b":")[1] for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:")][0])
    while len(body) < length:
        body += sock.recv(4096)
    return head + b"\r\n\r\n" + body


class SilentConnectionTest(FreshServerTest):
    def test_silent_connections_are_capped_per_address(self):
        per_ip = 4
        srv = self.server({"max_connections_per_ip": per_ip})
        cap = per_ip + HTTP_EXTRA
        socks = []
        try:
            for _ in range(cap + 10):
                socks.append(connect_from("127.0.0.2", srv.port))
            # every connection past the cap is closed at once; the ones
            # within it stay (silent, within request_timeout_s)
            closed = [closed_by_server(s, 0.5) for s in socks[cap:]]
            self.assertEqual(closed, [True] * 10)
            kept = [closed_by_server(s, 0.01) for s in socks[:cap]]
            self.assertEqual(kept, [False] * cap)
            # another address is not affected: it plays
            c = self.client(srv)
            c.request({"t": "ping"}, "pong")
            self.assertIn("event=tcp_refused why=max_connections_per_ip "
                          "ip=127.0.0.2", srv.log_text())
            # once the silent ones go, 127.0.0.2 connects again
            for s in socks:
                s.close()
            socks = []
            deadline = time.monotonic() + WAIT
            while True:
                try:
                    ws = WebSocket("127.0.0.1", srv.port, source="127.0.0.2")
                    break
                except (HandshakeError, Closed, OSError):
                    # (refused or closed at once until the server has
                    # seen the silent ones go)
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.05)
            ws.send({"t": "ping"})
            self.assertIn('"pong"', ws.recv_message())
            ws.close()
        finally:
            for s in socks:
                s.close()

    def test_connection_without_a_request_is_closed_after_the_timeout(self):
        srv = self.server({"request_timeout_s": 1})
        silent = connect_from("127.0.0.2", srv.port)
        partial = connect_from("127.0.0.2", srv.port)
        partial.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never ends
        start = time.monotonic()
        self.assertTrue(closed_by_server(silent, 1 + WAIT))
        self.assertTrue(closed_by_server(partial, 1 + WAIT))
        self.assertGreaterEqual(time.monotonic() - start, 0.9)
        # a kept-alive HTTP connection gets the same time for its next
        # request: it answers one, then closes the idle connection
        kept = connect_from("127.0.0.2", srv.port)
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertTrue(read_response(kept).startswith(b"HTTP/1.1 200"))
        self.assertTrue(closed_by_server(kept, 1 + WAIT))
        # a WebSocket is not cut: its request was complete
        c = self.client(srv)
        time.sleep(1.5)
        c.request({"t": "ping"}, "pong")
        for s in (silent, partial, kept):
            s.close()


class TrustedProxyTest(FreshServerTest):
    PER_IP = 3

    def ws(self, srv, source, xff=None):
        headers = {"X-Forwarded-For": xff} if xff else None
        ws = WebSocket("127.0.0.1", srv.port, source=source,
                       headers=headers)
        self.opened.append(ws)
        return ws

    def setUp(self):
        super().setUp()
        self.opened = []

    def tearDown(self):
        for ws in self.opened:
            ws.close()
        super().tearDown()

    def fill(self, srv, source, xff):
        """Opens PER_IP WebSockets, then asserts the next is refused 429."""
        for _ in range(self.PER_IP):
            self.ws(srv, source, xff)
        with self.assertRaises(HandshakeError) as e:
            self.ws(srv, source, xff)
        self.assertIn("429", e.exception.status)

    def test_clients_behind_a_trusted_proxy_have_their_own_caps(self):
        srv = self.server({"max_connections_per_ip": self.PER_IP,
                           "trusted_proxies": ["127.0.0.2", "::1"]})
        # two clients behind the proxy at 127.0.0.2: each its own cap;
        # a client's own X-Forwarded-For entries (left of the last
        # untrusted one) do not count, trusted proxies (right) are skipped
        self.fill(srv, "127.0.0.2", "198.51.100.7")
        self.fill(srv, "127.0.0.2", "203.0.113.9, 198.51.100.8")
        self.ws(srv, "127.0.0.2", "198.51.100.9, 127.0.0.2")
        with self.assertRaises(HandshakeError):
            self.ws(srv, "127.0.0.2", "203.0.113.1, 198.51.100.8")
        self.assertIn("why=max_connections_per_ip ip=198.51.100.7",
                      srv.log_text())
        # the proxy's own address has more TCP connections than
        # max_connections_per_ip + 16 allows anyone else
        for i in range(self.PER_IP + HTTP_EXTRA + 2):
            self.ws(srv, "127.0.0.2", "203.0.113.%d" % (10 + i))
        # the server has all of them
        self.assertEqual(srv.http_json("/healthz")[1]["connections"],
                         len(self.opened))

    @one_node
    def test_an_ipv6_slash64_is_one_client(self):
        """The addresses of one IPv6 /64 (ipv6_limit_prefix) share the
        WebSocket cap and the new guests' bucket; the next /64 is another
        client. Loopback IPv6 is only ::1, so the clients are named by a
        trusted proxy's X-Forwarded-For. (Before: every address its own
        cap, 2^64 of them.)"""
        srv = self.server({"max_connections_per_ip": self.PER_IP,
                           "trusted_proxies": ["127.0.0.2"]},
                          guests_per_ip_per_min=2)
        for i in range(self.PER_IP):
            self.ws(srv, "127.0.0.2", "2001:db8:1:2::%x" % (i + 1))
        with self.assertRaises(HandshakeError) as e:
            self.ws(srv, "127.0.0.2", "2001:db8:1:2:ffff:1:2:3")
        self.assertIn("429", e.exception.status)
        self.assertIn("why=max_connections_per_ip ip=2001:db8:1:2:ffff:1:2:3"
                      " key=2001:db8:1:2::/64", srv.log_text())
        self.ws(srv, "127.0.0.2", "2001:db8:1:3::1")  # the next /64
        # new guests: 2 a minute from the /64, whatever the address
        codes = []
        for i in range(3):
            c = self.client(srv, hello=False, source="127.0.0.2",
                            headers={"X-Forwarded-For":
                                     "2001:db8:7:7::%x" % (i + 1)})
            codes.append(c.request({"t": "hello"}, "welcome")["t"]
                         if i < 2 else
                         c.request({"t": "hello"}, "error")["code"])
        self.assertEqual(codes, ["welcome", "welcome", "rate_limited"])

    def test_a_prefix_of_128_counts_each_ipv6_address(self):
        srv = self.server({"max_connections_per_ip": self.PER_IP,
                           "ipv6_limit_prefix": 128,
                           "trusted_proxies": ["127.0.0.2"]})
        for i in range(self.PER_IP + 2):
            self.ws(srv, "127.0.0.2", "2001:db8:1:2::%x" % (i + 1))
        self.fill(srv, "127.0.0.2", "2001:db8:1:2::99")

    def api(self, srv, xff):
        """The status of GET /api/leaderboard/blitz from the proxy at
        127.0.0.2 for the client xff."""
        s = connect_from("127.0.0.2", srv.port)
        try:
            s.sendall(b"GET /api/leaderboard/blitz HTTP/1.1\r\nHost: x\r\n"
                      b"X-Forwarded-For: " + xff.encode() + b"\r\n"
                      b"Connection: close\r\n\r\n")
            return int(read_response(s).split(b" ", 2)[1])
        finally:
            s.close()

    def test_the_api_bucket_is_the_forwarded_clients(self):
        """Behind a trusted proxy the HTTP API's bucket is the client's
        (its /64 for IPv6), not the proxy's. (Before: one bucket for the
        whole site, http_rate_per_s for everyone together.)"""
        srv = self.server({"http_rate_per_s": 1, "http_burst": 2,
                           "trusted_proxies": ["127.0.0.2"]})
        a = [self.api(srv, "198.51.100.1") for _ in range(3)]
        self.assertEqual(a, [200, 200, 429])
        self.assertEqual(self.api(srv, "198.51.100.2"), 200)
        self.assertEqual(self.api(srv, "2001:db8:3:3::1"), 200)
        self.assertEqual(self.api(srv, "2001:db8:3:3::2"), 200)
        self.assertEqual(self.api(srv, "2001:db8:3:3:a:b:c:d"), 429)
        self.assertEqual(self.api(srv, "::ffff:198.51.100.1"), 429)

    def test_x_forwarded_for_from_anyone_else_is_ignored(self):
        srv = self.server({"max_connections_per_ip": self.PER_IP,
                           "trusted_proxies": ["127.0.0.2"]})
        # 127.0.0.3 is no proxy: its header is its own say
        for i in range(self.PER_IP):
            self.ws(srv, "127.0.0.3", "198.51.100.%d" % i)
        with self.assertRaises(HandshakeError) as e:
            self.ws(srv, "127.0.0.3", "198.51.100.50")
        self.assertIn("429", e.exception.status)
        self.assertIn("why=max_connections_per_ip ip=127.0.0.3",
                      srv.log_text())


if __name__ == "__main__":
    import unittest
    unittest.main()


@not_in_cluster("the loop's own epoll_ctl calls: a node's Redis connection "
                "adds two a command (hiredis's libev adapter arms its "
                "write watcher for each)")
class WritePathTest(FreshServerTest):
    def test_replies_and_moves_ask_the_loop_for_no_writable_events(self):
        """A reply is durable when it is queued (sequence 0) and goes out
        before the loop next waits, not from a WRITEABLE callback, which
        costs two epoll_ctl calls (POLLOUT on, then off) per frame; moves
        go out on their commit's wake-up. Counted with strace on the
        loop's thread (the process's first) over 40 pings and 8 moves:
        with a WRITEABLE per reply it makes 80 calls and more."""
        if shutil.which("strace") is None or WRAPPED:
            self.skipTest("needs strace, and the server unwrapped")
        srv = self.server()
        w, b, gid = self.start_game(srv)
        out = self.path("strace.out")
        st = subprocess.Popen(["strace", "-p", str(srv.proc.pid), "-o", out,
                               "-e", "trace=epoll_ctl"],
                              stderr=subprocess.PIPE, text=True)
        try:
            line = st.stderr.readline()
            if "attached" not in line:
                self.skipTest("strace cannot attach: " + line.strip())
            for _ in range(40):
                w.request({"t": "ping"}, "pong")
            moves = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 d2d3 f8c5".split()
            for ply, uci in enumerate(moves):
                mover, other = (w, b) if ply % 2 == 0 else (b, w)
                mover.move(gid, uci, ply)
                for c in (mover, other):
                    c.expect("moved", game=gid, ply=ply + 1)
        finally:
            st.send_signal(signal.SIGINT)
            st.wait(timeout=WAIT)
        with open(out) as f:
            calls = [x for x in f if x.startswith("epoll_ctl(")]
        self.assertLessEqual(len(calls), 6, "".join(calls[:20]))
