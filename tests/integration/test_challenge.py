"""Challenges to a named player (PROTOCOL.md, "Challenges") over the real
server: made by name or PID, heard at once on every connection of both
players, accepted into a game, declined with a reason, canceled, expired
after the challenger's last connection; the caps, the errors (which
change nothing), and nobody answering a challenge meant for another. In
a cluster (the integration-cluster suite) the players of a test are on
different nodes: every test below but one runs there too, a guest named
by its PID (a guest's name is known only to its node: docs/cluster.md)."""
import time

from harness import CLUSTER, FreshServerTest, not_in_cluster

BLITZ = {"type": "fischer", "initial_s": 180, "increment_s": 2}
PASSWORD = "correct horse battery"


class ChallengeTest(FreshServerTest):
    def account(self, srv, username):
        c = self.client(srv, name=username)
        r = c.request({"t": "register", "username": username,
                       "password": PASSWORD}, "registered")
        c.player = r["player"]
        return c

    def pending(self, c):
        r = c.request({"t": "challenges"}, "challenges")
        return ([x["id"] for x in r["in"]], [x["id"] for x in r["out"]])

    def test_accept_starts_the_game(self):
        srv = self.server()
        a = self.client(srv, name="alice")
        b1 = self.client(srv, name="bob")
        b2 = self.client(srv, token=b1.token)  # bob's 2nd page
        a.send({"t": "challenge", "to": b1.pid if CLUSTER else "BOB",
                "clock": BLITZ, "color": "black", "id": 1})
        mine = a.expect("challenge")
        self.assertEqual(mine["id"], 1)
        ch = mine["challenge"]
        self.assertEqual((ch["status"], ch["color"], ch["rated"]),
                         ("created", "black", False))
        self.assertEqual(ch["challenger"]["id"], a.pid)
        self.assertEqual(ch["dest"]["id"], b1.pid)
        self.assertEqual(ch["clock"], BLITZ)
        self.assertIsNone(ch["expires_ms"])
        for c in (b1, b2):  # at once, on every page of bob's
            msg = c.expect("challenge")
            self.assertNotIn("id", msg)
            got = msg["challenge"]
            self.assertEqual((got["id"], got["status"]), (ch["id"], "created"))
        self.assertEqual(self.pending(b2), ([ch["id"]], []))
        if not CLUSTER:  # (a node's gauge: copies count in a cluster)
            self.assertIn("chess_challenges_pending 1\n",
                          srv.http("/metrics")[2].decode())
        self.assertEqual(self.pending(a), ([], [ch["id"]]))
        b2.send({"t": "challenge_accept", "challenge": ch["id"], "id": "x"})
        got = b2.expect("challenge")
        self.assertEqual(got["id"], "x")
        gid = got["challenge"]["game"]
        self.assertEqual(got["challenge"]["status"], "accepted")
        for c in (a, b1):
            self.assertEqual(c.expect("challenge")["challenge"]["game"], gid)
        for c in (a, b1, b2):
            s = c.expect("game_start", game=gid)
            self.assertEqual(s["white"]["id"], b1.pid)  # alice asked black
            self.assertEqual(s["black"]["id"], a.pid)
            self.assertEqual(s["clock"], BLITZ)
        for c in (a, b1):
            c.expect("state", game=gid)
        b1.move(gid, "e2e4", 0)
        a.expect("moved", game=gid, ply=1)
        # it is gone: a second answer finds nothing
        b1.send({"t": "challenge_accept", "challenge": ch["id"]})
        b1.expect_error("no_such_challenge")
        self.assertEqual(self.pending(a), ([], []))
        if not CLUSTER:
            self.assertIn("chess_challenges_pending 0\n",
                          srv.http("/metrics")[2].decode())

    def test_decline_cancel_and_someone_else(self):
        srv = self.server()
        a, b, c = (self.client(srv, name=n) for n in ("al", "bo", "cy"))
        a.send({"t": "challenge", "to": b.pid, "clock": BLITZ})
        cid = a.expect("challenge")["challenge"]["id"]
        b.expect("challenge")
        # nobody but bo answers it, and not even its challenger accepts it
        for who, t in ((c, "challenge_accept"), (c, "challenge_decline"),
                       (a, "challenge_accept"), (a, "challenge_decline"),
                       (c, "challenge_cancel"), (b, "challenge_cancel")):
            who.send({"t": t, "challenge": cid})
            who.expect_error("no_such_challenge")
        self.assertEqual(self.pending(b), ([cid], []))
        # a bad reason is bad_field, and changes nothing
        b.send({"t": "challenge_decline", "challenge": cid,
                "reason": "nope"})
        b.expect_error("bad_field")
        b.send({"t": "challenge_decline", "challenge": cid,
                "reason": "tooFast"})
        for x in (a, b):
            d = x.expect("challenge")["challenge"]
            self.assertEqual((d["status"], d["decline_reason"]),
                             ("declined", "tooFast"))
        c.quiet(0.2)  # a third player hears nothing
        # cancel: both hear it
        a.send({"t": "challenge", "to": b.pid if CLUSTER else "bo",
                "clock": BLITZ})
        cid = a.expect("challenge")["challenge"]["id"]
        b.expect("challenge")
        a.send({"t": "challenge_cancel", "challenge": cid})
        for x in (a, b):
            self.assertEqual(x.expect("challenge")["challenge"]["status"],
                             "canceled")
        b.send({"t": "challenge_accept", "challenge": cid})
        b.expect_error("no_such_challenge")

    def test_expires_after_the_challenger_leaves(self):
        srv = self.server({"challenge_lapse_s": 1})
        a = self.client(srv, name="al")
        b = self.client(srv, name="bo")
        a.send({"t": "challenge", "to": b.pid, "clock": BLITZ})
        cid = a.expect("challenge")["challenge"]["id"]
        b.expect("challenge")
        # kept while its challenger stays connected, past the lapse
        time.sleep(1.5)
        b.quiet(0.1)
        self.assertEqual(self.pending(b), ([cid], []))
        # back within the lapse: kept
        token = a.token
        a.close()
        time.sleep(0.3)
        a = self.client(srv, token=token)
        time.sleep(1.2)
        b.quiet(0.1)
        self.assertEqual(self.pending(b), ([cid], []))
        # gone for good: it expires a second later
        a.close()
        t0 = time.monotonic()
        e = b.expect("challenge")["challenge"]
        self.assertEqual((e["id"], e["status"]), (cid, "expired"))
        self.assertGreater(time.monotonic() - t0, 0.7)
        self.assertEqual(self.pending(b), ([], []))

    def test_expires_ms_follows_the_lapse(self):
        """A challenge's expires_ms is null while its challenger is
        connected; once the challenger's last connection goes (its lapse
        armed) it is when the challenge lapses, as the other player's
        `challenges` lists it: in a cluster read from Redis, where the
        home node rewrites the challenge's record when it arms the lapse
        (challenge.lua's update), the challenged player on another
        node."""
        srv = self.server({"challenge_lapse_s": 5})
        a = self.client(srv, name="al")
        b = self.client(srv, name="bo")
        a.send({"t": "challenge", "to": b.pid, "clock": BLITZ})
        cid = a.expect("challenge")["challenge"]["id"]
        b.expect("challenge")

        def listed():
            r = b.request({"t": "challenges"}, "challenges")
            self.assertEqual([x["id"] for x in r["in"]], [cid])
            return r["in"][0]["expires_ms"]
        self.assertIsNone(listed())
        gone = time.time() * 1000
        a.close()
        for _ in range(20):  # (the home node's update: milliseconds)
            time.sleep(0.1)
            if listed() is not None:
                break
        expires = listed()
        self.assertIsNotNone(expires, "the lapse's expiry, seen by bob")
        self.assertAlmostEqual(expires, gone + 5000, delta=1000)

    def test_caps(self):
        srv = self.server({"max_challenges_out": 2, "max_challenges_in": 3})
        a = self.client(srv, name="al")
        targets = [self.client(srv, name="t%d" % i) for i in range(3)]
        for t in targets[:2]:
            a.request({"t": "challenge", "to": t.pid, "clock": BLITZ},
                      "challenge")
        a.send({"t": "challenge", "to": targets[2].pid, "clock": BLITZ})
        a.expect_error("too_many_challenges")
        targets[2].quiet(0.2)
        self.assertEqual(len(self.pending(a)[1]), 2)
        # three to one player, then the fourth is refused
        for i in range(3):
            s = self.client(srv, name="s%d" % i)
            s.request({"t": "challenge", "to": targets[2].pid,
                       "clock": BLITZ}, "challenge")
        late = self.client(srv, name="late")
        late.send({"t": "challenge", "to": targets[2].pid, "clock": BLITZ})
        late.expect_error("too_many_challenges")
        self.assertEqual(len(self.pending(targets[2])[0]), 3)

    def test_errors_change_nothing(self):
        srv = self.server()
        a = self.client(srv, name="al")
        b = self.client(srv, name="bo")
        for msg, code in (
                ({"to": "nobody"}, "no_such_player"),
                ({"to": "al"}, "own_game"),
                ({"to": a.pid}, "own_game"),
                ({"to": b.pid, "rated": True}, "rated_needs_account"),
                ({"to": b.pid, "clock": {"type": "fischer", "initial_s": 0,
                                         "increment_s": 0}}, "bad_clock"),
                ({"to": b.pid, "color": "green"}, "bad_field"),
                ({"to": "b o"}, "bad_field"),
                ({"to": b.pid, "level": 3}, "bad_field"),
                ({}, "bad_field")):
            m = {"t": "challenge", "clock": BLITZ}
            m.update(msg)
            a.send(m)
            a.expect_error(code)
        b.quiet(0.2)
        self.assertEqual(self.pending(a), ([], []))
        self.assertEqual(self.pending(b), ([], []))
        # an offline player is unknown: bo leaves
        b.close()
        time.sleep(0.2)
        a.send({"t": "challenge", "to": "bo", "clock": BLITZ})
        a.expect_error("no_such_player")
        # a guest cannot be challenged rated, even by an account
        acc = self.account(srv, "carol")
        g = self.client(srv, name="dave")
        acc.send({"t": "challenge", "to": g.pid, "clock": BLITZ,
                  "rated": True})
        acc.expect_error("rated_needs_account")
        g.quiet(0.2)
        # two accounts: rated, accepted into a rated game
        acc2 = self.account(srv, "erin")
        ch = acc.request({"t": "challenge", "to": "erin", "clock": BLITZ,
                          "rated": True}, "challenge")["challenge"]
        self.assertTrue(ch["rated"])
        acc2.expect("challenge")
        acc2.send({"t": "challenge_accept", "challenge": ch["id"]})
        s = acc2.expect("game_start")
        self.assertTrue(s["rated"])

    def test_rate(self):
        """10 challenge commands in a burst, refused ones too (a name is
        looked up through every player), then rate_limited; another
        player is not held back."""
        srv = self.server()
        a = self.client(srv, name="al")
        b = self.client(srv, name="bo")
        for _ in range(10):
            a.send({"t": "challenge", "to": "nobody", "clock": BLITZ})
            a.expect_error("no_such_player")
        a.send({"t": "challenge", "to": "bo", "clock": BLITZ})
        a.expect_error("rate_limited")
        b.quiet(0.2)
        self.assertEqual(self.pending(b), ([], []))
        b.request({"t": "challenge", "to": a.pid, "clock": BLITZ},
                  "challenge")

    @not_in_cluster("an open invitation is its node's: in a cluster "
                    "max_games_per_player counts the store's live games")
    def test_accept_respects_the_game_caps(self):
        srv = self.server({"max_games_per_player": 1})
        a = self.client(srv, name="al")
        b = self.client(srv, name="bo")
        # the challenger holds an open invitation: its one game
        a.request({"t": "invite", "clock": BLITZ}, "invited")
        cid = a.request({"t": "challenge", "to": "bo", "clock": BLITZ},
                        "challenge")["challenge"]["id"]
        b.expect("challenge")
        b.send({"t": "challenge_accept", "challenge": cid})
        b.expect_error("too_many_games")
        a.quiet(0.2)
        self.assertEqual(self.pending(b), ([cid], []))
