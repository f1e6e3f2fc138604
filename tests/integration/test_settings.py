"""An account's settings (PROTOCOL.md section 4, "Settings"): saved with
`settings`, answered `settings_saved`, pushed to the account's other
connections as `settings_changed`, carried by `welcome` (hello with a
token, login) across a reconnect, a restart and a kill; each error in
the protocol's order; the caps on keys, values and size; the meter of
saves per account."""
import json
import time

from harness import Client, FreshServerTest, ServerTest, one_node

PASSWORD = "correct horse"
BURST = 10  # LIMIT_SETTINGS_BURST (server/lib/tunables.h)


def register(c, username):
    return c.request({"t": "register", "username": username,
                      "password": PASSWORD}, "registered")


def login(server, username):
    """A new connection logged in as username: (client, welcome)."""
    c = Client(server, hello=False)
    w = c.request({"t": "login", "username": username,
                   "password": PASSWORD}, "welcome")
    c.player, c.token = w["player"], w["token"]
    return c, w


def save(c, settings):
    return c.request({"t": "settings", "settings": settings},
                     "settings_saved")


def error_of(c, msg):
    return c.request(msg, "error")["code"]


class SettingsTest(ServerTest):
    server_args = {"extra": ["--logins-per-ip-per-min", "10000",
                             "--logins-per-user-per-min", "10000"]}

    def account(self, username):
        a = self.client()
        self.assertNotIn("settings", a.request({"t": "ping"}, "pong"))
        r = register(a, username)
        self.assertIsNone(r["settings"])  # none stored yet
        a.token = r["token"]
        return a

    def test_saved_pushed_and_welcomed(self):
        a = self.account("set_alice")
        b, w = login(self.server, "set_alice")
        self.clients.append(b)
        self.assertIsNone(w["settings"])
        s = {"theme": "dark", "sound": False, "premoves": 3}
        ok = save(a, s)
        self.assertEqual(set(ok), {"t", "id"})
        m = b.expect("settings_changed")
        self.assertEqual(m, {"t": "settings_changed", "settings": s})
        a.quiet()  # the sender gets no settings_changed
        # a new connection (hello with the token), a login
        c = self.client(token=a.token)
        c.send({"t": "ping"})
        self.assertEqual(c.expect("pong"), {"t": "pong"})
        d = Client(self.server, hello=False)
        self.clients.append(d)
        d.send({"t": "hello", "token": a.token})
        self.assertEqual(d.expect("welcome")["settings"], s)
        e, w = login(self.server, "SET_ALICE")
        self.clients.append(e)
        self.assertEqual(w["settings"], s)
        # a save replaces the object; every other connection hears it
        save(e, {"board": "blue"})
        for x in (a, b, d):
            self.assertEqual(x.expect("settings_changed")["settings"],
                             {"board": "blue"})
        # a guest's welcome has no settings
        g = Client(self.server, hello=False)
        self.clients.append(g)
        g.send({"t": "hello"})
        self.assertNotIn("settings", g.expect("welcome"))

    def test_errors_in_order(self):
        u = Client(self.server, hello=False)
        self.clients.append(u)
        self.assertEqual(error_of(u, {"t": "settings", "settings": 1}),
                         "unauthenticated")
        g = self.client()
        cases = [
            ({"t": "settings"}, "bad_field", "settings: missing"),
            ({"t": "settings", "settings": {}, "x": 1}, "bad_field",
             "unknown field"),
            ({"t": "settings", "settings": []}, "bad_field",
             "settings: must be an object"),
            ({"t": "settings", "settings": {"a": 1.5}}, "bad_field",
             "settings.a:"),
            ({"t": "settings", "settings": {"a": {}}}, "bad_field",
             "settings.a:"),
            ({"t": "settings", "settings": {"a": None}}, "bad_field",
             "settings.a:"),
            ({"t": "settings", "settings": {"a b": 1}}, "bad_field",
             "settings: key"),
            # the shape passes: a guest is refused
            ({"t": "settings", "settings": {"a": 1}}, "needs_account",
             None),
        ]
        for msg, code, text in cases:
            e = g.request(msg, "error")
            self.assertEqual(e["code"], code, msg)
            if text:
                self.assertIn(text, e["msg"], msg)
        # an invalid id is bad_field, reported without it
        g.send({"t": "settings", "id": [1], "settings": {}})
        e = g.expect_error("bad_field")
        self.assertNotIn("id", e)
        self.assertTrue(e["msg"].startswith("id:"), e)
        # an account: the meter, after the shape
        a = self.account("set_errs")
        for i in range(BURST):
            save(a, {"n": i})
        self.assertEqual(error_of(a, {"t": "settings",
                                      "settings": {"a": 1.5}}),
                         "bad_field")
        self.assertEqual(error_of(a, {"t": "settings",
                                      "settings": {"a": 1}}),
                         "rate_limited")

    def test_caps(self):
        a = self.account("set_caps")
        ok, bad = [], []
        ok.append({"k%d" % i: i for i in range(32)})
        bad.append({"k%d" % i: i for i in range(33)})
        ok.append({"a" * 32: True})
        bad.append({"a" * 33: True})
        ok.append({"s": "x" * 64, "u": "\u00e9" * 32})
        bad.append({"s": "x" * 65})
        bad.append({"u": "\u00e9" * 32 + "x"})  # 65 bytes
        ok.append({"i": 2 ** 53 - 1, "j": -(2 ** 53 - 1)})
        bad.append({"i": 2 ** 53})
        # 2048 bytes as the server writes it (compact, this key order)
        big = {"%02d" % i: "v" * 64 for i in range(28)}
        used = len(json.dumps(big, separators=(",", ":")))
        big["zz"] = "w" * (2048 - used - 8)
        self.assertEqual(len(json.dumps(big, separators=(",", ":"))), 2048)
        ok.append(big)
        bigger = dict(big, zz=big["zz"] + "w")
        bad.append(bigger)
        for s in bad:
            self.assertEqual(error_of(a, {"t": "settings", "settings": s}),
                             "bad_field", s)
        for s in ok:
            save(a, s)
            b = self.client(token=a.token)
            b.send({"t": "ping"})
            b.expect("pong")
            d = Client(self.server, hello=False)
            self.clients.append(d)
            d.send({"t": "hello", "token": a.token})
            self.assertEqual(d.expect("welcome")["settings"], s)

    @one_node

    def test_saves_are_metered_per_account(self):
        """BURST saves at once, then one per 3 s, from all of the
        account's connections together: 15 sent back to back on one
        connection (well within 3 s) give exactly the first BURST saves,
        and the account's other connection is refused as well."""
        a = self.account("set_meter")
        b, _ = login(self.server, "set_meter")
        self.clients.append(b)
        t0 = time.monotonic()
        for i in range(15):
            a.send({"t": "settings", "id": i, "settings": {"n": i}})
        replies = [a.expect_any(time.monotonic() + 5) for _ in range(15)]
        self.assertLess(time.monotonic() - t0, 3.0)
        self.assertEqual([m["id"] for m in replies], list(range(15)))
        self.assertEqual([m["t"] for m in replies],
                         ["settings_saved"] * BURST +
                         ["error"] * (15 - BURST))
        for m in replies[BURST:]:
            self.assertEqual(m["code"], "rate_limited")
        # b heard each save, and no more
        for i in range(BURST):
            self.assertEqual(b.expect("settings_changed")["settings"],
                             {"n": i})
        self.assertEqual(error_of(b, {"t": "settings",
                                      "settings": {"n": 98}}),
                         "rate_limited")
        # a new connection gets no new budget
        c = self.client(token=a.token)
        self.assertEqual(error_of(c, {"t": "settings",
                                      "settings": {"n": 99}}),
                         "rate_limited")
        d = Client(self.server, hello=False)
        self.clients.append(d)
        d.send({"t": "hello", "token": a.token})
        self.assertEqual(d.expect("welcome")["settings"],
                         {"n": BURST - 1})
        # another account has its own
        e = self.account("set_meter2")
        save(e, {"n": 1})


class SettingsRestartTest(FreshServerTest):
    def test_kept_across_restart_and_kill(self):
        srv = self.server()
        a = self.client(srv)
        token = register(a, "set_rs")["token"]
        save(a, {"theme": "light", "coords": False})
        srv.stop()
        srv = self.server()
        c = self.client(srv, hello=False)
        c.send({"t": "hello", "token": token})
        self.assertEqual(c.expect("welcome")["settings"],
                         {"theme": "light", "coords": False})
        # settings_saved means durable: kill -9 right after it
        save(c, {"theme": "dark"})
        srv.kill()
        srv = self.server()
        d = self.client(srv, hello=False)
        w = d.request({"t": "login", "username": "set_rs",
                       "password": PASSWORD}, "welcome")
        self.assertEqual(w["settings"], {"theme": "dark"})
