"""The lichess Bot and Board API's streams and game actions (PROTOCOL.md,
"The lichess Bot and Board API"), spoken here in raw HTTP/1.1 from the
lichess documentation, sharing no code with the server: two tokens play
a game through their event and game streams and POSTs to checkmate; the
errors; one event stream per token; the caps per account and per
address. In a cluster (docs/cluster.md, "The Bot and Board API in a
cluster") the event stream is served by every node, challenges and
gameStart/gameFinish of games hosted elsewhere included, and a game's
stream and actions too, relayed from the node that hosts the game."""
import json
import random
import re
import signal
import socket
import time

import unittest

from harness import CLUSTER, FreshServerTest, not_in_cluster, wait_until

PASSWORD = "correct horse battery"
BLITZ = {"type": "fischer", "initial_s": 180, "increment_s": 2}
STREAMS_PER_ACCOUNT = 8  # LIMIT_STREAMS_PER_ACCOUNT (server/lib/tunables.h)
STREAMS_PER_IP = 12      # LIMIT_STREAMS_PER_IP


class Stream:
    """An NDJSON answer read off a raw socket: chunked framing decoded
    here."""

    def __init__(self, port, path, token, rcvbuf=None):
        self.sock = socket.socket()
        if rcvbuf:  # (before connecting: the window is agreed then)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n"
                           "Authorization: Bearer %s\r\n\r\n"
                           % (path, token)).encode())
        self.buf = b""
        head = self._until(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {k.lower(): v.strip() for k, v in
                        (x.split(":", 1) for x in lines[1:] if x)}
        self.data = b""
        self.eof = False

    def _fill(self):
        got = self.sock.recv(65536)
        if not got:
            raise EOFError
        self.buf += got

    def _until(self, sep):
        while sep not in self.buf:
            self._fill()
        i = self.buf.index(sep)
        out, self.buf = self.buf[:i], self.buf[i + len(sep):]
        return out

    def _chunk(self):
        size = int(self._until(b"\r\n"), 16)
        if size == 0:
            self.eof = True
            return
        while len(self.buf) < size + 2:
            self._fill()
        self.data += self.buf[:size]
        assert self.buf[size:size + 2] == b"\r\n"
        self.buf = self.buf[size + 2:]

    def line(self, keepalive=False):
        """The next JSON line (empty keep-alive lines skipped unless
        asked for: then None)."""
        while True:
            while b"\n" not in self.data:
                if self.eof:
                    raise EOFError
                self._chunk()
            i = self.data.index(b"\n")
            text, self.data = self.data[:i], self.data[i + 1:]
            if text.strip():
                return json.loads(text)
            if keepalive:
                return None

    def until(self, kind):
        while True:
            m = self.line()
            if m.get("type") == kind:
                return m

    def close(self):
        self.sock.close()


class Recorded(Stream):
    """A stream that keeps every line it read."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.seen = []

    def line(self, keepalive=False):
        m = super().line(keepalive)
        if m is not None:
            self.seen.append(m)
        return m


def post(port, path, token, body=b""):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
               "Content-Type: application/x-www-form-urlencoded\r\n"
               "Content-Length: %d\r\nConnection: close\r\n\r\n"
               % (path, token, len(body))).encode() + body)
    data = b""
    while True:
        got = s.recv(65536)
        if not got:
            break
        data += got
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body) if body.strip() else None


def cut_slow(srv):
    text = srv.http("/metrics")[2].decode()
    return int(re.search(r'chess_connections_cut_total\{why="slow_reader"\} '
                         r'(\d+)', text).group(1))


class BotApiTest(FreshServerTest):
    def server(self, config=None, **kw):
        return super().server(config,
                              extra=["--registers-per-ip-per-min", "1000"],
                              **kw)

    def account(self, srv, username, scopes=("board:play", "bot:play")):
        c = self.client(srv, name=username)
        c.request({"t": "register", "username": username,
                   "password": PASSWORD}, "registered")
        t = c.request({"t": "token_create", "scopes": list(scopes)},
                      "token_created")
        c.api = t["token"]
        c.name = username
        return c

    def token(self, c):
        return c.request({"t": "token_create", "scopes": ["board:play"]},
                         "token_created")["token"]

    def hosted_game(self):
        """A cluster, alicebot and bobbot in a game of theirs: (the
        cluster, alice, bob, the game, its host's index, the indexes of
        the two other nodes)."""
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        gid = self.start_game(a, b)
        wait_until(lambda: srv.host_of(gid) is not None, "the game hosted")
        host = srv.host_of(gid)
        return (srv, a, b, gid, host,
                [i for i in range(len(srv.nodes)) if i != host])

    def start_game(self, a, b):
        a.send({"t": "challenge", "to": b.name, "clock": BLITZ,
                "color": "white"})
        ch = b.expect("challenge")["challenge"]
        b.send({"t": "challenge_accept", "challenge": ch["id"]})
        return b.expect("challenge", timeout=10)["challenge"]["game"]

    def test_two_tokens_play_to_mate(self):
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        ea = Stream(srv.port, "/api/stream/event", a.api)
        eb = Stream(srv.port, "/api/stream/event", b.api)
        self.assertEqual(ea.status, 200)
        self.assertEqual(ea.headers["content-type"], "application/x-ndjson")
        self.assertEqual(ea.headers["transfer-encoding"], "chunked")
        self.start_game(a, b)
        sa, sb = ea.until("gameStart"), eb.until("gameStart")
        gid = sa["game"]["gameId"]
        self.assertEqual(sb["game"]["gameId"], gid)
        self.assertEqual(sa["game"]["color"], "white")
        self.assertEqual(sb["game"]["color"], "black")
        self.assertTrue(sa["game"]["isMyTurn"])
        self.assertEqual(sa["game"]["opponent"]["username"], "bobbot")
        ga = Stream(srv.port, "/api/bot/game/stream/" + gid, a.api)
        gb = Stream(srv.port, "/api/board/game/stream/" + gid, b.api)
        full = ga.line()
        self.assertEqual(full["type"], "gameFull")
        self.assertEqual(full["id"], gid)
        self.assertEqual(full["white"]["name"], "alicebot")
        self.assertEqual(full["black"]["id"], "bobbot")
        self.assertEqual(full["initialFen"], "startpos")
        self.assertEqual(full["clock"], {"initial": 180000,
                                         "increment": 2000})
        self.assertEqual(full["state"]["moves"], "")
        self.assertEqual(full["state"]["status"], "started")
        self.assertEqual(gb.line()["type"], "gameFull")
        # the errors, which change nothing
        self.assertEqual(post(srv.port, "/api/bot/game/%s/move/e7e5" % gid,
                              a.api)[0], 400)  # not this side's move
        self.assertEqual(post(srv.port, "/api/bot/game/%s/move/e2e5" % gid,
                              a.api)[0], 400)  # illegal
        self.assertEqual(post(srv.port, "/api/bot/game/%s/move/e2e4" % gid,
                              "lip_" + "x" * 20), (401, {"error":
                                                         "No such token"}))
        c = self.account(srv, "carolbot")
        self.assertEqual(post(srv.port, "/api/bot/game/%s/move/e2e4" % gid,
                              c.api)[0], 404)  # someone else's game
        self.assertEqual(post(srv.port, "/api/bot/game/nosuch/resign",
                              a.api)[0], 404)
        # fool's mate, every move acknowledged and streamed to both, the
        # mating move's gameState the game's last, with its ending (one
        # state, as lichess: none that says "started" after the mate)
        moves = ["f2f3", "e7e5", "g2g4", "d8h4"]
        for i, uci in enumerate(moves):
            who = a if i % 2 == 0 else b
            status, body = post(srv.port, "/api/board/game/%s/move/%s"
                                % (gid, uci), who.api)
            self.assertEqual((status, body), (200, {"ok": True}), uci)
            for s in (ga, gb):
                st = s.until("gameState")
                self.assertEqual(st["moves"], " ".join(moves[:i + 1]))
                self.assertIsInstance(st["wtime"], int)
                self.assertEqual(st["winc"], 2000)
                self.assertEqual((st["status"], st.get("winner")),
                                 ("mate", "black") if i == 3
                                 else ("started", None))
        for s in (ga, gb):  # the end's gameState was the last
            with self.assertRaises(EOFError):
                s.line()
        fin = ea.until("gameFinish")
        self.assertEqual(fin["game"]["gameId"], gid)
        self.assertEqual(fin["game"]["status"], {"id": 30, "name": "mate"})
        # a second event stream of the token closes the first
        ea2 = Stream(srv.port, "/api/stream/event", a.api)
        self.assertEqual(ea2.status, 200)
        with self.assertRaises(EOFError):
            while True:
                ea.line()
        for s in (ea2, eb):
            s.close()

    def test_takebacks_asked_declined_and_accepted(self):
        """lichess's /takeback/yes asks (or accepts the opponent's ask),
        /takeback/no declines; the opponent's stream shows the ask
        (wtakeback), and an accepted one takes the plies back."""
        srv = self.server()
        a, b = self.account(srv, "tb_alice"), self.account(srv, "tb_bob")
        gid = self.start_game(a, b)
        ga = Stream(srv.port, "/api/bot/game/stream/" + gid, a.api)
        gb = Stream(srv.port, "/api/board/game/stream/" + gid, b.api)
        for s in (ga, gb):
            s.until("gameFull")
        base = "/api/board/game/%s/" % gid

        def move(who, uci):
            self.assertEqual(post(srv.port, base + "move/" + uci, who.api),
                             (200, {"ok": True}))
            for s in (ga, gb):
                s.until("gameState")

        move(a, "e2e4")
        # too soon: refused once the players' preferences are read (the
        # answer waits for that read: it was ok, and the refusal lost)
        status, body = post(srv.port, base + "takeback/yes", a.api)
        self.assertEqual((status, body["error"]),
                         (400, "both sides must have moved"))
        move(b, "e7e5")
        # White asks on its turn (the last two plies), Black declines
        self.assertEqual(post(srv.port, base + "takeback/yes", a.api),
                         (200, {"ok": True}))
        self.assertTrue(gb.until("gameState")["wtakeback"])
        self.assertEqual(post(srv.port, base + "takeback/no", b.api),
                         (200, {"ok": True}))
        self.assertFalse(gb.until("gameState")["wtakeback"])
        move(a, "g1f3")
        move(b, "b8c6")
        # asked again after a move, and accepted: back to 1. e4 e5
        self.assertEqual(post(srv.port, base + "takeback/yes", a.api),
                         (200, {"ok": True}))
        self.assertTrue(gb.until("gameState")["wtakeback"])
        self.assertEqual(post(srv.port, base + "takeback/yes", b.api),
                         (200, {"ok": True}))
        st = ga.until("gameState")
        while st["moves"] != "e2e4 e7e5":
            st = ga.until("gameState")
        self.assertEqual(st["status"], "started")
        move(a, "d2d4")  # and play goes on from there
        for s in (ga, gb):
            s.close()

    def test_resign_and_scope(self):
        """An event stream opened after its game started opens with its
        gameStart; in a cluster on each node, the game's host and the
        others (the game read from the store)."""
        srv = self.server()
        a = self.account(srv, "alicebot")
        b = self.account(srv, "bobbot", scopes=["challenge:read"])
        self.assertEqual(Stream(srv.port, "/api/stream/event",
                                b.api).status, 403)
        b.api = self.token(b)
        game = self.start_game(a, b)
        b.expect("game_start", game=game)  # (its row committed)
        ga = None
        for port in ([n.port for n in srv.nodes] if CLUSTER else
                     [srv.port]):
            eb = Stream(port, "/api/stream/event", b.api)
            gid = eb.until("gameStart")["game"]["gameId"]
            self.assertEqual(gid, game)
            eb.close()
        ga = Stream(srv.port, "/api/board/game/stream/" + gid, a.api)
        self.assertEqual(ga.line()["type"], "gameFull")
        self.assertEqual(post(srv.port, "/api/board/game/%s/resign" % gid,
                              b.api), (200, {"ok": True}))
        st = ga.until("gameState")
        self.assertEqual((st["status"], st["winner"]), ("resign", "white"))

    @not_in_cluster("the caps are each node's, the same code as one node's")
    def test_caps_per_account_and_per_address(self):
        srv = self.server()
        a = self.account(srv, "alicebot")
        tokens = [a.api] + [self.token(a) for _ in range(STREAMS_PER_ACCOUNT)]
        open_ = [Stream(srv.port, "/api/stream/event", t)
                 for t in tokens[:STREAMS_PER_ACCOUNT]]
        self.assertEqual([s.status for s in open_],
                         [200] * STREAMS_PER_ACCOUNT)
        over = Stream(srv.port, "/api/stream/event", tokens[-1])
        self.assertEqual(over.status, 429)
        # another account, same address: up to the address's cap
        b = self.account(srv, "bobbot")
        more = STREAMS_PER_IP - STREAMS_PER_ACCOUNT
        btokens = [b.api] + [self.token(b) for _ in range(more)]
        for t in btokens[:more]:
            open_.append(Stream(srv.port, "/api/stream/event", t))
            self.assertEqual(open_[-1].status, 200)
        self.assertEqual(Stream(srv.port, "/api/stream/event",
                                btokens[-1]).status, 429)
        # a stream closed makes room at once (its FIN is seen)
        open_[0].close()
        deadline = time.monotonic() + 5
        while True:
            s = Stream(srv.port, "/api/stream/event", btokens[-1])
            if s.status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(s.status, 200)

    def test_a_reader_that_does_not_read_is_cut(self):
        """A game stream nobody reads, with small socket buffers on both
        sides, while its game is played fast over the WebSocket: its
        gameState lines (the whole game's moves each) pile up past
        LIMIT_STREAM_QUEUE_BYTES and it is cut; the players play on."""
        rng = random.Random(11)
        srv = self.server({"send_buffer_bytes": 4096, "move_rate_per_s": 1000,
                           "move_burst": 1000})
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        before = cut_slow(srv)
        deadline = time.monotonic() + 60
        while cut_slow(srv) == before:
            self.assertLess(time.monotonic(), deadline, "never cut")
            gid = self.start_game(a, b)
            silent = Stream(srv.port, "/api/board/game/stream/" + gid,
                            a.api, rcvbuf=2048)
            legal = a.request({"t": "sync", "game": gid}, "state")["legal"]
            ply = 0
            while legal and cut_slow(srv) == before:
                (a, b)[ply % 2].send({"t": "move", "game": gid, "ply": ply,
                                      "uci": rng.choice(legal)})
                ply += 1
                for c in (a, b):
                    legal = c.expect("moved", game=gid, ply=ply)["legal"]
                    c.backlog.clear()
            if legal:  # cut mid-game: the players are not
                (a, b)[ply % 2].send({"t": "resign", "game": gid})
            for c in (a, b):
                c.expect("game_end", game=gid)
            silent.close()
        self.assertEqual(cut_slow(srv), before + 1)

    def test_challenges_on_the_event_stream(self):
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        # in a cluster each stream on another node than its pages
        ports = [n.port for n in srv.nodes] if CLUSTER else [srv.port] * 3
        ea = Stream(ports[2], "/api/stream/event", a.api)
        eb = Stream(ports[1], "/api/stream/event", b.api)
        a.send({"t": "challenge", "to": "bobbot", "clock": BLITZ,
                "color": "white"})
        ch = eb.until("challenge")["challenge"]
        self.assertEqual((ch["status"], ch["direction"], ch["color"]),
                         ("created", "in", "white"))
        self.assertEqual(ch["challenger"]["name"], "alicebot")
        self.assertEqual(ch["destUser"]["name"], "bobbot")
        self.assertEqual(ch["timeControl"]["limit"], 180)
        self.assertEqual(ea.until("challenge")["challenge"]["direction"],
                         "out")
        b.send({"t": "challenge_decline", "challenge": ch["id"],
                "reason": "tooFast"})
        for s in (ea, eb):
            got = s.until("challengeDeclined")["challenge"]
            self.assertEqual((got["id"], got["declineReasonKey"]),
                             (ch["id"], "tooFast"))
        a.send({"t": "challenge", "to": "bobbot", "clock": BLITZ})
        ch2 = eb.until("challenge")["challenge"]
        # a new event stream opens with the open challenges (in a
        # cluster, every node's)
        eb2 = Stream(ports[0], "/api/stream/event", b.api)
        self.assertEqual(eb2.until("challenge")["challenge"]["id"],
                         ch2["id"])
        a.send({"t": "challenge_cancel", "challenge": ch2["id"]})
        self.assertEqual(eb2.until("challengeCanceled")["challenge"]["id"],
                         ch2["id"])

    def test_event_stream_opens_with_every_pending_challenge(self):
        """An event stream opens with a `challenge` line for each pending
        challenge to and from its account, those received first, then
        those sent, each oldest first, as lichess sends them on open.
        In a cluster the stream opens on a node that holds neither (no
        page of either player there): the lines are read from Redis
        (challenge.lua's list), not from the node's memory."""
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        if CLUSTER:
            home = srv.node_of_port(a.port)
            away = next(n.port for i, n in enumerate(srv.nodes)
                        if i not in (home, srv.node_of_port(b.port)))
            made_on = srv.nodes[home].port
        else:
            away = made_on = srv.port
        a.send({"t": "challenge", "to": "bobbot", "clock": BLITZ,
                "color": "white"})
        got_in = b.expect("challenge")["challenge"]
        # the bot's own, made through the API on alice's node
        status, out = post(made_on, "/api/challenge/alicebot", b.api,
                           b"clock.limit=300&clock.increment=0")
        self.assertEqual(status, 200, out)
        eb = Stream(away, "/api/stream/event", b.api)
        first, second = eb.line(), eb.line()
        self.assertEqual((first["type"], first["challenge"]["id"],
                          first["challenge"]["direction"]),
                         ("challenge", got_in["id"], "in"))
        self.assertEqual((second["type"], second["challenge"]["id"],
                          second["challenge"]["direction"]),
                         ("challenge", out["id"], "out"))
        self.assertEqual(second["challenge"]["timeControl"]["limit"], 300)
        eb.close()

    def test_chat_draw_abort_and_opponent_gone(self):
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        gid = self.start_game(a, b)
        ga = Stream(srv.port, "/api/bot/game/stream/" + gid, a.api)
        gb = Stream(srv.port, "/api/bot/game/stream/" + gid, b.api)
        for s in (ga, gb):
            s.until("gameFull")
        base = "/api/bot/game/%s/" % gid
        self.assertEqual(post(srv.port, base + "chat", a.api,
                              b"room=player&text=good+luck%21"),
                         (200, {"ok": True}))
        line = gb.until("chatLine")
        self.assertEqual((line["room"], line["username"], line["text"]),
                         ("player", "alicebot", "good luck!"))
        self.assertEqual(post(srv.port, base + "chat", a.api,
                              b"room=lobby&text=x")[0], 400)
        self.assertEqual(post(srv.port, base + "claim-victory", a.api)[0],
                         400)  # the opponent is here
        self.assertEqual(post(srv.port, base + "takeback/no", a.api)[0],
                         400)  # nothing asked
        # a move with a draw offer (made first, as lichess's: the move's
        # own gameState shows it, as lichess-bot reads it), accepted
        self.assertEqual(post(srv.port, base + "move/e2e4?offeringDraw=true",
                              a.api), (200, {"ok": True}))
        offered = gb.until("gameState")
        while offered["moves"] != "e2e4":
            offered = gb.until("gameState")
        self.assertEqual((offered["wdraw"], offered["bdraw"]), (True, False))
        self.assertEqual(post(srv.port, base + "draw/yes", b.api),
                         (200, {"ok": True}))
        end = ga.until("gameState")
        while end["status"] == "started":
            end = ga.until("gameState")
        self.assertEqual(end["status"], "draw")
        self.assertNotIn("winner", end)
        # an abort, and a player who leaves
        gid = self.start_game(a, b)
        ga = Stream(srv.port, "/api/bot/game/stream/" + gid, a.api)
        ga.until("gameFull")
        gb = Stream(srv.port, "/api/bot/game/stream/" + gid, b.api)
        gb.until("gameFull")
        b.ws.sock.close()  # bob is present by his stream alone now
        gb.close()
        gone = ga.until("opponentGone")
        self.assertTrue(gone["gone"])
        self.assertIsInstance(gone["claimWinInSeconds"], int)
        self.assertEqual(post(srv.port, "/api/board/game/%s/abort" % gid,
                              a.api), (200, {"ok": True}))
        self.assertEqual(ga.until("gameState")["status"], "aborted")

    @not_in_cluster("test time is one process's clock")
    def test_a_bot_that_does_not_move_loses_on_time(self):
        """A flag: both sides make their first move, then White's bot
        waits. The server (started with CHESS_TEST_CLOCK_MS, so that
        test_clock moves its clock 61 s on at once) flags it: both game
        streams end with gameState status outoftime, winner black and
        White's clock at 0; both event streams get gameFinish; a move
        after it is refused and changes nothing."""
        srv = self.server(env={"CHESS_TEST_CLOCK_MS": "0"})
        a, b = self.account(srv, "flag_alice"), self.account(srv, "flag_bob")
        ea = Stream(srv.port, "/api/stream/event", a.api)
        eb = Stream(srv.port, "/api/stream/event", b.api)
        a.send({"t": "challenge", "to": b.name, "color": "white",
                "clock": {"type": "fischer", "initial_s": 60,
                          "increment_s": 0}})
        ch = eb.until("challenge")["challenge"]
        self.assertEqual(post(srv.port, "/api/challenge/%s/accept"
                              % ch["id"], b.api), (200, {"ok": True}))
        gid = ea.until("gameStart")["game"]["gameId"]
        self.assertEqual(eb.until("gameStart")["game"]["gameId"], gid)
        ga = Stream(srv.port, "/api/bot/game/stream/" + gid, a.api)
        gb = Stream(srv.port, "/api/bot/game/stream/" + gid, b.api)
        for s in (ga, gb):
            self.assertEqual(s.line()["clock"], {"initial": 60000,
                                                 "increment": 0})
        base = "/api/bot/game/%s/" % gid
        for who, uci in ((a, "e2e4"), (b, "e7e5")):
            self.assertEqual(post(srv.port, base + "move/" + uci, who.api),
                             (200, {"ok": True}))
        a.request({"t": "test_clock", "advance_s": 61}, "pong")
        for s in (ga, gb):
            st = s.until("gameState")
            while st["status"] == "started":
                st = s.until("gameState")
            self.assertEqual((st["status"], st.get("winner"), st["moves"]),
                             ("outoftime", "black", "e2e4 e7e5"))
            self.assertEqual(st["wtime"], 0)
            self.assertGreater(st["btime"], 50000)
            with self.assertRaises(EOFError):  # the stream ends there
                s.line()
        for s, color in ((ea, "white"), (eb, "black")):
            fin = s.until("gameFinish")["game"]
            self.assertEqual((fin["gameId"], fin["color"]), (gid, color))
            self.assertEqual(fin["status"], {"id": 35, "name": "outoftime"})
        status, body = post(srv.port, base + "move/g1f3", a.api)
        self.assertIn(status, (400, 404))
        self.assertIn("error", body)
        for s in (ea, eb):
            s.close()

    @unittest.skipUnless(CLUSTER, "a cluster's nodes")
    def test_event_streams_on_any_node_games_on_their_host(self):
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        n = srv.nodes
        # bob accepts on his page's node: the game is hosted there; both
        # event streams are on the other nodes
        host = srv.node_of_port(b.port)
        others = [i for i in range(len(n)) if i != host]
        ea = Stream(n[others[0]].port, "/api/stream/event", a.api)
        eb = Stream(n[others[-1]].port, "/api/stream/event", b.api)
        gid = self.start_game(a, b)
        wait_until(lambda: srv.host_of(gid) == host,  # (taken after its row)
                   "the game hosted by the accepting node")
        for s, color in ((ea, "white"), (eb, "black")):
            g = s.until("gameStart")["game"]
            self.assertEqual((g["gameId"], g["color"]), (gid, color))
            self.assertEqual(g["opponent"]["username"],
                             "bobbot" if color == "white" else "alicebot")
        self.assertEqual(post(n[host].port, "/api/bot/game/%s/resign"
                              % gid, b.api), (200, {"ok": True}))
        for s in (ea, eb):
            fin = s.until("gameFinish")["game"]
            self.assertEqual((fin["gameId"], fin["status"]["name"]),
                             (gid, "resign"))
            s.close()
        # a finished game's stream on a node that does not host it: the
        # store's gameFull, then the end
        done = Stream(n[others[0]].port, "/api/bot/game/stream/" + gid,
                      a.api)
        self.assertEqual(done.line()["state"]["status"], "resign")
        with self.assertRaises(EOFError):
            done.line()

    @unittest.skipUnless(CLUSTER, "a cluster's nodes")
    def test_a_rematch_starts_once_on_every_stream_and_page(self):
        """A rematch hosted where the ended game stays in memory, the
        offerer's page on another node (mirrored on the host): each
        event stream of both accounts, one on every node (on the host
        through the game's fan, elsewhere through its NEW_GAME's tell),
        writes its gameStart once, and each page gets its game_start
        once (docs/cluster.md, "A new game starts once on every
        connection")."""
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        n = srv.nodes
        host = srv.node_of_port(b.port)
        self.assertNotEqual(srv.node_of_port(a.port), host)
        streams = [(c, Stream(n[i].port, "/api/stream/event", c.api))
                   for c in (a, b) for i in range(len(n))]
        gid = self.start_game(a, b)  # (accepted on b's node: hosted there)
        for c in (a, b):
            c.expect("game_start", game=gid)
        for _, s in streams:
            self.assertEqual(s.until("gameStart")["game"]["gameId"], gid)
        wait_until(lambda: srv.host_of(gid) == host, "hosted by b's node")
        b.send({"t": "resign", "game": gid})
        for c in (a, b):
            c.expect("game_end", game=gid)
        a.send({"t": "rematch", "game": gid})
        b.expect("rematch_offered", game=gid)
        b.send({"t": "rematch", "game": gid})
        new = b.expect("game_start")["game"]
        self.assertEqual(srv.host_of(new), host)
        time.sleep(1.5)  # (a second one would be there by now)
        for c in (a, b):
            got, c.backlog = c.backlog + self.drained(c), []
            starts = [m for m in got if m["t"] == "game_start" and
                      m["game"] == new]
            self.assertEqual(len(starts), 1 if c is a else 0, (c.name, got))
        for c, s in streams:
            s.sock.settimeout(0.3)
            lines = []
            try:
                while True:
                    m = s.line(keepalive=True)
                    if m is not None:
                        lines.append(m)
            except socket.timeout:
                pass
            self.assertEqual([m["type"] for m in lines
                              if m.get("game", {}).get("gameId") == new],
                             ["gameStart"], (c.name, s.sock.getpeername(),
                                             lines))
            s.close()

    @staticmethod
    def drained(c):
        """What c has received and not read, without waiting."""
        out = []
        while True:
            try:
                out.append(c._next(0.05))
            except socket.timeout:
                return out

    @unittest.skipUnless(CLUSTER, "a cluster's nodes")
    def test_game_stream_and_posts_on_any_node(self):
        """A game hosted on node H: alice's stream on node E (not H), her
        POSTs alternating between H and E, bob's stream and POSTs on the
        third node; the errors, a draw offered and declined, a chat line,
        a resign. Alice's stream on E has every line, in order, of her
        stream on H (the host renders, the edge relays: docs/cluster.md,
        "The Bot and Board API in a cluster")."""
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        c = self.account(srv, "carolbot")
        n = srv.nodes
        gid = self.start_game(a, b)
        wait_until(lambda: srv.host_of(gid) is not None, "the game hosted")
        host = srv.host_of(gid)
        edge, third = [i for i in range(len(n)) if i != host][:2]
        here = Recorded(n[host].port, "/api/bot/game/stream/" + gid, a.api)
        ga = Recorded(n[edge].port, "/api/bot/game/stream/" + gid, a.api)
        gb = Stream(n[third].port, "/api/board/game/stream/" + gid, b.api)
        self.assertEqual((ga.status, gb.status), (200, 200))
        full = ga.line()
        self.assertEqual((full["type"], full["id"]), ("gameFull", gid))
        self.assertEqual(full["white"]["name"], "alicebot")
        self.assertEqual(gb.line()["type"], "gameFull")
        self.assertEqual(here.line(), full)
        ports = [n[host].port, n[edge].port]

        def alice(i, path, body=b""):  # (i: her POST's node, H or E)
            return post(ports[i % 2], "/api/bot/game/%s/%s" % (gid, path),
                        a.api, body)

        def bob(path, body=b""):
            return post(n[third].port, "/api/board/game/%s/%s" % (gid, path),
                        b.api, body)

        moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
        for i, uci in enumerate(moves):
            got = alice(i // 2, "move/" + uci) if i % 2 == 0 \
                else bob("move/" + uci)
            self.assertEqual(got, (200, {"ok": True}), uci)
            for s in (ga, gb):
                self.assertEqual(s.until("gameState")["moves"],
                                 " ".join(moves[:i + 1]))
        # the host's errors, as it answers them
        self.assertEqual(alice(1, "move/e7e5")[0], 400)  # not her move
        self.assertEqual(post(n[edge].port, "/api/bot/game/%s/resign" % gid,
                              c.api), (404, {"error": "No such game"}))
        # a draw offered from E, declined from the third node
        self.assertEqual(alice(1, "draw/yes"), (200, {"ok": True}))
        self.assertTrue(ga.until("gameState")["wdraw"])
        self.assertTrue(gb.until("gameState")["wdraw"])
        self.assertEqual(bob("draw/no"), (200, {"ok": True}))
        self.assertFalse(ga.until("gameState")["wdraw"])
        # a chat line from E, on both streams
        self.assertEqual(alice(1, "chat", b"room=player&text=good+luck"),
                         (200, {"ok": True}))
        for s in (ga, gb):
            line = s.until("chatLine")
            self.assertEqual((line["username"], line["text"]),
                             ("alicebot", "good luck"))
        # resigned on E: the end's state, then each stream's end
        self.assertEqual(alice(1, "resign"), (200, {"ok": True}))
        for s in (ga, gb, here):
            st = s.until("gameState")
            while st["status"] == "started":
                st = s.until("gameState")
            self.assertEqual((st["status"], st["winner"]),
                             ("resign", "black"))
            with self.assertRaises(EOFError):
                s.line()
        # (each stream's clocks read when its line is written: the same
        # millisecond but on a slow machine)
        def apart(m):
            st = dict(m.get("state", m))
            times = [st.pop("wtime", 0), st.pop("btime", 0)]
            rest = {k: v for k, v in m.items()
                    if k not in ("state", "wtime", "btime")}
            return rest, st, times
        for x, y in zip(map(apart, ga.seen), map(apart, here.seen)):
            self.assertEqual(x[:2], y[:2])
            self.assertLess(max(abs(p - q) for p, q in zip(x[2], y[2])), 100)
        self.assertEqual(len(ga.seen), len(here.seen))
        for s in (here, ga, gb):
            s.close()
        # no such game: no node answers, the store says (1 s)
        self.assertEqual(Stream(n[edge].port, "/api/bot/game/stream/nosuch",
                                a.api).status, 404)

    @unittest.skipUnless(CLUSTER, "a cluster's nodes")
    def test_game_stream_on_another_node_outlives_a_handover(self):
        """The game's host stops (SIGTERM: it hands the game over to
        another node): the streams of both players, on the other two
        nodes, go on with the new host's state, then its moves."""
        srv, a, b, gid, host, (edge, third) = self.hosted_game()
        n = srv.nodes
        ga = Stream(n[edge].port, "/api/bot/game/stream/" + gid, a.api)
        gb = Stream(n[third].port, "/api/board/game/stream/" + gid, b.api)
        self.assertEqual((ga.line()["type"], gb.line()["type"]),
                         ("gameFull", "gameFull"))
        self.assertEqual(post(n[edge].port, "/api/bot/game/%s/move/e2e4"
                              % gid, a.api), (200, {"ok": True}))
        for s in (ga, gb):
            self.assertEqual(s.until("gameState")["moves"], "e2e4")
        self.assertEqual(n[host].terminate(), 0)
        wait_until(lambda: srv.host_of(gid) in (edge, third),
                   "the game handed over")
        self.assertEqual(post(n[third].port, "/api/board/game/%s/move/"
                              "e7e5" % gid, b.api), (200, {"ok": True}))
        for s in (ga, gb):
            st = s.until("gameState")
            while st["moves"] != "e2e4 e7e5":  # (the new host's state)
                self.assertEqual(st["moves"], "e2e4")
                st = s.until("gameState")
            self.assertEqual(st["status"], "started")
        for s in (ga, gb):
            s.close()

    @unittest.skipUnless(CLUSTER, "a cluster's nodes")
    def test_a_post_its_host_does_not_answer_is_504(self):
        """The game's host paused (SIGSTOP): a POST on another node gets
        its 504 at the 5 s deadline (PROTOCOL.md), an answer given
        later, not a connection closed under it (libwebsockets has limits
        of its own on a request it has not answered)."""
        srv, a, b, gid, host, (edge, _) = self.hosted_game()
        n = srv.nodes
        for c, uci in ((a, "e2e4"), (b, "e7e5")):  # (stored: the game's row)
            self.assertEqual(post(n[edge].port, "/api/bot/game/%s/move/%s"
                                  % (gid, uci), c.api), (200, {"ok": True}))
        n[host].proc.send_signal(signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            got = post(n[edge].port, "/api/bot/game/%s/move/g1f3" % gid,
                       a.api)
            took = time.monotonic() - t0
        finally:
            n[host].proc.send_signal(signal.SIGCONT)
        self.assertEqual(got, (504, {"error": "The node that hosts the "
                                     "game did not answer in time"}))
        self.assertGreater(took, 4.5)

    @not_in_cluster("one node's keep-alive timer: 7.5 s of test time, once is enough")
    def test_keepalive_line_every_7_s(self):
        """A silent stream gets an empty line at its opening and after
        7 s of silence, and stays open past lws's own timeouts (it ended
        such a stream after 7 s): 7.5 s of test time."""
        srv = self.server()
        a, b = self.account(srv, "alicebot"), self.account(srv, "bobbot")
        s = Stream(srv.port, "/api/stream/event", a.api)
        t0 = time.monotonic()
        self.assertIsNone(s.line(keepalive=True))  # at the opening
        self.assertIsNone(s.line(keepalive=True))  # after 7 s
        self.assertGreater(time.monotonic() - t0, 6.5)
        time.sleep(0.5)
        b.send({"t": "challenge", "to": "alicebot", "clock": BLITZ})
        self.assertEqual(s.until("challenge")["challenge"]["direction"],
                         "in")
        s.close()
