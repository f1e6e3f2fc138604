"""lichess's plain API endpoints (PROTOCOL.md, "HTTP API: lichess's
endpoints"), spoken here in raw HTTP/1.1 over a socket, as written from
lichess's documentation (lichess-org/api): POST /api/challenge/{username}
and /api/challenge/{id}/accept|decline|cancel (the same challenges the
pages see), GET /api/account/playing, /api/users/status, /api/user/{name},
/game/export/{id} and /api/games/user/{username}; their errors (401, 403,
404, 400, 405) and limits (429). In a cluster (the integration-cluster
suite) every test runs too, the pages of its players on different nodes
and its HTTP calls through the first; test_across_nodes sends them
through every node (docs/cluster.md, "Challenges across nodes"), and
GET /api/challenge lists every node's."""
import json
import socket
import time
import urllib.parse

from harness import CLUSTER, FreshServerTest, not_in_cluster, wait_until

PASSWORD = "correct horse battery"
PLAY = "challenge:write"


def exchange(server, head, body=b"", source=None, timeout=10):
    """(status, header fields, body bytes) of one request written by hand
    (HTTP/1.1, Connection: close): head's lines, then body; from the
    loopback address source when given."""
    head = head + ["Host: 127.0.0.1", "Connection: close"]
    if head[0].startswith("POST "):
        head.append("Content-Length: %d" % len(body))
    s = socket.create_connection(("127.0.0.1", server.port), timeout=timeout,
                                 source_address=(source, 0) if source
                                 else None)
    s.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    header, _, content = data.partition(b"\r\n\r\n")
    lines = header.decode().split("\r\n")
    fields = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        fields[k.strip().lower()] = v.strip()
    if fields.get("transfer-encoding") == "chunked":
        out, rest = b"", content
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            n = int(size, 16)
            if n == 0:
                break
            out, rest = out + rest[:n], rest[n + 2:]
        content = out
    return int(lines[0].split()[1]), fields, content


def raw(server, method, path, token=None, form=None):
    """(status, content type, body bytes) of one request; a form body
    urlencoded."""
    head, body = ["%s %s HTTP/1.1" % (method, path)], b""
    if token:
        head.append("Authorization: Bearer " + token)
    if form is not None:
        body = (form if isinstance(form, str)
                else urllib.parse.urlencode(form)).encode()
        head.append("Content-Type: application/x-www-form-urlencoded")
    status, fields, content = exchange(server, head, body)
    return status, fields.get("content-type", ""), content


def post_json(server, path, token, obj):
    """(status, JSON) of a POST with a JSON body, as lichess-bot sends its
    challenges (requests' json=)."""
    status, _, content = exchange(
        server, ["POST %s HTTP/1.1" % path, "Authorization: Bearer " + token,
                 "Content-Type: application/json"], json.dumps(obj).encode())
    return status, json.loads(content)


def call(server, method, path, token=None, form=None):
    """(status, JSON) of a request."""
    status, _, body = raw(server, method, path, token, form)
    return status, json.loads(body) if body else None


BLITZ = {"clock.limit": "180", "clock.increment": "2"}


class LichessApiTest(FreshServerTest):
    CONFIG = {"http_rate_per_s": 1000, "http_burst": 1000}

    def account(self, srv, username, scopes=(PLAY,)):
        """A registered page of username's and a token of its."""
        c = self.client(srv, name=username)
        c.request({"t": "register", "username": username,
                   "password": PASSWORD}, "registered")
        c.api = c.request({"t": "token_create", "scopes": list(scopes)},
                          "token_created")["token"]
        return c

    def test_challenge_accepted_over_http_is_the_pages_game(self):
        srv = self.server(config=self.CONFIG)
        a = self.account(srv, "Api_Alice")
        b = self.account(srv, "api_bob", ("bot:play",))
        form = dict(BLITZ, color="white", rated="false")
        status, ch = call(srv, "POST", "/api/challenge/API_BOB", a.api, form)
        self.assertEqual(status, 200, ch)
        self.assertEqual((ch["status"], ch["color"], ch["rated"],
                          ch["direction"], ch["speed"]),
                         ("created", "white", False, "out", "blitz"))
        self.assertEqual(ch["challenger"]["name"], "Api_Alice")
        self.assertEqual(ch["destUser"]["name"], "api_bob")
        self.assertEqual(ch["timeControl"], {"type": "clock", "limit": 180,
                                             "increment": 2, "show": "3+2"})
        self.assertEqual(ch["variant"]["key"], "standard")
        # the same challenge on both players' pages
        for c in (a, b):
            got = c.expect("challenge")["challenge"]
            self.assertEqual((got["id"], got["status"]), (ch["id"], "created"))
        # the challenger cannot accept it, nor anyone but its player
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/accept"
                              % ch["id"], a.api),
                         (404, {"error": "Not found."}))
        status, ok = call(srv, "POST", "/api/challenge/%s/accept" % ch["id"],
                          b.api)
        self.assertEqual((status, ok), (200, {"ok": True}))
        gid = a.expect("challenge", timeout=5)["challenge"]["game"]
        # the game has its challenge's id, as lichess's (lichess-bot's
        # matchmaking knows its game by it)
        self.assertEqual(gid, ch["id"])
        self.assertEqual(b.expect("challenge")["challenge"]["status"],
                         "accepted")
        start = a.expect("game_start", game=gid)
        self.assertEqual(start["you"], "white")
        # gone once accepted
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/cancel"
                              % ch["id"], a.api)[0], 404)
        # nowPlaying, from each side
        a.move(gid, "e2e4", 0)
        a.expect("moved", game=gid, ply=1)
        status, playing = call(srv, "GET", "/api/account/playing", b.api)
        self.assertEqual(status, 200, playing)
        self.assertEqual(playing["nbMyTurn"], 1)
        g = playing["nowPlaying"][0]
        self.assertEqual((g["gameId"], g["color"], g["isMyTurn"],
                          g["lastMove"], g["hasMoved"], g["speed"]),
                         (gid, "black", True, "e2e4", False, "blitz"))
        self.assertEqual(g["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/"
                                   "RNBQKBNR b KQkq - 0 1")
        self.assertEqual(g["opponent"]["id"], "api_alice")
        self.assertEqual(g["opponent"]["username"], "Api_Alice")
        self.assertEqual(g["variant"]["key"], "standard")
        self.assertIsInstance(g["secondsLeft"], int)
        self.assertEqual(call(srv, "GET", "/api/account/playing?nb=1",
                              a.api)[1]["nbMyTurn"], 0)
        self.assertEqual(call(srv, "GET", "/api/account/playing?nb=51",
                              a.api), (400, {"error": "nb: 1-50"}))
        # users/status: both online and playing; the unknown left out
        status, users = call(srv, "GET", "/api/users/status?ids="
                             "api_alice,API_BOB,nobody_here,bad!name")
        self.assertEqual(status, 200)
        self.assertEqual(users, [
            {"id": "api_alice", "name": "Api_Alice", "online": True,
             "playing": True},
            {"id": "api_bob", "name": "api_bob", "online": True,
             "playing": True}])
        # the game ends; its PGN
        a.send({"t": "resign", "game": gid})
        a.expect("game_end", game=gid)
        status, kind, pgn = raw(srv, "GET", "/game/export/" + gid)
        self.assertEqual((status, kind), (200, "application/x-chess-pgn"))
        self.assertIn(b'[White "Api_Alice"]', pgn)
        self.assertIn(b"1. e4", pgn)

    def test_decline_and_cancel(self):
        srv = self.server(config=self.CONFIG)
        a = self.account(srv, "dec_alice")
        b = self.account(srv, "dec_bob", ("board:play",))
        for reason in ("tooFast", None):
            ch = call(srv, "POST", "/api/challenge/dec_bob", a.api, BLITZ)[1]
            a.expect("challenge")
            b.expect("challenge")
            # the challenger does not decline, nor the challenged cancel
            self.assertEqual(call(srv, "POST", "/api/challenge/%s/decline"
                                  % ch["id"], a.api)[0], 404)
            self.assertEqual(call(srv, "POST", "/api/challenge/%s/cancel"
                                  % ch["id"], b.api)[0], 404)
            self.assertEqual(call(srv, "POST", "/api/challenge/%s/decline"
                                  % ch["id"], b.api, {"reason": "rude"}),
                             (400, {"error": "reason: generic, later, "
                                    "tooFast, tooSlow, timeControl, rated, "
                                    "casual, standard, variant, noBot or "
                                    "onlyBot"}))
            form = {"reason": reason} if reason else {}
            self.assertEqual(call(srv, "POST", "/api/challenge/%s/decline"
                                  % ch["id"], b.api, form),
                             (200, {"ok": True}))
            for c in (a, b):
                got = c.expect("challenge")["challenge"]
                self.assertEqual((got["status"], got["decline_reason"]),
                                 ("declined", reason or "generic"))
        ch = call(srv, "POST", "/api/challenge/dec_bob", a.api, BLITZ)[1]
        b.expect("challenge")
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/cancel"
                              % ch["id"], a.api), (200, {"ok": True}))
        self.assertEqual(b.expect("challenge")["challenge"]["status"],
                         "canceled")

    def test_list_of_challenges_both_ways(self):
        """GET /api/challenge: the token's account's pending challenges,
        {"in":[...],"out":[...]}, each lichess's ChallengeJson as the
        event stream has it (its finalColor decided from the start, and
        the colour the game gives); a bad token 401, a token without
        challenge:read 403, and nothing listed once answered."""
        srv = self.server(config=self.CONFIG)
        a = self.account(srv, "list_alice", (PLAY, "challenge:read"))
        b = self.account(srv, "list_bob", (PLAY, "challenge:read"))
        c = self.account(srv, "list_carol")
        self.assertEqual(call(srv, "GET", "/api/challenge", a.api),
                         (200, {"in": [], "out": []}))
        ab = call(srv, "POST", "/api/challenge/list_bob", a.api, BLITZ)[1]
        ca = call(srv, "POST", "/api/challenge/list_alice", c.api,
                  dict(BLITZ, color="black"))[1]
        status, got = call(srv, "GET", "/api/challenge", a.api)
        self.assertEqual(status, 200)
        self.assertEqual([x["id"] for x in got["out"]], [ab["id"]])
        self.assertEqual([x["id"] for x in got["in"]], [ca["id"]])
        out, inn = got["out"][0], got["in"][0]
        self.assertEqual((out["direction"], out["status"], out["color"]),
                         ("out", "created", "random"))
        self.assertIn(out["finalColor"], ("white", "black"))
        self.assertEqual(out["finalColor"], ab["finalColor"])
        self.assertEqual((inn["direction"], inn["color"], inn["finalColor"]),
                         ("in", "black", "black"))
        self.assertEqual(inn["challenger"]["name"], "list_carol")
        self.assertEqual(inn["destUser"]["name"], "list_alice")
        self.assertEqual(inn["timeControl"], {"type": "clock", "limit": 180,
                                              "increment": 2, "show": "3+2"})
        self.assertEqual(call(srv, "GET", "/api/challenge", b.api)[1],
                         {"in": [dict(out, direction="in")], "out": []})
        # the errors
        self.assertEqual(call(srv, "GET", "/api/challenge", "lip_nosuch"),
                         (401, {"error": "No such token"}))
        self.assertEqual(call(srv, "GET", "/api/challenge"),
                         (401, {"error": "No such token"}))
        self.assertEqual(call(srv, "GET", "/api/challenge", c.api)[0], 403)
        self.assertEqual(call(srv, "POST", "/api/challenge", a.api)[0], 405)
        # accepted, the game gives the challenger its finalColor
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/accept"
                              % ab["id"], b.api), (200, {"ok": True}))
        start = a.expect("game_start", game=ab["id"], timeout=10)
        self.assertEqual(start["you"], ab["finalColor"])
        self.assertEqual(call(srv, "GET", "/api/challenge", b.api)[1],
                         {"in": [], "out": []})
        self.assertEqual(len(call(srv, "GET", "/api/challenge",
                                  a.api)[1]["in"]), 1)

    def test_a_block_holds_over_http(self):
        """A block refuses the API's challenges either way, and the accept
        of one made before it, as the page's do (PROTOCOL.md, "Blocks")."""
        srv = self.server(config=self.CONFIG)
        a = self.account(srv, "blk_alice")
        b = self.account(srv, "blk_bob")
        ch = call(srv, "POST", "/api/challenge/blk_alice", b.api, BLITZ)[1]
        a.expect("challenge")
        a.request({"t": "block", "to": "blk_bob"}, "blocks")
        for who, dest in ((a, "blk_bob"), (b, "blk_alice")):
            status, err = call(srv, "POST", "/api/challenge/" + dest,
                               who.api, BLITZ)
            self.assertEqual(status, 400, err)
            self.assertIn("cannot challenge", err["error"])
        status, err = call(srv, "POST", "/api/challenge/%s/accept"
                           % ch["id"], a.api)
        self.assertEqual(status, 400, err)
        a.request({"t": "unblock", "to": "blk_bob"}, "blocks")
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/accept"
                              % ch["id"], a.api), (200, {"ok": True}))

    def test_bad_challenges_change_nothing(self):
        srv = self.server(config=self.CONFIG)
        a = self.account(srv, "bad_alice")
        b = self.account(srv, "bad_bob")
        reader = self.account(srv, "bad_carol", ("challenge:read",))
        cases = [
            ({"clock.limit": "180"}, "clock.limit (0-10800) and "
             "clock.increment (0-60) both"),
            ({}, "clock.limit and clock.increment, or days"),
            (dict(BLITZ, variant="chess960"),
             "variant: only standard is played here"),
            (dict(BLITZ, color="green"), "color: random, white or black"),
            (dict(BLITZ, rated="yes"), "rated: true or false"),
            (dict(BLITZ, days="3"), "days: not with a clock"),
            (dict(BLITZ, colour="white"), "unknown field 'colour'"),
            (dict(BLITZ, rules="noAbort"), "rules: none is served here"),
            ('{"clock.limit": 60', "malformed JSON body: an object "
             "expected"),
            ('{"clock.limit": 60.5, "clock.increment": 0}',
             "fields are strings, integers or booleans"),
            ({"clock.limit": "x", "clock.increment": "1"},
             "clock.limit (0-10800) and clock.increment (0-60) both"),
            ("clock.limit=%zz", "malformed form body (or a field over 127 "
             "bytes)"),
            (dict(BLITZ, fen="8/8/8/8/8/8/8/K6k w - - 0 1"),
             "fen: only games from the start position are played here"),
        ]
        for form, words in cases:
            self.assertEqual(call(srv, "POST", "/api/challenge/bad_bob",
                                  a.api, form), (400, {"error": words}), form)
        # a JSON body, as lichess-bot's matchmaking posts
        status, ch = post_json(srv, "/api/challenge/bad_bob", a.api, {
            "rated": False, "clock.limit": 60, "clock.increment": 1,
            "variant": "standard", "color": "black", "days": None})
        self.assertEqual(status, 200, ch)
        self.assertEqual((ch["timeControl"]["show"], ch["color"],
                          ch["speed"]), ("1+1", "black", "bullet"))
        b.expect("challenge")
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/cancel"
                              % ch["id"], a.api), (200, {"ok": True}))
        b.expect("challenge")
        # days per move, a correspondence challenge
        status, ch = call(srv, "POST", "/api/challenge/bad_bob", a.api,
                          {"days": "3"})
        self.assertEqual((status, ch["timeControl"]),
                         (200, {"type": "correspondence", "daysPerTurn": 3}))
        self.assertEqual(ch["speed"], "correspondence")
        b.expect("challenge")
        # who, and with what token
        self.assertEqual(call(srv, "POST", "/api/challenge/nobody_at_all",
                              a.api, BLITZ), (404, {"error": "No such user"}))
        self.assertEqual(call(srv, "POST", "/api/challenge/bad_alice",
                              a.api, BLITZ),
                         (400, {"error": "you cannot challenge yourself"}))
        self.assertEqual(call(srv, "POST", "/api/challenge/bad_bob", None,
                              BLITZ), (401, {"error": "No such token"}))
        self.assertEqual(call(srv, "POST", "/api/challenge/bad_bob",
                              reader.api, BLITZ),
                         (403, {"error": "Missing scope"}))
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/accept"
                              % ch["id"], reader.api),
                         (403, {"error": "Missing scope"}))
        self.assertEqual(call(srv, "GET", "/api/challenge/bad_bob",
                              a.api)[0], 405)
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/eat"
                              % ch["id"], b.api)[0], 404)
        self.assertEqual(call(srv, "POST", "/api/challenge/nosuchid/accept",
                              b.api), (404, {"error": "Not found."}))
        # nothing else was made: bob has the one correspondence challenge
        r = b.request({"t": "challenges"}, "challenges")
        self.assertEqual([x["id"] for x in r["in"]], [ch["id"]])

    def test_challenges_are_capped_and_rate_limited(self):
        srv = self.server(config=dict(self.CONFIG, max_challenges_out=2))
        a = self.account(srv, "cap_alice")
        self.account(srv, "cap_bob")
        for _ in range(2):
            self.assertEqual(call(srv, "POST", "/api/challenge/cap_bob",
                                  a.api, BLITZ)[0], 200)
        status, err = call(srv, "POST", "/api/challenge/cap_bob", a.api,
                           BLITZ)
        self.assertEqual((status, err["error"]), (400, "you have 2 pending "
                         "challenges: the most there may be"))
        # CHALLENGE_BURST (challenge.c) a player, pages and API together
        statuses = [call(srv, "POST", "/api/challenge/cap_bob", a.api,
                         BLITZ)[0] for _ in range(10)]
        self.assertEqual(statuses[-1], 429, statuses)
        self.assertEqual(call(srv, "POST", "/api/challenge/cap_bob", a.api,
                              BLITZ),
                         (429, {"error": "too many challenges; try again "
                                "in a minute"}))

    def test_an_api_challenger_without_a_page_lapses(self):
        srv = self.server(config=dict(self.CONFIG, challenge_lapse_s=1))
        a = self.account(srv, "lap_alice")
        b = self.account(srv, "lap_bob")
        token = a.api
        a.close()
        status, ch = call(srv, "POST", "/api/challenge/lap_bob", token,
                          BLITZ)
        self.assertEqual(status, 200, ch)
        self.assertEqual(b.expect("challenge")["challenge"]["status"],
                         "created")
        got = b.expect("challenge", timeout=5)["challenge"]
        self.assertEqual((got["id"], got["status"]), (ch["id"], "expired"))

    @not_in_cluster("one node's token bucket (test_apitokens's cluster test)")
    def test_requests_pay_from_the_token(self):
        srv = self.server(config=self.CONFIG)
        a = self.account(srv, "tb_alice")
        statuses = [call(srv, "GET", "/api/account/playing", a.api)[0]
                    for _ in range(30)]
        self.assertIn(429, statuses)
        self.assertEqual(statuses[0], 200)

    def test_user(self):
        srv = self.server(config=self.CONFIG)
        self.account(srv, "Usr_Alice")
        status, u = call(srv, "GET", "/api/user/usr_ALICE")
        self.assertEqual(status, 200, u)
        self.assertEqual((u["id"], u["username"], u["perfs"]),
                         ("usr_alice", "Usr_Alice", {}))
        self.assertEqual(u.get("online"), True)
        self.assertIsInstance(u["createdAt"], int)
        for name in ("nobody_here", "bad!name", "x"):
            self.assertEqual(call(srv, "GET", "/api/user/" + name),
                             (404, {"error": "Not found."}), name)
        self.assertEqual(call(srv, "GET", "/game/export/nosuchgame")[0], 404)
        self.assertEqual(call(srv, "GET", "/api/account/playing")[0], 401)
        self.assertEqual(call(srv, "POST", "/api/users/status", form="")[0],
                         405)
        self.assertEqual(call(srv, "GET", "/api/users/status")[0], 400)

    def test_users_status(self):
        srv = self.server(config=self.CONFIG)
        self.account(srv, "Usr_Alice")
        self.assertEqual(call(srv, "GET", "/api/users/status?ids="
                              "usr_alice"),
                         (200, [{"id": "usr_alice", "name": "Usr_Alice",
                                 "online": True}]))
        ids = ",".join("u%d" % i for i in range(101))
        self.assertEqual(call(srv, "GET", "/api/users/status?ids=" + ids),
                         (400, {"error": "ids: at most 100"}))
        self.assertEqual(call(srv, "GET", "/api/users/status?ids=" +
                              ids[:ids.rindex(",")]), (200, []))
        # one argument as long as a request line may be (511 bytes),
        # names of 20 characters: none is dropped
        names = ["usr_alice", "abcd"] + ["n%019d" % i for i in range(22)]
        path = "/api/users/status?ids=" + ",".join(names)
        self.assertEqual(len("GET %s HTTP/1.1" % path), 511)
        self.assertEqual(call(srv, "GET", path)[1],
                         [{"id": "usr_alice", "name": "Usr_Alice",
                           "online": True}])
        self.assertEqual(raw(srv, "GET", path + ",u")[0], 414)

    def test_games_of_a_user_as_pgn(self):
        srv = self.server(config=self.CONFIG)
        w = self.account(srv, "pgn_white")
        b = self.account(srv, "pgn_black")
        gids = []
        for _ in range(3):
            gid = w.request({"t": "invite", "clock": {
                "type": "fischer", "initial_s": 300, "increment_s": 0},
                "color": "white"}, "invited")["game"]
            b.send({"t": "join", "game": gid})
            for c in (w, b):
                c.expect("game_start", game=gid)
            w.move(gid, "e2e4", 0)
            b.expect("moved", game=gid, ply=1)
            b.send({"t": "resign", "game": gid})
            w.expect("game_end", game=gid)
            gids.append(gid)
            time.sleep(0.01)  # (ended_ms apart: the order is theirs)
        wait_until(lambda: raw(srv, "GET", "/api/games/user/pgn_white")[2]
                   .count(b"[Event ") == 3, "the 3 games stored")
        status, kind, body = raw(srv, "GET", "/api/games/user/PGN_WHITE")
        self.assertEqual((status, kind), (200, "application/x-chess-pgn"))
        text = body.decode()
        self.assertEqual(text.count('[White "pgn_white"]'), 3)
        # newest first
        sites = [text.index(g) for g in reversed(gids)]
        self.assertEqual(sites, sorted(sites))
        status, _, one = raw(srv, "GET", "/api/games/user/pgn_white?max=1")
        self.assertEqual(one.decode().count("[Event "), 1)
        self.assertIn(gids[-1], one.decode())
        for q in ("max=0", "max=101", "max=x"):
            self.assertEqual(call(srv, "GET", "/api/games/user/pgn_white?"
                                  + q), (400, {"error": "max: 1-100"}), q)
        self.assertEqual(call(srv, "GET", "/api/games/user/nobody_here"),
                         (404, {"error": "No such user"}))
        self.assertEqual(raw(srv, "GET", "/api/games/user/pgn_none")[0], 404)

    def test_the_list_through_every_node(self):
        """GET /api/challenge in a cluster: every node lists the pending
        challenges of every node, both ways (challenge.lua's list), and
        none once they ended, whichever node ended them."""
        if not CLUSTER:
            self.skipTest("a cluster's nodes")
        srv = self.server(config=self.CONFIG)
        n1, n2, n3 = srv.nodes[:3]
        a = self.account(srv, "cl_alice", (PLAY, "challenge:read"))
        b = self.account(srv, "cl_bob", (PLAY, "challenge:read"))
        c = self.account(srv, "cl_carol", (PLAY, "challenge:read"))
        ab = call(n1, "POST", "/api/challenge/cl_bob", a.api, BLITZ)[1]
        ca = call(n2, "POST", "/api/challenge/cl_alice", c.api, BLITZ)[1]
        for node in (n1, n2, n3):
            status, got = call(node, "GET", "/api/challenge", a.api)
            self.assertEqual(status, 200, got)
            self.assertEqual(([x["id"] for x in got["in"]],
                              [x["id"] for x in got["out"]]),
                             ([ca["id"]], [ab["id"]]))
            self.assertEqual(got["out"][0]["destUser"]["name"], "cl_bob")
            self.assertEqual(got["in"][0]["challenger"]["name"], "cl_carol")
            self.assertEqual(call(node, "GET", "/api/challenge", b.api)[1],
                             {"in": [dict(got["out"][0], direction="in")],
                              "out": []})
        self.assertEqual(call(n3, "POST", "/api/challenge/%s/decline"
                              % ab["id"], b.api), (200, {"ok": True}))
        self.assertEqual(call(n3, "POST", "/api/challenge/%s/cancel"
                              % ca["id"], c.api), (200, {"ok": True}))
        for node in (n1, n2, n3):
            for x in (a, b, c):
                self.assertEqual(call(node, "GET", "/api/challenge", x.api),
                                 (200, {"in": [], "out": []}))

    def test_game_export_is_within_the_address_bucket(self):
        srv = self.server(config={"http_rate_per_s": 1, "http_burst": 3})
        statuses = [raw(srv, "GET", "/api/user/nobody_here")[0]
                    for _ in range(4)]
        self.assertEqual(statuses[-1], 429, statuses)
        # lichess's path of a PGN draws on the same bucket as /api/...
        self.assertEqual(call(srv, "GET", "/game/export/nosuchgame"),
                         (429, {"error": "rate_limited"}))

    def test_rated_accept_starts_from_the_stored_ratings(self):
        srv = self.server(config=self.CONFIG)
        w = self.account(srv, "rt_white")
        b = self.account(srv, "rt_black")
        gid = w.request({"t": "invite", "clock": {
            "type": "fischer", "initial_s": 300, "increment_s": 0},
            "color": "white", "rated": True}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
        self.play(w, b, gid, "e2e4 e7e5")
        b.send({"t": "resign", "game": gid})
        end = w.expect("game_end", game=gid)
        after = end["ratings"]["white"]["after"]
        self.assertGreater(after, 1500)
        tokens = (w.api, b.api)
        srv.stop()
        # started again: white's account is in no memory but the store's
        srv = self.server(config=self.CONFIG)
        b = self.client(srv)  # black's page, white's none
        b.request({"t": "login", "username": "rt_black",
                   "password": PASSWORD}, "welcome")
        status, ch = call(srv, "POST", "/api/challenge/rt_white", tokens[1],
                          dict(BLITZ, rated="true", color="black"))
        self.assertEqual(status, 200, ch)
        b.expect("challenge")
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/accept"
                              % ch["id"], tokens[0]), (200, {"ok": True}))
        # the game starts from white's stored rating, shown at once
        start = b.expect("game_start")
        self.assertEqual((start["rated"], start["white"].get("rating")),
                         (True, after))
        status, playing = call(srv, "GET", "/api/account/playing", tokens[1])
        g = playing["nowPlaying"][0]
        self.assertEqual((g["rated"], g["color"], g["opponent"]["id"]),
                         (True, "black", "rt_white"))
        self.assertEqual(g["opponent"]["rating"], after)

    def test_perfs_keys_are_lichess_s(self):
        """A rated game of a time per move is lichess's correspondence in
        every lichess-shaped perfs (/api/account, /api/user/{name}):
        lichess-bot's matchmaking looks its ratings up by lichess's
        keys."""
        srv = self.server(config=self.CONFIG)
        w = self.account(srv, "pk_white")
        b = self.account(srv, "pk_black")
        gid = w.request({"t": "invite", "clock": {
            "type": "per_move", "per_move_s": 86400},
            "color": "white", "rated": True}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
        self.play(w, b, gid, "e2e4 e7e5")
        b.send({"t": "resign", "game": gid})
        w.expect("game_end", game=gid)

        def perfs():
            account = call(srv, "GET", "/api/account", w.api)[1]["perfs"]
            user = call(srv, "GET", "/api/user/pk_white")[1]["perfs"]
            return account, user
        wait_until(lambda: perfs()[0], "the rated game's rating stored")
        for got in perfs():
            self.assertEqual(list(got), ["correspondence"])
            self.assertEqual(got["correspondence"]["games"], 1)

    def play(self, white, black, gid, moves):
        ply, players = 0, [white, black]
        for uci in moves.split():
            players[ply % 2].move(gid, uci, ply)
            ply += 1
            for c in players:
                c.expect("moved", game=gid, ply=ply)

    def test_playing_and_status_of_an_invitations_game(self):
        srv = self.server(config=self.CONFIG)
        w = self.account(srv, "inv_white", ("board:play",))
        b = self.account(srv, "inv_black", ())
        gids = []
        for initial in (600, 900):  # two games, the second's clock longer
            gid = w.request({"t": "invite", "clock": {
                "type": "fischer", "initial_s": initial, "increment_s": 5},
                "color": "white"}, "invited")["game"]
            b.send({"t": "join", "game": gid})
            for c in (w, b):
                c.expect("game_start", game=gid)
            gids.append(gid)
        w.move(gids[1], "d2d4", 0)
        w.expect("moved", game=gids[1], ply=1)
        # the most urgent first: my turn, then the least time left
        expect = {w: [(gids[0], "white", True, 60), (gids[1], "white",
                                                     False, 90)],
                  b: [(gids[1], "black", True, 90), (gids[0], "black",
                                                     False, 60)]}
        for c in (w, b):
            status, playing = call(srv, "GET", "/api/account/playing", c.api)
            self.assertEqual(status, 200, playing)
            self.assertEqual([(g["gameId"], g["color"], g["isMyTurn"],
                               g["secondsLeft"] // 10)
                              for g in playing["nowPlaying"]], expect[c])
            self.assertEqual(playing["nbMyTurn"], 1)
            status, one = call(srv, "GET", "/api/account/playing?nb=1",
                               c.api)
            self.assertEqual([g["gameId"] for g in one["nowPlaying"]],
                             [expect[c][0][0]])
            self.assertEqual(one["nbMyTurn"], 1)
        status, users = call(srv, "GET", "/api/users/status?ids="
                             "inv_white,inv_black")
        self.assertEqual(users, [
            {"id": "inv_white", "name": "inv_white", "online": True,
             "playing": True},
            {"id": "inv_black", "name": "inv_black", "online": True,
             "playing": True}])

    def test_across_nodes(self):
        """Each call through another node: a challenge made on one is
        heard on the others' pages and event-less clients at once,
        declined and accepted through nodes that hold no page of either
        player; the caps count every node's; nowPlaying and users/status
        see the games and pages of every node."""
        if not CLUSTER:
            self.skipTest("a cluster's nodes")
        srv = self.server(config=dict(self.CONFIG, max_challenges_out=2))
        n1, n2, n3 = srv.nodes[:3]
        a = self.account(srv, "x_alice")
        b = self.account(srv, "x_bob")
        c = self.account(srv, "x_carl")
        # made through node 1, declined through node 2, then node 3
        status, ch = call(n1, "POST", "/api/challenge/x_bob", a.api, BLITZ)
        self.assertEqual(status, 200, ch)
        self.assertEqual(b.expect("challenge")["challenge"]["id"], ch["id"])
        a.expect("challenge")
        self.assertEqual(call(n2, "POST", "/api/challenge/%s/decline"
                              % ch["id"], b.api, {"reason": "later"}),
                         (200, {"ok": True}))
        for x in (a, b):
            got = x.expect("challenge")["challenge"]
            self.assertEqual((got["id"], got["status"],
                              got["decline_reason"]),
                             (ch["id"], "declined", "later"))
        self.assertEqual(call(n3, "POST", "/api/challenge/%s/accept"
                              % ch["id"], b.api),
                         (404, {"error": "Not found."}))
        # the caps: two pending through two nodes, the third refused on a
        # third node
        ids = []
        for node, dest in ((n2, "x_bob"), (n3, "x_carl")):
            status, ch = call(node, "POST", "/api/challenge/" + dest, a.api,
                              BLITZ)
            self.assertEqual(status, 200, ch)
            ids.append(ch["id"])
        self.assertEqual(call(n1, "POST", "/api/challenge/x_carl", a.api,
                              BLITZ),
                         (400, {"error": "you have 2 pending challenges: "
                                "the most there may be"}))
        # the page of its challenger cancels one made through another node
        a.send({"t": "challenge_cancel", "challenge": ids[0]})
        for x in (a, b):
            got = x.expect("challenge", timeout=5)["challenge"]
            while got["id"] != ids[0] or got["status"] != "canceled":
                got = x.expect("challenge", timeout=5)["challenge"]
        # accepted through node 1: the game starts there, its players'
        # pages (on other nodes) attach to it
        self.assertEqual(call(n1, "POST", "/api/challenge/%s/accept"
                              % ids[1], c.api), (200, {"ok": True}))
        gid = ids[1]
        for x in (a, c):
            x.expect("game_start", game=gid, timeout=5)
        # nowPlaying and users/status through every node
        for node in (n1, n2, n3):
            status, playing = call(node, "GET", "/api/account/playing",
                                   c.api)
            self.assertEqual(status, 200, playing)
            self.assertEqual([g["gameId"] for g in playing["nowPlaying"]],
                             [gid])
            status, users = call(node, "GET", "/api/users/status?ids="
                                 "x_alice,x_bob,x_carl")
            self.assertEqual(status, 200, users)
            self.assertEqual([(u["id"], u.get("online"), u.get("playing"))
                              for u in users],
                             [("x_alice", True, True),
                              ("x_bob", True, None),
                              ("x_carl", True, True)])
            self.assertEqual(call(node, "GET", "/api/user/x_bob")[1]
                             .get("online"), True)
        b.close()
        wait_until(lambda: call(n2, "GET", "/api/users/status?ids=x_bob")[1]
                   == [{"id": "x_bob", "name": "x_bob"}], "bob offline")
