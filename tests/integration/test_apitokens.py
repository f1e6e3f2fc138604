"""Personal API tokens (PROTOCOL.md, "API tokens"; operator.md, "API
tokens"): token_create / token_list / token_revoke over the protocol,
`Authorization: Bearer` on the HTTP API (GET /api/account, POST
/api/token/test), the `chess-server token` command beside a running
server, and the caps: per token, per address of failures."""
import http.client
import json
import re
import subprocess
import threading

from harness import (SERVER, FreshServerTest, ServerTest, one_node,
                     sqlite_only, write_json, db_args)

PASSWORD = "correct horse"
TOKEN_RE = re.compile(r"^lip_[A-Za-z0-9_-]{20}$")
TOKEN_BURST = 20  # LIMIT_API_TOKEN_BURST (server/lib/tunables.h)
FAILS_BURST = 10  # LIMIT_API_AUTH_FAILS_BURST


def register(c, username):
    return c.request({"t": "register", "username": username,
                      "password": PASSWORD}, "registered")


def call(server, method, path, token=None, body=None, auth=None):
    """(status, JSON body) of one HTTP request to server."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {}
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    if auth is not None:
        headers["Authorization"] = auth
    if body is not None:
        headers["Content-Type"] = "text/plain"
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, json.loads(data) if data else None


def create(c, scopes, description=None):
    msg = {"t": "token_create", "scopes": scopes}
    if description is not None:
        msg["description"] = description
    return c.request(msg, "token_created")


class TokenProtocolTest(ServerTest):
    server_args = {"extra": ["--logins-per-ip-per-min", "10000",
                             "--logins-per-user-per-min", "10000"]}

    def account(self, username):
        a = self.client()
        register(a, username)
        return a

    @one_node
    def test_created_shown_once_listed_used_revoked(self):
        a = self.account("Tok_Alice")
        t = create(a, ["board:play", "bot:play"], "my bot")
        self.assertRegex(t["token"], TOKEN_RE)
        self.assertEqual(set(t), {"t", "id", "token", "token_id",
                                  "description", "scopes", "created_ms"})
        self.assertEqual(t["scopes"], ["bot:play", "board:play"])
        self.assertEqual(t["description"], "my bot")
        # listed without its text, on every connection of the account
        listing = a.request({"t": "token_list"}, "tokens")
        self.assertNotIn(t["token"], json.dumps(listing))
        self.assertEqual(listing["tokens"], [
            {"token_id": t["token_id"], "description": "my bot",
             "scopes": ["bot:play", "board:play"],
             "created_ms": t["created_ms"]}])
        # the token opens the API
        status, me = call(self.server, "GET", "/api/account", t["token"])
        self.assertEqual(status, 200, me)
        self.assertEqual(me["id"], "tok_alice")
        self.assertEqual(me["username"], "Tok_Alice")
        self.assertIsInstance(me["createdAt"], int)
        self.assertEqual(me["perfs"], {})
        # and is described by /api/token/test, beside one that is not
        bogus = "lip_" + "x" * 20
        status, test = call(self.server, "POST", "/api/token/test",
                            body="%s,%s" % (t["token"], bogus))
        self.assertEqual(status, 200)
        self.assertEqual(test, {
            t["token"]: {"scopes": "bot:play,board:play",
                         "userId": "tok_alice", "expires": None},
            bogus: None})
        # a second token; revoking the first leaves it
        t2 = create(a, [])
        self.assertEqual(t2["scopes"], [])
        self.assertEqual(t2["description"], "")
        r = a.request({"t": "token_revoke", "token_id": t["token_id"]},
                      "token_revoked")
        self.assertEqual(r["token_id"], t["token_id"])
        self.assertEqual(call(self.server, "GET", "/api/account",
                              t["token"]),
                         (401, {"error": "No such token"}))
        self.assertEqual(call(self.server, "GET", "/api/account",
                              t2["token"])[0], 200)
        status, test = call(self.server, "POST", "/api/token/test",
                            body=t["token"])
        self.assertEqual(test, {t["token"]: None})
        self.assertEqual(
            [x["token_id"] for x in
             a.request({"t": "token_list"}, "tokens")["tokens"]],
            [t2["token_id"]])
        # twice: no such token
        a.send({"t": "token_revoke", "token_id": t["token_id"]})
        self.assertEqual(a.expect_error("no_such_token")["code"],
                         "no_such_token")

    def test_bad_input_and_other_accounts(self):
        a = self.account("tok_bob")
        b = self.account("tok_carol")
        a.send({"t": "token_create", "scopes": ["bot:play", "web:mod"]})
        e = a.expect_error("bad_field")
        self.assertIn("unknown scope 'web:mod'", e["msg"])
        self.assertIn("bot:play", e["msg"])  # the known ones listed
        a.send({"t": "token_create"})  # scopes are required
        self.assertEqual(a.expect_error("bad_field")["msg"],
                         "scopes: missing")
        a.send({"t": "token_create", "scopes": "bot:play"})
        a.expect_error("bad_field")
        a.send({"t": "token_create", "scopes": [], "description": "x" * 101})
        a.expect_error("bad_field")
        a.send({"t": "token_create", "scopes": [], "colour": "red"})
        self.assertEqual(a.expect_error("bad_field")["msg"],
                         "unknown field 'colour'")
        a.send({"t": "token_revoke", "token_id": "bad id!"})
        a.expect_error("bad_field")
        # nothing was made
        self.assertEqual(a.request({"t": "token_list"}, "tokens")["tokens"],
                         [])
        # another account's token is nobody's to revoke
        t = create(b, ["challenge:read"])
        a.send({"t": "token_revoke", "token_id": t["token_id"]})
        a.expect_error("no_such_token")
        self.assertEqual(call(self.server, "GET", "/api/account",
                              t["token"])[0], 200)
        # a guest has none
        g = self.client()
        for msg in ({"t": "token_create", "scopes": []},
                    {"t": "token_list"},
                    {"t": "token_revoke", "token_id": t["token_id"]}):
            g.send(msg)
            g.expect_error("needs_account")

    @one_node
    def test_http_refuses_without_a_good_token(self):
        a = self.account("tok_dave")
        t = create(a, ["bot:play"])
        for token, auth in ((None, None), ("lip_" + "A" * 20, None),
                            ("not-a-token", None), (None, "Basic abc"),
                            (t["token"] + "x", None)):
            self.assertEqual(call(self.server, "GET", "/api/account", token,
                                  auth=auth),
                             (401, {"error": "No such token"}), token)
        # lower-case scheme, as RFC 9110 allows
        self.assertEqual(call(self.server, "GET", "/api/account",
                              auth="bearer " + t["token"])[0], 200)
        # methods
        self.assertEqual(call(self.server, "POST", "/api/account",
                              t["token"], body="")[0], 405)
        self.assertEqual(call(self.server, "GET", "/api/token/test")[0], 405)
        self.assertEqual(call(self.server, "POST", "/api/games/x",
                              body="a")[0], 405)
        status, body = call(self.server, "POST", "/api/token/test",
                            body=",".join(["lip_x"] * 51))
        self.assertEqual((status, body), (400, {"error": "at most 50 tokens"}))
        self.assertEqual(call(self.server, "POST", "/api/token/test",
                              body="lip_\u00e9\u00e9".encode())[0], 400)
        # a longer text is never cut into a token's shape
        long = t["token"] + "A" * 50
        self.assertEqual(call(self.server, "POST", "/api/token/test",
                              body=long),
                         (200, {long[:64]: None}))
        self.assertEqual(call(self.server, "POST", "/api/token/test",
                              body=" , "), (200, {}))


class TokenLimitTest(FreshServerTest):
    # the address's own API limit out of the way
    CONFIG = {"http_rate_per_s": 1000, "http_burst": 1000}

    def token(self, srv, username):
        a = self.client(srv)
        register(a, username)
        return create(a, ["bot:play"])["token"]

    def test_requests_per_token_are_capped(self):
        srv = self.server(config=self.CONFIG)
        t1, t2 = self.token(srv, "cap_one"), self.token(srv, "cap_two")
        statuses, stop = [], threading.Event()

        # faster than the bucket refills (8 a second), until it is empty:
        # however slow the server (valgrind), a 429 comes
        def burst():
            while not stop.is_set() and len(statuses) < 600:
                s = call(srv, "GET", "/api/account", t1)
                statuses.append(s)
                if s[0] != 200:
                    stop.set()
        threads = [threading.Thread(target=burst) for _ in range(6)]
        for x in threads:
            x.start()
        for x in threads:
            x.join()
        ok = [s for s in statuses if s[0] == 200]
        refused = [s for s in statuses if s[0] != 200]
        self.assertGreaterEqual(len(ok), TOKEN_BURST)
        self.assertTrue(refused)
        for s in refused:
            self.assertEqual(s, (429, {"error": "rate_limited"}))
        # per token: another token from the same address goes on
        self.assertEqual(call(srv, "GET", "/api/account", t2)[0], 200)

    def test_failures_per_address_are_capped(self):
        srv = self.server(config=self.CONFIG)
        t = self.token(srv, "cap_three")
        # good tokens cost the address nothing
        for _ in range(FAILS_BURST + 2):
            self.assertEqual(call(srv, "GET", "/api/account", t)[0], 200)
        for i in range(FAILS_BURST):
            self.assertEqual(call(srv, "GET", "/api/account",
                                  "lip_%020d" % i)[0], 401)
        self.assertEqual(call(srv, "GET", "/api/account", "lip_" + "z" * 20),
                         (429, {"error": "rate_limited"}))
        # then the address's good token waits too
        self.assertEqual(call(srv, "GET", "/api/account", t)[0], 429)


class TokenCliTest(FreshServerTest):
    def cli(self, *args):
        p = subprocess.run([SERVER, "token"] + list(args),
                           capture_output=True, text=True, timeout=30)
        return p.returncode, p.stdout, p.stderr

    @sqlite_only("--db names the SQLite file; PostgreSQL's is the config's")
    def test_create_list_revoke_beside_the_server(self):
        srv = self.server()
        a = self.client(srv)
        register(a, "Cli_Erin")
        db = ["--db", srv.db]
        rc, out, err = self.cli("create", "cli_erin", "bot:play,board:play",
                                "lichess-bot", *db)
        self.assertEqual(rc, 0, err)
        token = out.strip()
        self.assertRegex(token, TOKEN_RE)
        self.assertEqual(out, token + "\n")  # the token alone
        status, me = call(srv, "GET", "/api/account", token)
        self.assertEqual((status, me["username"]), (200, "Cli_Erin"))
        # listed by the CLI and over the protocol, without its text
        rc, out, err = self.cli("list", "CLI_ERIN", *db)
        self.assertEqual(rc, 0, err)
        self.assertNotIn(token, out)
        rows = [line.split("\t") for line in out.splitlines()[1:]]
        self.assertEqual(len(rows), 1)
        tid = rows[0][0]
        self.assertEqual(rows[0][2:], ["bot:play,board:play", "lichess-bot"])
        listed = a.request({"t": "token_list"}, "tokens")["tokens"]
        self.assertEqual([x["token_id"] for x in listed], [tid])
        # the exit 2 cases change nothing
        for args, words in ((("create", "nobody", "bot:play"),
                             "no account named 'nobody'"),
                            (("create", "cli_erin", "bot:play,web:mod"),
                             "unknown scope 'web:mod'"),
                            (("list", "nobody"), "no account named"),
                            (("revoke", "NoSuchId"), "no token with id"),
                            (("create", "cli_erin"), "usage"),
                            (("frobnicate", "x"), "usage")):
            rc, out, err = self.cli(*(args + tuple(db)))
            self.assertEqual((rc, out), (2, ""), args)
            self.assertIn(words, err, args)
        self.assertEqual(len(a.request({"t": "token_list"},
                                       "tokens")["tokens"]), 1)
        # revoked by the CLI: closed at once
        rc, out, err = self.cli("revoke", tid, *db)
        self.assertEqual((rc, out), (0, ""), err)
        self.assertEqual(call(srv, "GET", "/api/account", token),
                         (401, {"error": "No such token"}))
        self.assertEqual(a.request({"t": "token_list"}, "tokens")["tokens"],
                         [])
        # a description is UTF-8
        rc, out, err = self.cli("create", "cli_erin", "", b"bad\xff", *db)
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("UTF-8", err)
        # an account holds at most 20 tokens: the CLI and the protocol
        pid = srv.sql("SELECT pid FROM accounts WHERE username = ?",
                      "Cli_Erin")[0][0]
        for i in range(20):
            srv.sql("INSERT INTO api_tokens VALUES (?, randomblob(32), ?, "
                    "'', '', 0)", "cap%d" % i, pid)
        rc, out, err = self.cli("create", "cli_erin", "", *db)
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("holds 20 tokens", err)
        a.send({"t": "token_create", "scopes": []})
        a.expect_error("too_many_tokens")
        srv.sql("DELETE FROM api_tokens WHERE pid = ?", pid)
        # a database that is not there is not created
        rc, out, err = self.cli("list", "x", "--db", self.path("none.db"))
        self.assertEqual(rc, 1)

    def test_config_names_the_database(self):
        srv = self.server()
        a = self.client(srv)
        register(a, "cli_frank")
        where = db_args(self.dir, srv.db)  # --db PATH or --postgres CONNINFO
        cfg = write_json(self.path("cli.json"),
                         {where[0][2:].replace("db", "database"): where[1]})
        rc, out, err = self.cli("create", "cli_frank", "challenge:write",
                                "--config", cfg)
        self.assertEqual(rc, 0, err)
        self.assertEqual(call(srv, "GET", "/api/account", out.strip())[0],
                         200)

