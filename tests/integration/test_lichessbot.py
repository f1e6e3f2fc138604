"""What the official lichess-bot client (lichess-bot-devs/lichess-bot)
calls and reads, checked call by call (docs/bots.md's table is the same
list): the sequence it runs at its start and through a game between two
such bots, each request sent as its `requests` session sends it (a token
test body with no Content-Type, a challenge as a JSON body, a decline as
a form, POSTs with no body) over one kept-alive connection, and each
answer and NDJSON line checked for exactly the fields it reads, with
their types. Written here from that reading, sharing no code with the
server or with lichess-bot: a change that breaks lichess-bot breaks this
test.

A schema below is a dict of field -> type (a tuple: any of them; a dict:
a nested object); a key ending in '?' may be missing, as lichess-bot
reads it with .get."""
import http.client
import json
import urllib.parse

from harness import FreshServerTest, wait_until

PASSWORD = "correct horse battery"
UA = "lichess-bot/2025.3.31.1 user:?"
NoneType = type(None)

# ---- what lichess-bot reads (lib/lichess.py, lib/lichess_bot.py,
# lib/model.py, lib/matchmaking.py, lib/engine_wrapper.py,
# lib/conversation.py) -------------------------------------------------------

TOKEN_INFO = {"scopes": str}  # Lichess.__init__: "bot:play" in scopes
ACCOUNT = {"username": str, "id": str, "perfs": dict, "title?": str}
PLAYING = {"nowPlaying": list}
PLAYING_GAME = {"gameId": str, "speed": str, "isMyTurn": bool,
                "secondsLeft?": int, "opponent": {"username": str}}
ONLINE_BOT = {"username": str, "perfs": dict}
PERF = {"games?": int, "rating?": int}
USER_STATUS = {"online?": bool}
PLAYER = {"name": str, "title?": (str, NoneType), "rating?": (int, NoneType),
          "provisional?": (bool, NoneType), "aiLevel?": (int, NoneType)}
CHALLENGE = {"id": str, "rated": bool, "variant": {"key": str},
             "perf": {"name": str}, "speed": str,
             "timeControl": {"increment?": int, "limit?": int,
                             "daysPerTurn?": int},
             "challenger": PLAYER, "destUser": PLAYER, "color": str,
             "finalColor": str, "initialFen?": str}
DECLINED = dict(CHALLENGE, declineReason=str, declineReasonKey=str)
GAME_EVENT = {"id": str, "isMyTurn": bool, "secondsLeft?": int}
STATE = {"type": str, "moves": str, "wtime": int, "btime": int,
         "winc": int, "binc": int, "status": str, "winner?": str,
         "wdraw?": bool, "bdraw?": bool, "wtakeback?": bool,
         "btakeback?": bool}
GAME_FULL = {"id": str, "speed": str, "clock?": ({"initial": int,
                                                  "increment": int},
                                                 NoneType),
             "perf": {"name": str}, "variant": {"name": str}, "rated": bool,
             "white": PLAYER, "black": PLAYER, "initialFen": str,
             "state": STATE, "createdAt": int}
CHAT_LINE = {"room": str, "username": str, "text": str}
# Challenge's decline reasons lichess-bot knows (matchmaking's
# decline_details): a key it does not know only logs a warning
DECLINE_KEYS = {"generic", "later", "nobot", "toofast", "tooslow",
                "timecontrol", "rated", "casual", "standard", "variant"}


class Lichess:
    """The calls lichess-bot's Lichess class makes, sent as its requests
    session sends them: one kept-alive connection, its headers; an answer
    >= 400 raises (raise_for_status) unless asked not to."""

    def __init__(self, test, port, token):
        self.test, self.port, self.token = test, port, token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)

    def headers(self):
        return {"Authorization": "Bearer " + self.token, "User-Agent": UA,
                "Accept-Encoding": "gzip, deflate", "Accept": "*/*",
                "Connection": "keep-alive"}

    def request(self, method, path, body=None, ctype=None, check=True):
        h = self.headers()
        if ctype:
            h["Content-Type"] = ctype
        if method == "POST" and body is None:
            body = b""  # (requests: Content-Length: 0)
        self.conn.request(method, path, body=body, headers=h)
        resp = self.conn.getresponse()
        data = resp.read()
        self.test.assertNotEqual(resp.getheader("Content-Encoding"), "gzip")
        if check:
            self.test.assertLess(resp.status, 400, (path, data))
        return resp.status, data

    def get_json(self, path):
        return json.loads(self.request("GET", path)[1])

    def post(self, path, body=None, ctype=None, check=True):
        """api_post: its answer is always read as JSON (.json())."""
        status, data = self.request("POST", path, body, ctype, check)
        return status, json.loads(data)

    def challenge(self, username, **fields):
        """matchmaking's create_challenge: a JSON body (requests' json=),
        its answer read whatever its status."""
        body = dict({"rated": False, "variant": "standard",
                     "clock.limit": 60, "clock.increment": 1}, **fields)
        return self.post("/api/challenge/" + username,
                         json.dumps(body).encode(), "application/json",
                         check=False)

    def stream(self, path):
        """get_event_stream / get_game_stream: a connection of its own,
        read line by line (iter_lines), 15 s of read timeout."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                          timeout=15)
        conn.request("GET", path, headers=self.headers())
        resp = conn.getresponse()
        self.test.assertEqual(resp.status, 200, path)
        return Lines(self.test, conn, resp)


class Lines:
    def __init__(self, test, conn, resp):
        self.test, self.conn, self.resp = test, conn, resp

    def next(self):
        """The next line as JSON, {} for a keep-alive (an empty line, as
        lichess-bot's 'ping')."""
        line = self.resp.readline()
        if not line:
            raise EOFError
        text = line.strip()
        return json.loads(text) if text else {}

    def until(self, kind):
        while True:
            m = self.next()
            if m.get("type") == kind:
                return m

    def close(self):
        self.conn.close()


class LichessBotTest(FreshServerTest):
    # two bots on one address: its /api/ bucket (http_rate_per_s) would
    # refuse their requests together; one bot's fit the default
    TWO_BOTS = {"http_rate_per_s": 1000, "http_burst": 1000}

    def check(self, obj, schema, where):
        """obj holds schema's fields with their types (recursively)."""
        self.assertIsInstance(obj, dict, where)
        for key, kind in schema.items():
            optional = key.endswith("?")
            key = key.rstrip("?")
            if key not in obj:
                self.assertTrue(optional, "%s: no %r in %s" % (where, key,
                                                                obj))
                continue
            value, at = obj[key], "%s.%s" % (where, key)
            kinds = kind if isinstance(kind, tuple) else (kind,)
            if isinstance(value, dict) and any(isinstance(k, dict)
                                               for k in kinds):
                self.check(value, next(k for k in kinds
                                       if isinstance(k, dict)), at)
                continue
            types = tuple(k for k in kinds if isinstance(k, type))
            self.assertIsInstance(value, types, at)
            if bool in types or int not in types:
                continue
            self.assertNotIsInstance(value, bool, at)  # (an int, not bool)

    def bot(self, srv, name):
        """An account with a bot:play token, upgraded as `lichess-bot -u`
        upgrades it; its start checked as lichess-bot checks it."""
        c = self.client(srv, name=name)
        c.request({"t": "register", "username": name,
                   "password": PASSWORD}, "registered")
        token = c.request({"t": "token_create", "scopes": ["bot:play"]},
                          "token_created")["token"]
        c.ws.sock.close()  # (the bot is the API alone from now on)
        li = Lichess(self, srv.port, token)
        # Lichess.__init__: the token test, its body the token alone
        _, info = li.post("/api/token/test", token.encode())
        self.check(info[token], TOKEN_INFO, "token_test")
        self.assertIn("bot:play", info[token]["scopes"].split(","))
        # start_lichess_bot: the profile, then the upgrade (-u)
        profile = li.get_json("/api/account")
        self.check(profile, ACCOUNT, "account")
        self.assertNotIn("title", profile)
        li.post("/api/bot/account/upgrade")
        profile = li.get_json("/api/account")
        self.check(profile, ACCOUNT, "account")
        self.assertEqual(profile["title"], "BOT")
        li.profile = profile
        # lichess_bot_main: the ongoing games, then the event stream
        self.check(li.get_json("/api/account/playing"), PLAYING, "playing")
        li.events = li.stream("/api/stream/event")
        return li

    def playing(self, li):
        got = li.get_json("/api/account/playing")
        self.check(got, PLAYING, "playing")
        for g in got["nowPlaying"]:
            self.check(g, PLAYING_GAME, "nowPlaying[]")
        return got["nowPlaying"]

    def game(self, li, gid):
        """play_game's opening: the game stream's gameFull, as model.Game
        reads it, and its state as the first update."""
        s = li.stream("/api/bot/game/stream/" + gid)
        full = s.next()
        self.assertEqual(full["type"], "gameFull")
        self.check(full, GAME_FULL, "gameFull")
        self.assertEqual(full["state"]["type"], "gameState")
        self.assertEqual(full["id"], gid)
        return s, full

    def state(self, s, moves):
        """The gameState whose moves are moves (the lines before it
        checked too), as play_game reads each."""
        while True:
            m = s.next()
            if not m:
                continue
            if m["type"] == "chatLine":
                self.check(m, CHAT_LINE, "chatLine")
                continue
            self.assertEqual(m["type"], "gameState")
            self.check(m, STATE, "gameState")
            if m["moves"] == moves:
                return m

    def test_lichess_bot_start_challenge_and_game(self):
        srv = self.server(self.TWO_BOTS,
                          extra=["--registers-per-ip-per-min", "1000"])
        a, b = self.bot(srv, "lb_alpha"), self.bot(srv, "lb_beta")
        # matchmaking: the online bots, a public profile, the challenge
        # (a JSON body), its cancel after 25 s unanswered
        def online():
            text = a.request("GET", "/api/bot/online")[1].decode()
            return [json.loads(x) for x in text.split("\n") if x]
        # (listed once the bot's facts, read when its stream opened, are
        # back: milliseconds; matchmaking asks minutes later)
        wait_until(lambda: len(online()) == 2, "both bots online")
        bots = online()
        self.assertEqual({x["username"] for x in bots},
                         {"lb_alpha", "lb_beta"})
        for x in bots:
            self.check(x, ONLINE_BOT, "bot/online")
            for perf in x["perfs"].values():
                self.check(perf, PERF, "bot/online perfs")
        self.assertIsInstance(a.get_json("/api/user/lb_beta"), dict)
        _, made = a.challenge("lb_beta")
        self.assertIsInstance(made.get("id"), str, made)
        got = b.events.until("challenge")["challenge"]
        self.check(got, CHALLENGE, "challenge event")
        self.assertEqual((got["color"], got["challenger"]["name"],
                          got["challenger"]["title"]),
                         ("random", "lb_alpha", "BOT"))
        self.assertEqual(a.events.until("challenge")["challenge"]["id"],
                         made["id"])
        status, _ = a.post("/api/challenge/%s/cancel" % made["id"],
                           check=False)
        self.assertEqual(status, 200)
        # handle_challenge: its ongoing games, then a decline (a form,
        # raise_for_status off) which the challenger's matchmaking reads
        _, made = a.challenge("lb_beta")
        got = b.events.until("challenge")["challenge"]
        self.check(got, CHALLENGE, "challenge event")
        self.playing(b)
        status, _ = b.post("/api/challenge/%s/decline" % got["id"],
                           b"reason=tooFast",
                           "application/x-www-form-urlencoded", check=False)
        self.assertEqual(status, 200)
        declined = a.events.until("challengeDeclined")["challenge"]
        self.check(declined, DECLINED, "challengeDeclined")
        self.assertIn(declined["declineReasonKey"].lower(), DECLINE_KEYS)
        # another, accepted: gameStart on both event streams
        _, made = a.challenge("lb_beta")
        got = b.events.until("challenge")["challenge"]
        self.assertEqual(got["id"], made["id"])
        b.post("/api/challenge/%s/accept" % got["id"])
        for li in (a, b):
            start = li.events.until("gameStart")
            self.check(start["game"], GAME_EVENT, "gameStart.game")
            self.assertEqual(start["game"]["id"], made["id"])
        gid = made["id"]
        self.assertEqual({g["gameId"] for g in self.playing(a)}, {gid})
        # play_game: both game streams, the greetings (player and
        # spectator rooms), White's first move
        sa, fa = self.game(a, gid)
        sb, fb = self.game(b, gid)
        self.assertEqual(fa["clock"], {"initial": 60000, "increment": 1000})
        white = a if made["finalColor"] == "white" else b  # (a's side)
        black = b if white is a else a
        sw, sbk = (sa, sb) if white is a else (sb, sa)
        full = fa if white is a else fb
        self.assertEqual(full["white"]["name"].lower(),
                         white.profile["username"].lower())
        self.assertEqual(full["white"]["title"], "BOT")
        self.assertEqual(full["state"]["status"], "started")
        base = "/api/bot/game/%s/" % gid
        spectator = self.client(srv)
        spectator.request({"t": "watch", "game": gid}, "state")
        for room in ("player", "spectator"):
            white.post(base + "chat", urllib.parse.urlencode(
                {"room": room, "text": "Hi! I'm a bot."}).encode(),
                "application/x-www-form-urlencoded")
        line = sbk.next()
        while line.get("type") != "chatLine":
            line = sbk.next()
        self.check(line, CHAT_LINE, "chatLine")
        self.assertEqual((line["room"], line["text"]),
                         ("player", "Hi! I'm a bot."))
        # the spectators hear the bot's greeting (its opponent reads
        # their room once the game is over: PROTOCOL.md "Chat")
        said = spectator.expect("chat", game=gid)
        self.assertEqual((said["room"], said["name"], said["text"]),
                         ("spectator", full["white"]["name"],
                          "Hi! I'm a bot."))
        moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
        for i, uci in enumerate(moves):
            mover, stream = (white, sw) if i % 2 == 0 else (black, sbk)
            mover.post(base + "move/%s?offeringDraw=false" % uci)
            self.state(stream, " ".join(moves[:i + 1]))
        # a draw offered with a move: the move's own gameState shows it
        # to the opponent (check_for_draw_offer), whose move offering
        # too agrees it
        white.post(base + "move/f1c4?offeringDraw=true")
        moves.append("f1c4")
        st = self.state(sbk, " ".join(moves))
        self.assertIs(st.get("wdraw"), True)
        black.post(base + "move/g8f6?offeringDraw=true")
        st = self.state(sw, " ".join(moves))
        while st["status"] == "started":
            st = self.state(sw, " ".join(moves))
        self.assertEqual(st["status"], "draw")
        self.assertNotIn("winner", st)
        # the goodbyes after the end, then the PGN record
        for room in ("player", "spectator"):
            white.post(base + "chat", urllib.parse.urlencode(
                {"room": room, "text": "Good game!"}).encode(),
                "application/x-www-form-urlencoded")
        status, pgn = white.request("GET", "/game/export/" + gid)
        self.assertIn(b'[White "%s"]' % full["white"]["name"].encode(), pgn)
        self.assertIn(b'[Result "1/2-1/2"]', pgn)
        # check_online_status, once an hour
        status_list = json.loads(white.request(
            "GET", "/api/users/status?ids=" + white.profile["id"])[1])
        self.check(status_list[0], USER_STATUS, "users/status")
        self.assertIs(status_list[0].get("online"), True)
        self.assertEqual(self.playing(white), [])
        for li in (a, b):
            li.events.close()
        for s in (sa, sb):
            s.close()

    def test_chat_never_costs_lichess_bot_its_move(self):
        """lichess-bot greets both rooms before its first move and takes
        an error answer for a failed turn: a flood of lines (past
        chat_burst, so muted) is still answered 200 {"ok":true}, the
        lines past the limit dropped; the move after it is played."""
        srv = self.server(self.TWO_BOTS,
                          extra=["--registers-per-ip-per-min", "1000"])
        a, b = self.bot(srv, "lb_gamma"), self.bot(srv, "lb_delta")
        _, made = a.challenge("lb_delta", color="white")
        b.events.until("challenge")
        b.post("/api/challenge/%s/accept" % made["id"])
        gid = made["id"]
        sa, _ = self.game(a, gid)
        base = "/api/bot/game/%s/" % gid
        for i in range(12):
            room = ("player", "spectator")[i % 2]
            self.assertEqual(a.post(base + "chat", urllib.parse.urlencode(
                {"room": room, "text": "line %d" % i}).encode(),
                "application/x-www-form-urlencoded"), (200, {"ok": True}))
        a.post(base + "move/e2e4?offeringDraw=false")
        self.state(sa, "e2e4")
        # a line that is not lichess's shape is still an error
        status, body = a.post(base + "chat", b"room=player&text=",
                              "application/x-www-form-urlencoded",
                              check=False)
        self.assertEqual(status, 400)
        self.assertIn("error", body)
        for li in (a, b):
            li.events.close()
        sa.close()

    def test_a_refused_post_is_answered_whole(self):
        """Past its address's bucket a POST with a body (a move, a
        challenge's JSON) is answered 429 {"error":"rate_limited"} whole,
        its body read first: lichess-bot reads 429 to wait 60 s (a cut
        answer is a network error it retries at once, ten a second)."""
        srv = self.server({"http_rate_per_s": 1, "http_burst": 3},
                          extra=["--registers-per-ip-per-min", "1000"])
        c = self.client(srv, name="lb_eps")
        c.request({"t": "register", "username": "lb_eps",
                   "password": PASSWORD}, "registered")
        li = Lichess(self, srv.port, c.request(
            {"t": "token_create", "scopes": ["bot:play"]},
            "token_created")["token"])
        seen = []
        for _ in range(5):
            status, got = li.challenge("nobody_here")
            seen.append(status)
            if status == 429:
                self.assertEqual(got, {"error": "rate_limited"})
        self.assertEqual(seen[0], 404)  # (no such user)
        self.assertEqual(seen[-1], 429)
        # a POST with no body (Content-Length: 0, as requests sends it),
        # and a GET, on the same connection
        self.assertEqual(li.post("/api/bot/account/upgrade", check=False),
                         (429, {"error": "rate_limited"}))
        status, text = li.request("GET", "/api/account", check=False)
        self.assertEqual((status, json.loads(text)),
                         (429, {"error": "rate_limited"}))
