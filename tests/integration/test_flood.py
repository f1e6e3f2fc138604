"""Closes the server initiates are clean whatever the client still sends:
a client that floods (hundreds or thousands of messages in one write, or
many maximum-size frames) gets every reply that was due, its
`rate_limited` errors and the close frame 1008, and then the end of the
stream (the server's half-close), never a reset; the same for a message
too large (1009) or not UTF-8 (1007) in the middle of a flood, and over
TLS. A reset would throw away everything still queued for the client,
the close frame included."""
import json
import re
import socket
import ssl
import threading
import time

from harness import (FISCHER_5_0, WAIT, Closed, FreshServerTest, ServerTest,
                     one_node, wait_until)
from test_ops import make_cert
from wsclient import OP_CONT, OP_TEXT, frame

STRIKES = 20  # LIMIT_RATE_STRIKES: rate_limited errors before 1008


def flood(c, texts, head=b"", thread=True):
    """Sends head (frames) and texts as one write (from a thread of its
    own unless thread is false, so that a flood larger than the socket
    buffers cannot block the reading) and returns (messages received,
    close code or None without a close frame or "reset", and after the
    close frame: "eof", "reset" or "data")."""
    data = head + b"".join(frame(OP_TEXT, t.encode()) for t in texts)

    def send():
        try:
            c.ws.sock.sendall(data)
        except OSError:  # the server closed before reading it all
            pass

    sender = threading.Thread(target=send)
    if thread:
        sender.start()
    else:
        send()
    msgs, code = [], None
    try:
        while True:
            msgs.append(c.next())
    except Closed as e:
        code = e.code
    except ConnectionResetError:
        code = "reset"
    end = None
    if code not in (None, "reset"):
        try:
            c.ws.sock.settimeout(10)
            end = "eof" if not c.ws.buf and c.ws.sock.recv(65536) == b"" \
                else "data"
        except ConnectionResetError:
            end = "reset"
    if thread:
        sender.join(timeout=30)
        assert not sender.is_alive(), "the flood is still being sent"
    return msgs, code, end


def assert_flood_closed(t, msgs, code, end, reply, n):
    """Asserts (t: the TestCase) that every message was answered in order
    up to the close (ids 0, 1, ...): replies of type reply, the last
    STRIKES of them rate_limited and the one before those not (a message
    that passes resets the count), then close 1008 and the end of the
    stream."""
    t.assertEqual((code, end), (1008, "eof"),
                  "%d messages before the end" % len(msgs))
    t.assertEqual([m.get("id") for m in msgs], list(range(len(msgs))))
    kinds = [m.get("code") or m["t"] for m in msgs]
    t.assertEqual(kinds[-STRIKES:], ["rate_limited"] * STRIKES)
    t.assertEqual(kinds[-STRIKES - 1], reply)
    t.assertEqual(set(kinds), {reply, "rate_limited"})
    t.assertLess(len(msgs), n)  # the rest was not acted on


class FloodTest(ServerTest):
    def test_sync_floods_get_their_replies_and_close_1008(self):
        for n in (200, 1000, 5000):
            with self.subTest(n=n):
                c = self.client(rcvbuf=8192)
                gid = c.request({"t": "invite", "clock": FISCHER_5_0},
                                "invited")["game"]
                texts = [json.dumps({"t": "sync", "game": gid, "id": i})
                         for i in range(n)]
                msgs, code, end = flood(c, texts)
                assert_flood_closed(self, msgs, code, end, "state", n)
                self.assertEqual(msgs[0]["game"], gid)
        self.client().request({"t": "ping"}, "pong")  # the server lives

    def test_flood_of_maximum_size_frames_closes_1008(self):
        n = 1000
        c = self.client(rcvbuf=8192)
        gid = c.request({"t": "invite", "clock": FISCHER_5_0},
                        "invited")["game"]
        texts = []
        for i in range(n):
            t = json.dumps({"t": "sync", "game": gid, "id": i})
            texts.append(t + " " * (4096 - len(t)))
        msgs, code, end = flood(c, texts)
        assert_flood_closed(self, msgs, code, end, "state", n)
        self.client().request({"t": "ping"}, "pong")

    def test_message_too_large_amid_a_flood_closes_1009(self):
        c = self.client()
        before = ['{"t":"ping","id":%d}' % i for i in range(30)]
        big = '{"t":"ping","id":"%s"}' % ("x" * 5000)
        after = ['{"t":"ping","id":%d}' % i for i in range(30, 3000)]
        msgs, code, end = flood(c, before + [big] + after)
        self.assertEqual((code, end), (1009, "eof"))
        # what came before was answered; nothing after was acted on
        self.assertEqual([(m["t"], m["id"]) for m in msgs],
                         [("pong", i) for i in range(30)])
        self.client().request({"t": "ping"}, "pong")



    def test_invalid_utf8_amid_a_flood_closes_1007(self):
        c = self.client(rcvbuf=8192)
        before = ['{"t":"ping","id":%d}' % i for i in range(30)]
        after = ['{"t":"ping","id":%d}' % i for i in range(30, 3000)]
        data = b"".join(frame(OP_TEXT, t.encode()) for t in before)
        data += frame(OP_TEXT, b'{"t":"ping","id":"\xff\xfe"}')
        msgs, code, end = flood(c, after, head=data)
        self.assertEqual((code, end), (1007, "eof"))
        self.assertEqual([(m["t"], m["id"]) for m in msgs],
                         [("pong", i) for i in range(30)])

    def test_utf8_is_checked_per_message(self):
        # the server checks UTF-8 itself (RFC 3629), over the whole
        # reassembled message
        for bad in (b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80",
                    b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80",
                    b"\x80", b"\xe2\x99"):
            with self.subTest(bad=bad):
                c = self.client()
                c.ws.send_frame(OP_TEXT, b'{"t":"ping","id":"' + bad + b'"}')
                self.assertEqual(c.ws.recv_close(), 1007)
        c = self.client()
        for good in ("\u00e9", "\u265e", "\U0001f600"):
            text = json.dumps({"t": "ping", "id": good},
                              ensure_ascii=False).encode()
            cut = text.index(good.encode()) + 1  # inside the sequence
            c.ws.send_frame(OP_TEXT, text[:cut], fin=False)
            c.ws.send_frame(OP_CONT, text[cut:])
            self.assertEqual(c.expect("pong")["id"], good)


DRAIN_S = 2.0  # LIMIT_CLOSE_DRAIN_MS: how long the server reads and drops


class ReadFloodTest(FreshServerTest):
    """Syncs of games nobody has, from one address (issue 26: 4,000 a
    second, a read each, pushed another client's ping from 0.4 ms to a
    45 ms median): the reads they cost are metered by address (50 a
    second, bursts of 256: server/lib/tunables.h) and a game found
    unknown costs no read for 10 s; every sync is answered; and the
    reads, off the event loop, leave another address's pings alone."""

    CONNS, SYNCS = 25, 48  # (within each connection's burst of 60)
    RATE, BURST = 50, 256  # LIMIT_GAME_READS_PER_ADDR_PER_S, _BURST

    @staticmethod
    def reads(srv):
        """The store reads the node submitted (chess_store_reads_total,
        every outcome)."""
        _, _, body = srv.http("/metrics")
        return sum(int(float(v)) for v in re.findall(
            r'^chess_store_reads_total\{[^}]*\} (\S+)$', body.decode(),
            re.M))

    @one_node
    def test_a_sync_flood_of_unknown_games_costs_bounded_reads(self):
        srv = self.server()
        conns = [self.client(srv) for _ in range(self.CONNS)]
        other = self.client(srv, source="127.0.0.2")
        other.request({"t": "ping"}, "pong")
        before = self.reads(srv)
        t0 = time.monotonic()
        for k, c in enumerate(conns):  # half new games, half one game
            for i in range(self.SYNCS):
                gid = ("unknown%02d%04d" % (k, i) if i % 2
                       else "unknownRepeated1")
                c.send({"t": "sync", "game": gid})
        slowest = 0.0
        for _ in range(5):  # another address meanwhile
            t = time.monotonic()
            other.request({"t": "ping"}, "pong")
            slowest = max(slowest, time.monotonic() - t)
        codes = {}
        for c in conns:
            for _ in range(self.SYNCS):
                m = c.expect("error")
                codes[m["code"]] = codes.get(m["code"], 0) + 1
        took = time.monotonic() - t0
        read = self.reads(srv) - before
        self.assertEqual(sum(codes.values()), self.CONNS * self.SYNCS)
        self.assertEqual(set(codes), {"no_such_game", "rate_limited"})
        self.assertLessEqual(read, self.BURST + self.RATE * took + 1,
                             "%d reads in %.2f s" % (read, took))
        self.assertGreater(read, 0)
        self.assertLess(slowest, 1.0)
        # the repeated game: read once, then answered from memory
        _, _, body = srv.http("/metrics")
        hits = int(re.search(r"^chess_unknown_games_total (\d+)$",
                             body.decode(), re.M).group(1))
        self.assertGreater(hits, 0)
        c = conns[0]
        c.request({"t": "sync", "game": "unknownRepeated1"}, "error")
        self.assertEqual(self.reads(srv) - before, read)


class DrainTest(FreshServerTest):
    """After the close frame the server reads and drops input until the
    client closes its side, or at most DRAIN_S."""

    def connections(self, srv):
        return srv.http_json("/healthz")[1]["connections"]

    def flooded(self, srv):
        c = self.client(srv)
        msgs, code, end = flood(c, [
            json.dumps({"t": "ping", "id": i}) for i in range(300)])
        self.assertEqual((code, end), (1008, "eof"))
        return c

    def test_the_clients_close_ends_the_drain_at_once(self):
        srv = self.server()
        c = self.flooded(srv)
        c.ws.sock.shutdown(socket.SHUT_WR)
        # the drain began before the close frame was read; the timeout
        # would end it DRAIN_S after that, the client's close ends it now
        wait_until(lambda: self.connections(srv) == 0,
                   "the connection's end", timeout=DRAIN_S / 2)

    def test_a_client_that_goes_on_sending_is_closed_after_the_drain(self):
        srv = self.server()
        c = self.flooded(srv)
        stop = threading.Event()

        def chatter():  # a flooder that ignores the close
            while not stop.is_set():
                try:
                    c.ws.send({"t": "ping"})
                except OSError:
                    return
                time.sleep(0.01)

        t = threading.Thread(target=chatter)
        t.start()
        try:
            wait_until(lambda: self.connections(srv) == 0,
                       "the connection's end", timeout=DRAIN_S + WAIT)
        finally:
            stop.set()
            t.join(timeout=WAIT)
        self.client(srv).request({"t": "ping"}, "pong")


class TlsFloodTest(FreshServerTest):
    def test_flood_over_tls_closes_1008(self):
        # over TLS lws reads on while the connection closes (see conn.c)
        cert, key = make_cert(self.dir)
        srv = self.server({"tls_cert": cert, "tls_key": key})
        ctx = ssl.create_default_context(cafile=cert)
        for n in (200, 5000):
            with self.subTest(n=n):
                c = self.client(srv, ssl_context=ctx)
                # one thread: an SSL socket is not to be read and written
                # from two at once (the server reads it all over TLS)
                msgs, code, end = flood(c, [
                    json.dumps({"t": "ping", "id": i}) for i in range(n)],
                    thread=False)
                assert_flood_closed(self, msgs, code, end, "pong", n)
        self.client(srv, ssl_context=ctx).request({"t": "ping"}, "pong")
