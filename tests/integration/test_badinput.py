"""Bad input gets a precise error, changes nothing, and the server lives:
malformed JSON, wrong types, unknown types, missing hello, error order,
id echo rules, binary frames, oversized messages, invalid UTF-8,
fragmentation, floods, slow readers, wrong upgrade paths."""
import json
import re
import socket
import time

from harness import FISCHER_5_0, Client, Closed, HandshakeError, ServerTest
from wsclient import OP_BINARY, OP_CLOSE, OP_CONT, OP_PING, OP_TEXT, WebSocket


# The most legal moves known in a reachable position; and 263 from
# material no game reaches (26 queens), which the server must refuse.
MAX_218 = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"
QUEENS_263 = "QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1"


class BadInputTest(ServerTest):
    def raw(self, **kw):
        ws = WebSocket("127.0.0.1", self.server.port, **kw)
        return ws

    def error_of(self, c, text):
        c.ws.send_text(text)
        m = c.next()
        self.assertEqual(m["t"], "error", m)
        return m

    def test_error_order_before_hello(self):
        c = self.client(hello=False)
        self.assertEqual(self.error_of(c, "{")["code"], "bad_json")
        self.assertEqual(self.error_of(c, "[]")["code"], "bad_json")
        self.assertEqual(self.error_of(c, "{}")["code"], "bad_field")
        self.assertEqual(self.error_of(c, '{"t":1}')["code"], "bad_field")
        self.assertEqual(self.error_of(c, '{"t":"x"}')["code"],
                         "unknown_type")
        e = self.error_of(c, '{"t":"seek","id":"q"}')
        self.assertEqual((e["code"], e["id"]), ("unauthenticated", "q"))
        self.assertEqual(self.error_of(c, '{"t":"move","x":1}')["code"],
                         "unauthenticated")
        c.request({"t": "ping"}, "pong")
        e = self.error_of(c, '{"t":"hello","name":"a b"}')
        self.assertEqual(e["code"], "bad_field")
        self.assertIn("name", e["msg"])
        c.send({"t": "hello", "token": "x" * 40})
        c.expect_error("bad_token")
        c.send({"t": "hello", "name": "bob"})
        self.assertEqual(c.expect("welcome")["player"]["name"], "bob")
        c.send({"t": "hello"})
        c.expect_error("bad_field")

    def test_error_order_after_hello(self):
        c = self.client()
        e = self.error_of(c, '{"t":"move","game":"g","uci":"e2e4","ply":0,'
                             '"x":1}')
        self.assertEqual(e["code"], "bad_field")
        self.assertIn("'x'", e["msg"])
        e = self.error_of(c, '{"t":"move","game":"g","uci":"e2e4"}')
        self.assertEqual(e["code"], "bad_field")
        self.assertIn("ply", e["msg"])
        e = self.error_of(c, '{"t":"move","game":"g","uci":"e2e4",'
                             '"ply":"1"}')
        self.assertEqual(e["code"], "bad_field")
        e = self.error_of(c, '{"t":"move","game":"g","uci":"zz","ply":0}')
        self.assertEqual(e["code"], "bad_field")
        e = self.error_of(c, '{"t":"seek","clock":{"type":"fischer"},'
                             '"color":"green"}')
        self.assertEqual(e["code"], "bad_field")  # before bad_clock
        for clock in ({"type": "fischer", "initial_s": 0, "increment_s": 0},
                      {"type": "fischer", "initial_s": 10801,
                       "increment_s": 0},
                      {"type": "fischer", "initial_s": 60, "increment_s": 11},
                      {"type": "fischer", "initial_s": 60},
                      {"type": "fischer", "initial_s": 60, "increment_s": 0,
                       "x": 1},
                      {"type": "per_move", "per_move_s": 1209601},
                      {"type": "per_move", "per_move_s": 1.5},
                      {"type": "blitz"}, "fast"):
            c.send({"t": "seek", "clock": clock})
            c.expect_error("bad_clock")
            c.send({"t": "invite", "clock": clock})
            c.expect_error("bad_clock")
        c.send({"t": "cancel_seek"})
        c.expect_error("no_seek")  # nothing was queued by the bad seeks
        c.send({"t": "move", "game": "nosuchgame", "uci": "e2e4", "ply": 0})
        c.expect_error("no_such_game")

    def test_id_echo(self):
        c = self.client()
        c.send({"t": "ping", "id": "x"})
        self.assertEqual(c.expect("pong")["id"], "x")
        c.send({"t": "ping", "id": 2 ** 53})
        e = c.expect_error("bad_field")
        self.assertNotIn("id", e)
        c.send({"t": "ping", "id": "y" * 65})
        self.assertNotIn("id", c.expect_error("bad_field"))
        c.send({"t": "ping", "id": {"a": 1}})
        self.assertNotIn("id", c.expect_error("bad_field"))
        c.send({"t": "sync", "game": "zzz", "id": -5})
        self.assertEqual(c.expect_error("no_such_game")["id"], -5)

    def test_bad_fens(self):
        c = self.client()
        for fen, why in (
                ("8/8/8/8/8/8/8/8 w - - 0 1", "king"),
                ("k7/8/8/8/8/8/8/K7 w - - 0 1", "dead"),
                ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "no legal move"),
                ("k7/8/8/8/8/8/8/KQ6 w - - 150 90", "150"),
                ("k7/8/8/8/8/8/8/KQ6 w", "six"),
                ("k7/8/8/8/8/8/8/KQ6 x - - 0 1", "side"),
                (QUEENS_263, "impossible material"),
                ("4k3/8/8/8/8/8/PPPPPPPP/4KB1B w - - 0 1",
                 "impossible material")):
            c.send({"t": "invite", "clock": FISCHER_5_0, "fen": fen})
            e = c.expect_error("bad_field")
            self.assertIn("fen", e["msg"])
            self.assertIn(why, e["msg"].lower(), e["msg"])
        c.request({"t": "ping"}, "pong")

    def test_most_legal_moves(self):
        """The reachable position with the most legal moves (218) plays:
        every one is in the state's and the moved message's list."""
        w, b, gid = self.invite_game(fen=MAX_218)
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(len(st["legal"]), 218)
        self.assertEqual(len(set(st["legal"])), 218)
        self.assertEqual(st["legal"], sorted(st["legal"]))
        self.assertIn("b1c2", st["legal"])
        w.move(gid, "b1c2", 0)
        for c in (w, b):
            self.assertEqual(c.expect("moved", game=gid, ply=1)["san"],
                             "Bc2")

    def test_game_errors(self):
        w, b, gid = self.invite_game()
        b.move(gid, "e7e5", 0)
        b.expect_error("not_your_turn")
        w.move(gid, "e2e5", 0)
        w.expect_error("illegal_move")
        w.move(gid, "e2e4", 1)
        w.expect_error("stale_ply")
        w.move(gid, "e2e4", 0)
        b.expect("moved", ply=1)
        w.move(gid, "e2e4", 0)  # a double send
        w.expect_error("stale_ply")
        stranger = self.client()
        stranger.move(gid, "e7e5", 1)
        stranger.expect_error("not_a_player")
        stranger.send({"t": "join", "game": gid})
        stranger.expect_error("seat_taken")
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["ply"], 1)  # nothing changed

    def test_binary_frame(self):
        c = self.client()
        c.ws.send_frame(OP_BINARY, b'{"t":"ping"}')
        e = c.expect_error("bad_json")
        self.assertNotIn("id", e)
        c.request({"t": "ping"}, "pong")  # still open

    def test_fragmented_message(self):
        c = self.client()
        text = json.dumps({"t": "ping", "id": "frag"}).encode()
        c.ws.send_frame(OP_TEXT, text[:5], fin=False)
        c.ws.send_frame(OP_CONT, text[5:9], fin=False)
        c.ws.send_frame(OP_CONT, text[9:], fin=True)
        self.assertEqual(c.expect("pong")["id"], "frag")

    def test_oversized_message_closes_1009(self):
        c = self.client()
        pad = "x" * 4100
        c.ws.send_text('{"t":"ping","id":"%s"}' % pad)
        self.assertEqual(c.ws.recv_close(), 1009)
        # fragments that add up to more than 4096 bytes
        c2 = self.client()
        c2.ws.send_frame(OP_TEXT, b"{" + b" " * 3000, fin=False)
        c2.ws.send_frame(OP_CONT, b" " * 2000, fin=True)
        self.assertEqual(c2.ws.recv_close(), 1009)
        # exactly 4096 bytes is fine
        c3 = self.client()
        msg = '{"t":"ping"}'
        c3.ws.send_text(msg + " " * (4096 - len(msg)))
        c3.expect("pong")

    def test_invalid_utf8_closes_1007(self):
        c = self.client()
        c.ws.send_frame(OP_TEXT, b'{"t":"ping","id":"\xff\xfe"}')
        self.assertEqual(c.ws.recv_close(), 1007)

    def test_flood_closes_1008(self):
        # one message at a time, each answered before the next is sent (a
        # flood in one write is test_flood's)
        c = self.client()
        codes, close = [], None
        for i in range(1000):
            c.send({"t": "ping"})
            try:
                m = c.next()
            except Closed as e:
                close = e.code
                break
            codes.append(m.get("code") or m["t"])
        self.assertEqual(close, 1008)
        self.assertIn("pong", codes)
        self.assertEqual(codes[-1], "rate_limited")
        self.assertGreaterEqual(codes.count("rate_limited"), 20)
        # the server lives
        self.client().request({"t": "ping"}, "pong")

    def test_unmasked_frame_closes_1002(self):
        # RFC 6455 5.1: a client must mask every frame; the server closes
        # with 1002 (protocol error) and does not act on the frame
        c = self.client()
        c.request({"t": "ping"}, "pong")
        c.ws.send_frame(OP_TEXT, b'{"t":"ping","id":"unmasked"}', mask=False)
        seen = []
        with self.assertRaises(Closed) as e:
            while True:
                seen.append(c.ws.recv_message())
        self.assertEqual(e.exception.code, 1002)
        self.assertEqual(seen, [])
        # an unmasked ping too (lws would answer it by itself)
        c2 = self.client()
        c2.ws.send_frame(OP_PING, b"x", mask=False)
        _, opcode, data = c2.ws.recv_frame()
        self.assertEqual((opcode, data[:2]), (OP_CLOSE, b"\x03\xea"))
        self.client().request({"t": "ping"}, "pong")

    def test_move_flood_limited_separately(self):
        w, b, gid = self.invite_game()
        for i in range(30):
            w.move(gid, "e2e5", 0)  # illegal, counted as moves
        codes = [w.next()["code"] for _ in range(30)]
        self.assertIn("illegal_move", codes)
        self.assertIn("rate_limited", codes)
        w.request({"t": "ping"}, "pong")  # other messages still pass

    def test_slow_reader_is_cut(self):
        c = Client(self.server, rcvbuf=4096)
        self.clients.append(c)
        w, b, gid = self.invite_game()
        c.request({"t": "watch", "game": gid}, "state")
        # a state is ~700 bytes; never read, ask for many
        sent = 0
        deadline = time.monotonic() + 20
        cut = False
        while time.monotonic() < deadline and not cut:
            try:
                c.send({"t": "sync", "game": gid})
                sent += 1
            except OSError:
                cut = True
                break
            if sent % 50 == 0:
                time.sleep(0.05)  # stay near the rate limit
            status, _, body = self.server.http("/metrics")
            m = re.search(r'why="slow_reader"\} (\d+)', body.decode())
            cut = int(m.group(1)) > 0
        self.assertTrue(cut, "never cut after %d syncs" % sent)
        w.request({"t": "ping"}, "pong")

    def test_upgrade_on_other_path_refused(self):
        with self.assertRaises(HandshakeError) as cm:
            WebSocket("127.0.0.1", self.server.port, path="/other")
        self.assertIn("404", cm.exception.status)
        ws = WebSocket("127.0.0.1", self.server.port, protocol="chess.v1")
        self.assertEqual(ws.protocol, "chess.v1")
        ws.send({"t": "ping"})
        self.assertEqual(json.loads(ws.recv_message())["t"], "pong")
        ws.close()

    def test_garbage_on_socket(self):
        s = socket.create_connection(("127.0.0.1", self.server.port))
        s.sendall(b"\x00\x01garbage\r\n\r\n")
        s.settimeout(2)
        try:
            s.recv(100)
        except (ConnectionResetError, socket.timeout):
            pass
        s.close()
        self.client().request({"t": "ping"}, "pong")

    def test_connections_per_ip_are_capped(self):
        socks, refused = [], None
        try:
            for i in range(300):
                try:
                    socks.append(WebSocket("127.0.0.1", self.server.port))
                except HandshakeError as e:
                    refused = e.status
                    break
            self.assertIsNotNone(refused, "no cap after 300")
            self.assertIn("429", refused)
            self.assertGreaterEqual(len(socks), 230)
            self.assertLessEqual(len(socks), 256)
            socks.pop().close()
            deadline = time.monotonic() + 5
            while True:  # the close is processed asynchronously
                try:
                    socks.append(WebSocket("127.0.0.1", self.server.port))
                    break
                except HandshakeError:
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.01)
        finally:
            for s in socks:
                s.close()
