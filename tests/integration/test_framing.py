"""HTTP framing (issue 25, item 9): request heads that RFC 9112 says a
server must refuse, or that a proxy in front could read differently, are
answered 400, 414 or 431 and the connection closed; nothing after them is
read as a request. WebSocket upgrades with another version get 426, with a
malformed key 400. Well-formed heads are still answered, pipelined too."""
import re
import socket

from harness import WAIT, ServerTest

GOOD_KEY = "dGhlIHNhbXBsZSBub25jZQ=="


def exchange(port, request, quiet_s=WAIT):
    """Sends request (bytes), reads until the server closes (or sends
    nothing for quiet_s); returns every status line seen in what came
    back, in order."""
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(quiet_s)
    data = b""
    try:
        s.sendall(request)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, BrokenPipeError, socket.timeout):
        pass
    finally:
        s.close()
    # (responses follow each other without a line break between a body
    # and the next status line; these bodies hold no status line)
    return re.findall(r"HTTP/1\.[01] \d{3}[^\r]*", data.decode("latin-1"))


def upgrade(version="13", key=GOOD_KEY):
    return ("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
            "Sec-WebSocket-Version: %s\r\n\r\n" % (key, version)).encode()


class FramingTest(ServerTest):
    def refused(self, request, status):
        """request gets one answer, status, and nothing else: a request
        hidden behind it (a body read as the next request) is never
        answered."""
        smuggled = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        got = exchange(self.server.port, request + smuggled)
        self.assertEqual(len(got), 1, (request[:60], got))
        self.assertTrue(got[0].startswith("HTTP/1.1 %d " % status),
                        (request[:60], got))

    def test_two_lengths(self):
        # the first used to win and the body was answered as a request
        self.refused(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                     b"Content-Length: 37\r\n\r\n", 400)

    def test_length_with_chunked(self):
        self.refused(b"POST / HTTP/1.1\r\nHost: x\r\n"
                     b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"
                     b"\r\n0\r\n\r\n", 400)

    def test_chunked_get(self):
        self.refused(b"GET / HTTP/1.1\r\nHost: x\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n"
                     b"25\r\n", 400)

    def test_a_body(self):
        self.refused(b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 37\r\n"
                     b"\r\n", 400)

    def test_long_request_line(self):
        # 5,000 bytes: no answer at all before (PROTOCOL.md promises 414)
        self.refused(b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
                     414)

    def test_large_head(self):
        # 80 headers of 100 bytes: lws hung up without an answer
        self.refused(b"GET / HTTP/1.1\r\nHost: x\r\n" +
                     b"".join(b"X-%d: %s\r\n" % (i, b"v" * 100)
                              for i in range(80)) + b"\r\n", 431)

    def test_nul_in_the_path(self):
        self.refused(b"GET /index.html%00.js HTTP/1.1\r\nHost: x\r\n\r\n",
                     400)

    def test_websocket_version_and_key(self):
        got = exchange(self.server.port, upgrade(version="8"))
        self.assertEqual(len(got), 1, got)
        self.assertRegex(got[0], r"^HTTP/1\.[01] 426", got)
        got = exchange(self.server.port, upgrade(key="not-a-key"))
        self.assertEqual(len(got), 1, got)
        # (lws writes these refusals' status line as HTTP/1.0)
        self.assertRegex(got[0], r"^HTTP/1\.[01] 400", got)
        got = exchange(self.server.port, upgrade(), quiet_s=1)
        self.assertEqual(got[:1], ["HTTP/1.1 101 Switching Protocols"])

    def test_well_formed_heads_are_answered(self):
        get = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        got = exchange(self.server.port,
                       get + b"GET / HTTP/1.1\r\nHost: x\r\n"
                       b"Content-Length: 0\r\n\r\n" + get, quiet_s=1)
        self.assertEqual(got, ["HTTP/1.1 200 OK"] * 3)
        got = exchange(self.server.port, b"GET /" + b"a" * 400 +
                       b" HTTP/1.1\r\nHost: x\r\n\r\n", quiet_s=1)
        self.assertEqual(len(got), 1, got)
        self.assertTrue(got[0].startswith("HTTP/1.1 404 "), got)
