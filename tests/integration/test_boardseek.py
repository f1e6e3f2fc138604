"""POST /api/board/seek, a revoked token's streams, and the streams of
games only in the store (PROTOCOL.md, "The lichess Bot and Board API"),
spoken in raw HTTP/1.1 from lichess's documentation (the NDJSON reader
is test_botapi's, which shares no code with the server). In a cluster
(integration-cluster) every test but the restart's runs too: a board
seek is the cluster's lobby's, in Redis (docs/cluster.md, "The Bot and
Board API in a cluster")."""
import json
import socket
import subprocess
import time

from harness import (CLUSTER, SERVER, FreshServerTest, not_in_cluster,
                     sqlite_only)
from test_botapi import PASSWORD, Stream, post

SEEK = "/api/board/seek"


class SeekStream(Stream):
    """A POST whose answer is read as Stream reads a GET's: the seek's
    NDJSON stream, or its JSON answer (body())."""

    def __init__(self, port, token, form):
        body = form.encode()
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(
            ("POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
             "Content-Type: application/x-www-form-urlencoded\r\n"
             "Content-Length: %d\r\n\r\n" % (SEEK, token, len(body))
             ).encode() + body)
        self.buf, self.data, self.eof = b"", b"", False
        head = self._until(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {k.lower(): v.strip() for k, v in
                        (x.split(":", 1) for x in lines[1:] if x)}

    def body(self):
        n = int(self.headers["content-length"])
        while len(self.buf) < n:
            self._fill()
        return json.loads(self.buf[:n])

    def ended_within(self, seconds):
        """True when the stream's last chunk comes within seconds, its
        keep-alive lines read (ended's timeout starts again at each)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.sock.settimeout(left)
                self.line(keepalive=True)
        except EOFError:
            return True
        except socket.timeout:
            return False

    def ended(self, timeout=5):
        """True when the stream's last chunk comes within timeout (what
        it still sends before it read over)."""
        self.sock.settimeout(timeout)
        try:
            while True:
                self.line(keepalive=True)
        except EOFError:
            return True
        except socket.timeout:
            return False


class ApiTest(FreshServerTest):
    def server(self, config=None, **kw):
        return super().server(config, extra=["--registers-per-ip-per-min",
                                             "1000"] + kw.pop("extra", []),
                              **kw)

    def account(self, srv, username, scopes=("board:play",)):
        c = self.client(srv, name=username)
        c.request({"t": "register", "username": username,
                   "password": PASSWORD}, "registered")
        t = c.request({"t": "token_create", "scopes": list(scopes)},
                      "token_created")
        c.api, c.token_id, c.name = t["token"], t["token_id"], username
        return c

    def lobby(self, c):
        """The lobby's seeks as c sees them now."""
        c.send({"t": "lobby_watch"})
        seeks = c.expect("lobby")["seeks"]
        c.send({"t": "lobby_unwatch"})
        return seeks

    def lobby_until(self, c, pred, what):
        deadline = time.monotonic() + 10
        while True:
            seeks = self.lobby(c)
            if pred(seeks):
                return seeks
            self.assertLess(time.monotonic(), deadline, what)
            time.sleep(0.2)


class BoardSeekTest(ApiTest):
    def test_two_api_seeks_pair_and_a_browser_takes_one(self):
        srv = self.server()
        a, b = self.account(srv, "alice"), self.account(srv, "bob")
        ea = Stream(srv.port, "/api/stream/event", a.api)
        eb = Stream(srv.port, "/api/stream/event", b.api)
        sa = SeekStream(srv.port, a.api, "time=3&increment=2&color=white")
        self.assertEqual(sa.status, 200)
        self.assertEqual(sa.headers["content-type"], "application/x-ndjson")
        # a real lobby seek: a page sees it
        seeks = self.lobby_until(a, lambda s: len(s) == 1, "no seek shown")
        self.assertEqual(seeks[0]["player"]["name"], "alice")
        self.assertEqual(seeks[0]["clock"], {"type": "fischer",
                                             "initial_s": 180,
                                             "increment_s": 2})
        self.assertEqual(seeks[0]["color"], "white")
        # another API client's seek pairs it: both seeks' streams end,
        # the games start on the event streams
        sb = SeekStream(srv.port, b.api, "time=3&increment=2")
        self.assertEqual(sb.status, 200)
        self.assertTrue(sa.ended() and sb.ended())
        ga, gb = ea.until("gameStart")["game"], eb.until("gameStart")["game"]
        self.assertEqual(ga["gameId"], gb["gameId"])
        self.assertEqual((ga["color"], gb["color"]), ("white", "black"))
        self.lobby_until(a, lambda s: s == [], "a seek stayed")
        # a browser takes a seek of the API (0.5 minutes: 30 s)
        sa2 = SeekStream(srv.port, a.api, "time=0.5&increment=0")
        self.assertEqual(sa2.status, 200)
        guest = self.client(srv)
        sid = self.lobby_until(guest, lambda s: len(s) == 1,
                               "no seek")[0]["seek"]
        guest.send({"t": "accept", "seek": sid})
        gid = guest.expect("game_start")["game"]
        self.assertTrue(sa2.ended())
        self.assertEqual(ea.until("gameStart")["game"]["gameId"], gid)

    def test_closing_drops_the_seek_and_one_seek_an_account(self):
        srv = self.server()
        a = self.account(srv, "alice")
        s1 = SeekStream(srv.port, a.api, "time=5&increment=0")
        self.assertEqual(s1.status, 200)
        self.assertIsNone(s1.line(keepalive=True))  # lichess's empty line
        sid1 = self.lobby_until(a, lambda s: len(s) == 1, "none")[0]["seek"]
        # a second seek of the account replaces the first: its stream ends
        s2 = SeekStream(srv.port, a.api, "time=5&increment=0")
        self.assertEqual(s2.status, 200)
        self.assertTrue(s1.ended())
        seeks = self.lobby_until(a, lambda s: len(s) == 1 and
                                 s[0]["seek"] != sid1, "not replaced")
        self.assertEqual(len(seeks), 1)
        # the client closes its connection: the seek is gone
        s2.close()
        self.lobby_until(a, lambda s: s == [], "the seek stayed")

    def test_refusals(self):
        srv = self.server({"max_seeks_per_ip": 1})
        a, b = self.account(srv, "alice"), self.account(srv, "bob")
        bot = self.account(srv, "robot", scopes=("bot:play", "board:play"))
        self.assertEqual(post(srv.port, "/api/bot/account/upgrade",
                              bot.api), (200, {"ok": True}))
        for form, words in (
                ("time=3&increment=2&variant=chess960", "variant"),
                ("time=3", "time and increment"),
                ("time=3&increment=2&days=3", "days"),
                ("days=4", "days"),
                ("time=181&increment=0", "time"),
                ("time=0.33&increment=0", "time"),
                ("time=3&increment=2&color=green", "color"),
                ("time=3&increment=2&frob=1", "unknown field"),
                ("time=3&increment=2&rated=true&ratingRange=9-1",
                 "ratingRange")):
            s = SeekStream(srv.port, a.api, form)
            self.assertEqual(s.status, 400, form)
            self.assertIn(words, s.body()["error"], form)
        # the protocol's own checks: a clock it does not play
        s = SeekStream(srv.port, a.api, "time=3&increment=60")
        self.assertEqual(s.status, 400)
        s = SeekStream(srv.port, "lip_" + "x" * 20, "time=3&increment=2")
        self.assertEqual((s.status, s.body()), (401, {"error":
                                                      "No such token"}))
        only_bot = self.account(srv, "carol", scopes=("bot:play",))
        s = SeekStream(srv.port, only_bot.api, "time=3&increment=2")
        self.assertEqual((s.status, s.body()),
                         (403, {"error": "Missing scope: board:play"}))
        # a bot account seeks not (lichess's bots play challenges only)
        s = SeekStream(srv.port, bot.api, "time=3&increment=2")
        self.assertEqual(s.status, 400)
        self.assertIn("Bot API only", s.body()["error"])
        # the address's cap of open seeks (max_seeks_per_ip 1): another
        # account's seek from it is refused, and changes nothing
        held = SeekStream(srv.port, a.api, "time=3&increment=2")
        self.assertEqual(held.status, 200)
        s = SeekStream(srv.port, b.api, "time=4&increment=2")
        self.assertEqual(s.status, 400)
        self.assertIn("open seeks", s.body()["error"])
        seeks = self.lobby(a)
        self.assertEqual([x["player"]["name"] for x in seeks], ["alice"])
        self.assertFalse(held.ended(timeout=0.5))

    def test_two_players_on_two_nodes_pair(self):
        """Two Board API players seek through two nodes (in a cluster;
        the same server alone): each seek is the cluster's lobby's (in
        Redis, cluster/seeks.c, held by its stream's session as a
        WebSocket's by its connection), so a page on any node sees it and
        the second pairs the first; both seek streams end (the waiting
        one's node told of the pairing) and the game starts on both event
        streams. A stream its client closes drops its seek from every
        node's lobby; a seek cancelled from a page ends its stream."""
        srv = self.server()
        a, b = self.account(srv, "alice"), self.account(srv, "bob")
        pa, pb = ((srv.nodes[0].port, srv.nodes[1].port) if CLUSTER
                  else (srv.port, srv.port))
        ea = Stream(pa, "/api/stream/event", a.api)
        eb = Stream(pb, "/api/stream/event", b.api)
        sa = SeekStream(pa, a.api, "time=3&increment=2&color=white")
        self.assertEqual(sa.status, 200)
        seeks = self.lobby_until(b, lambda s: len(s) == 1, "no seek shown")
        self.assertEqual(seeks[0]["player"]["name"], "alice")
        sb = SeekStream(pb, b.api, "time=3&increment=2")
        self.assertEqual(sb.status, 200)
        self.assertTrue(sb.ended() and sa.ended())
        ga, gb = ea.until("gameStart")["game"], eb.until("gameStart")["game"]
        self.assertEqual(ga["gameId"], gb["gameId"])
        self.assertEqual((ga["color"], gb["color"]), ("white", "black"))
        self.lobby_until(a, lambda s: s == [], "a seek stayed")
        # closed by its client: gone from the lobby
        s2 = SeekStream(pb, b.api, "time=5&increment=0")
        self.assertEqual(s2.status, 200)
        self.lobby_until(a, lambda s: len(s) == 1, "no seek shown")
        s2.close()
        self.lobby_until(a, lambda s: s == [], "the seek stayed")
        # cancelled from a page of its player, on whichever node: its
        # stream ends (in a cluster within seconds: the stream's node
        # looks its seek up in Redis every 5 s)
        s3 = SeekStream(pb, b.api, "time=5&increment=0")
        self.assertEqual(s3.status, 200)
        self.lobby_until(a, lambda s: len(s) == 1, "no seek shown")
        b.request({"t": "cancel_seek"}, "seek_cancelled")
        self.assertTrue(s3.ended_within(10))

    def test_a_block_keeps_two_api_seeks_apart(self):
        srv = self.server()
        a, b = self.account(srv, "alice"), self.account(srv, "bob")
        a.request({"t": "block", "to": "bob"}, "blocks")
        sa = SeekStream(srv.port, a.api, "time=3&increment=2")
        sb = SeekStream(srv.port, b.api, "time=3&increment=2")
        self.assertEqual((sa.status, sb.status), (200, 200))
        guest = self.client(srv)
        self.lobby_until(guest, lambda s: len(s) == 2, "paired, or none")
        self.assertFalse(sa.ended(timeout=0.5) or sb.ended(timeout=0.5))

    def test_correspondence_seek(self):
        srv = self.server()
        a = self.account(srv, "alice")
        ea = Stream(srv.port, "/api/stream/event", a.api)
        s = SeekStream(srv.port, a.api, "days=3&color=black")
        self.assertEqual(s.status, 200)
        sid = s.body()["id"]
        s.close()
        seeks = self.lobby_until(a, lambda x: len(x) == 1, "none")
        self.assertEqual(seeks[0]["seek"], sid)
        self.assertEqual(seeks[0]["clock"], {"type": "per_move",
                                             "per_move_s": 3 * 86400})
        guest = self.client(srv)
        guest.send({"t": "accept", "seek": sid})
        gid = guest.expect("game_start")["game"]
        g = ea.until("gameStart")["game"]
        self.assertEqual((g["gameId"], g["color"], g["speed"]),
                         (gid, "black", "correspondence"))


class RevokeTest(ApiTest):
    def streams(self, srv, a, b):
        """a's event stream, game stream and board seek."""
        ev = Stream(srv.port, "/api/stream/event", a.api)
        a.send({"t": "invite", "clock": {"type": "fischer", "initial_s": 180,
                                         "increment_s": 2}})
        gid = a.expect("invited")["game"]
        b.send({"t": "join", "game": gid})
        a.expect("game_start")
        game = Stream(srv.port, "/api/board/game/stream/" + gid, a.api)
        self.assertEqual(game.line()["type"], "gameFull")
        seek = SeekStream(srv.port, a.api, "time=5&increment=3")
        self.assertEqual((ev.status, seek.status), (200, 200))
        return ev, game, seek

    def assert_all_end(self, streams, within):
        t0 = time.monotonic()
        for i, s in enumerate(streams):
            self.assertTrue(SeekStream.ended(s, timeout=within), i)
        return time.monotonic() - t0

    def test_revoked_over_the_protocol_ends_its_streams_at_once(self):
        srv = self.server()
        a, b = self.account(srv, "alice"), self.account(srv, "bob")
        other = a.request({"t": "token_create", "scopes": ["board:play"]},
                          "token_created")["token"]
        kept = Stream(srv.port, "/api/stream/event", other)
        ev, game, seek = self.streams(srv, a, b)
        a.request({"t": "token_revoke", "token_id": a.token_id},
                  "token_revoked")
        self.assert_all_end((ev, game, seek), within=1)
        # by the revocation itself, not the re-read of a second later
        self.assertIn("event=api_token_streams_closed streams=3 "
                      "why=revoked", srv.log_text())
        self.lobby_until(b, lambda s: s == [], "the seek stayed")
        # another token of the account keeps its stream
        self.assertFalse(SeekStream.ended(kept, timeout=0.5))

    @sqlite_only("--db names the SQLite file")
    def test_revoked_from_the_command_line_ends_them_within_a_second(self):
        srv = self.server()
        a, b = self.account(srv, "alice"), self.account(srv, "bob")
        ev, game, seek = self.streams(srv, a, b)
        p = subprocess.run([SERVER, "token", "revoke", a.token_id,
                            "--db", srv.db], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        # (a re-read a second: the slack is for a loaded machine)
        took = self.assert_all_end((ev, game, seek), within=5)
        self.assertLess(took, 3)
        self.assertIn("event=api_token_streams_closed streams=3 "
                      "why=reread", srv.log_text())


class StoredGameStreamTest(ApiTest):
    @not_in_cluster("restarts its one server (srv.start)")
    def test_a_game_finished_before_a_restart(self):
        srv = self.server()
        a, b = self.account(srv, "alice", scopes=("board:play", "bot:play")), \
            self.account(srv, "bob")
        a.send({"t": "invite", "color": "white",
                "clock": {"type": "fischer", "initial_s": 180,
                          "increment_s": 2}})
        gid = a.expect("invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (a, b):
            c.expect("game_start")
        for i, uci in enumerate(("e2e4", "e7e5")):
            self.assertEqual(post(srv.port, "/api/board/game/%s/move/%s"
                                  % (gid, uci), (a, b)[i].api),
                             (200, {"ok": True}))
        self.assertEqual(post(srv.port, "/api/board/game/%s/resign" % gid,
                              b.api), (200, {"ok": True}))
        self.assertEqual(srv.terminate(), 0)
        srv.start()
        for path in ("/api/board/game/stream/", "/api/bot/game/stream/"):
            s = Stream(srv.port, path + gid, a.api)
            self.assertEqual(s.status, 200)
            full = s.line()
            self.assertEqual((full["type"], full["id"]), ("gameFull", gid))
            self.assertEqual(full["white"]["name"], "alice")
            st = full["state"]
            self.assertEqual((st["status"], st["winner"], st["moves"]),
                             ("resign", "white", "e2e4 e7e5"))
            self.assertTrue(SeekStream.ended(s))
        # not the account's game, and no game at all: 404
        c = self.account(srv, "carol")
        for who, g in ((c, gid), (a, "nosuchgame")):
            s = Stream(srv.port, "/api/board/game/stream/" + g, who.api)
            self.assertEqual(s.status, 404)
