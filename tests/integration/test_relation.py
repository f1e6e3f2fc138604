"""Blocks and reports (PROTOCOL.md "Blocks and reports"): an account
blocks another by name or PID, lists and unblocks; the block is stored,
read again by a new connection (on any node of a cluster), and keeps the
two apart: no challenge either way, no pairing of their seeks nor accept
of one's seek by the other, the other's seeks left out of the lobby, no chat line of the blocked seen by the
blocker (live or replayed). A report is stored with its reason, text and
lila's score; a player may report a given player once a day and make 20
reports a day; every refusal is its precise error and stores nothing."""
from harness import FISCHER_5_0, FreshServerTest, not_in_cluster

PASSWORD = "correct horse battery"
CLOCK = {"type": "fischer", "initial_s": 300, "increment_s": 3}


class RelationTest(FreshServerTest):
    def account(self, srv, username):
        c = self.client(srv, name=username)
        r = c.request({"t": "register", "username": username,
                       "password": PASSWORD}, "registered")
        c.player, c.token = r["player"], r["token"]
        return c

    def blocks(self, c):
        return [(b["pid"], b["name"])
                for b in c.request({"t": "blocks"}, "blocks")["blocks"]]

    def test_block_list_unblock(self):
        srv = self.server()
        a, b, c = (self.account(srv, n) for n in ("alice", "bob", "carol"))
        r = a.request({"t": "block", "to": "BOB"}, "blocks")
        self.assertEqual([(x["pid"], x["name"]) for x in r["blocks"]],
                         [(b.pid, "bob")])
        self.assertIsInstance(r["blocks"][0]["at"], int)
        a.request({"t": "block", "to": c.pid}, "blocks")  # by PID
        both = sorted([(b.pid, "bob"), (c.pid, "carol")])  # (same ms: by PID)
        self.assertEqual(sorted(self.blocks(a)), both)
        a.request({"t": "block", "to": "bob"}, "blocks")  # again: no change
        # a new connection of alice's (another node in a cluster) reads them
        a2 = self.client(srv, token=a.token)
        self.assertEqual(sorted(self.blocks(a2)), both)
        self.assertEqual(sorted(srv.sql(
            "SELECT pid, blocked FROM blocks ORDER BY blocked")),
            sorted([(a.pid, b.pid), (a.pid, c.pid)]))
        r = a2.request({"t": "unblock", "to": "Carol"}, "blocks")
        self.assertEqual([x["pid"] for x in r["blocks"]], [b.pid])
        self.assertEqual(self.blocks(a), [(b.pid, "bob")])  # told at once
        a3 = self.client(srv, token=a.token)
        self.assertEqual(self.blocks(a3), [(b.pid, "bob")])
        # the errors change nothing
        a.send({"t": "unblock", "to": "carol", "id": 1})
        self.assertIn("not blocked carol",
                      a.expect_error("no_such_player")["msg"])
        a.send({"t": "block", "to": "alice"})
        self.assertIn("yourself", a.expect_error("bad_field")["msg"])
        a.send({"t": "block", "to": "nobody"})
        self.assertIn("no account named nobody",
                      a.expect_error("no_such_player")["msg"])
        g = self.client(srv, name="guest")
        a.send({"t": "block", "to": g.pid})  # a guest is no account
        a.expect_error("no_such_player")
        g.send({"t": "block", "to": "alice"})
        g.expect_error("needs_account")
        g.send({"t": "blocks"})
        g.expect_error("needs_account")
        a.send({"t": "block"})
        a.expect_error("bad_field")
        self.assertEqual(srv.sql("SELECT pid, blocked FROM blocks"),
                         [(a.pid, b.pid)])

    def test_block_stops_challenges_either_way(self):
        srv = self.server()
        a, b = self.account(srv, "alice"), self.account(srv, "bob")
        a.request({"t": "block", "to": "bob"}, "blocks")
        b.send({"t": "challenge", "to": "alice", "clock": CLOCK})
        err = b.expect_error("blocked")
        self.assertEqual(err["msg"], "you cannot challenge alice")
        a.send({"t": "challenge", "to": "bob", "clock": CLOCK})
        self.assertIn("you have blocked bob",
                      a.expect_error("blocked")["msg"])
        self.assertEqual(b.request({"t": "challenges"}, "challenges")["in"],
                         [])
        # a challenge made before the block cannot be accepted after it
        a.request({"t": "unblock", "to": "bob"}, "blocks")
        b.send({"t": "challenge", "to": "alice", "clock": CLOCK})
        cid = a.expect("challenge")["challenge"]["id"]
        a.request({"t": "block", "to": "bob"}, "blocks")
        a.send({"t": "challenge_accept", "challenge": cid})
        a.expect_error("blocked")
        a.request({"t": "unblock", "to": "bob"}, "blocks")
        a.send({"t": "challenge_accept", "challenge": cid})
        self.assertEqual(a.expect("challenge")["challenge"]["status"],
                         "accepted")

    def test_block_keeps_the_lobby_apart(self):
        srv = self.server()
        a, b, c = (self.account(srv, n) for n in ("alice", "bob", "carol"))
        b.request({"t": "block", "to": "alice"}, "blocks")
        for w in (b, c):
            w.send({"t": "lobby_watch"})
            w.expect("lobby")
        sid = a.request({"t": "seek", "clock": CLOCK}, "seeking")["seek"]
        # carol's lobby lists alice's seek; bob's never does
        for _ in range(50):
            if sid in [k["seek"] for k in c.expect("lobby")["seeks"]]:
                break
        else:
            self.fail("carol never saw alice's seek")
        try:
            while True:
                m = b.next(0.5)
                if m["t"] == "lobby":
                    self.assertNotIn(sid, [k["seek"] for k in m["seeks"]])
        except OSError:  # (socket.timeout: nothing more came)
            pass
        b.backlog.clear()
        b.send({"t": "accept", "seek": sid})  # the blocker takes it: no
        self.assertIn("no open seek", b.expect_error("no_such_seek")["msg"])
        a.request({"t": "cancel_seek"}, "seek_cancelled")  # (it was open)
        # two seeks never pair their players apart, whichever blocks (in
        # a cluster too: each seek carries its player's blocks to Redis)
        d = self.account(srv, "dave")
        b.request({"t": "block", "to": "dave"}, "blocks")
        a.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        b.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        c.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        gid = c.expect("game_start")["game"]  # carol meets alice's ...
        a.expect("game_start", game=gid)
        b.quiet(0.3)  # ... never bob's: bob still waits
        d.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        d.quiet(0.3)  # nor does dave meet bob's waiting seek
        for p in (b, d):
            self.assertEqual(srv.sql(
                "SELECT count(*) FROM games WHERE ? IN (white_pid, black_pid)",
                p.pid), [(0,)])

    def test_blocked_player_chat_unseen(self):
        srv = self.server()
        w, b = self.account(srv, "white"), self.account(srv, "black")
        gid = w.request({"t": "invite", "clock": CLOCK, "color": "white"},
                        "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
        s, t = self.account(srv, "sam"), self.account(srv, "troll")
        for c in (s, t):
            c.request({"t": "watch", "game": gid}, "state")
        b.request({"t": "block", "to": "white"}, "blocks")
        s.request({"t": "block", "to": "troll"}, "blocks")
        w.send({"t": "chat", "game": gid, "room": "player", "text": "boo"})
        w.expect("chat", game=gid, text="boo")
        b.send({"t": "chat", "game": gid, "room": "player", "text": "hi"})
        # black never sees white's line: its next chat is its own
        self.assertEqual(b.expect("chat", game=gid)["text"], "hi")
        w.expect("chat", game=gid, text="hi")
        t.send({"t": "chat", "game": gid, "room": "spectator",
                "text": "spam"})
        t.expect("chat", game=gid, text="spam")
        s.send({"t": "chat", "game": gid, "room": "spectator",
                "text": "nice"})
        self.assertEqual(s.expect("chat", game=gid)["text"], "nice")
        t.expect("chat", game=gid, text="nice")
        # a late joiner's replay leaves the blocked out too
        s2 = self.client(srv, token=s.token)
        s2.request({"t": "watch", "game": gid}, "state")
        hist = s2.expect("chat_history", game=gid, room="spectator")
        self.assertEqual([x["text"] for x in hist["lines"]], ["nice"])
        b.send({"t": "sync", "game": gid})
        hist = b.expect("chat_history", game=gid, room="player")
        self.assertEqual([x["text"] for x in hist["lines"]], ["hi"])
        # unblocked, the lines come again
        b.request({"t": "unblock", "to": "white"}, "blocks")
        w.send({"t": "chat", "game": gid, "room": "player", "text": "gl"})
        b.expect("chat", game=gid, text="gl")

    def test_report_once_a_day_and_the_caps(self):
        srv = self.server()
        a, b, c = (self.account(srv, n) for n in ("alice", "bob", "carol"))
        r = a.request({"t": "report", "to": "bob", "reason": "cheat",
                       "text": "engine moves, 3 s each \u265e"}, "reported")
        self.assertEqual((r["pid"], r["name"], r["reason"]),
                         (b.pid, "bob", "cheat"))
        c.request({"t": "report", "to": b.pid, "reason": "username",
                   "text": "rude name"}, "reported")
        self.assertEqual(sorted(srv.sql(
            "SELECT reporter, suspect, reason, text, score FROM reports")),
            sorted([(a.pid, b.pid, "cheat", "engine moves, 3 s each \u265e",
                     20),
                    (c.pid, b.pid, "username", "rude name", 50)]))
        # once a day per player, whatever the reason
        a.send({"t": "report", "to": "BOB", "reason": "abuse",
                "text": "and insults"})
        self.assertIn("once a day",
                      a.expect_error("already_reported")["msg"])
        # the errors, each precise
        bad = [({"to": "alice", "reason": "cheat", "text": "me"},
                "bad_field", "yourself"),
               ({"to": "carol", "reason": "rude", "text": "x"},
                "bad_field", "reason"),
               ({"to": "carol", "reason": "spam", "text": "x" * 501},
                "bad_field", "500"),
               ({"to": "carol", "reason": "spam", "text": "a\u0007b"},
                "bad_field", "control"),
               ({"to": "carol", "reason": "spam", "text": "   "},
                "bad_field", "empty"),
               ({"to": "carol", "reason": "spam"}, "bad_field", "text"),
               ({"to": "nobody", "reason": "spam", "text": "x"},
                "no_such_player", "nobody")]
        for fields, code, words in bad:
            a.send(dict(fields, t="report"))
            self.assertIn(words, a.expect_error(code)["msg"], fields)
        g = self.client(srv, name="guest")
        g.send({"t": "report", "to": "bob", "reason": "spam", "text": "x"})
        g.expect_error("needs_account")
        self.assertEqual(srv.sql("SELECT count(*) FROM reports"), [(2,)])
        # 20 a day: alice's day already holds 19 others
        for i in range(19):
            srv.sql("INSERT INTO reports (reporter, suspect, reason, text, "
                    "score, at_ms) VALUES (?, ?, 'other', 'x', 20, ?)",
                    a.pid, c.pid, r_at(srv, a.pid))
        d = self.account(srv, "dave")
        a.send({"t": "report", "to": "dave", "reason": "spam", "text": "x"})
        self.assertIn("20 reports", a.expect_error("rate_limited")["msg"])
        self.assertEqual(srv.sql(
            "SELECT count(*) FROM reports WHERE suspect = ?", d.pid), [(0,)])

    def test_a_report_committed_during_the_next_read_counts_once(self):
        """20 a day, reached at 20: alice's day holds 18 reports, then two
        sent at once. The second's read of her day waits on the reader
        (CHESS_TEST_REPORT_COUNT_MS) while the first's write commits, and
        finds its row: the first, made here after the read began, counts
        once (not again as a report the read may not have seen), so the
        second is made too, and a third is refused at 20."""
        srv = self.server(env={"CHESS_TEST_CLOCK_MS": "0",
                               "CHESS_TEST_REPORT_COUNT_MS": "500"})
        a, _, c, d, e, f = (self.account(srv, n) for n in
                            ("alice", "bob", "carol", "dave", "erin", "fay"))
        a.request({"t": "report", "to": "bob", "reason": "cheat",
                   "text": "x"}, "reported")
        for _ in range(17):
            srv.sql("INSERT INTO reports (reporter, suspect, reason, text, "
                    "score, at_ms) VALUES (?, ?, 'other', 'x', 20, ?)",
                    a.pid, f.pid, r_at(srv, a.pid))
        a.send({"t": "report", "to": "carol", "reason": "spam", "text": "x",
                "id": 1})
        a.send({"t": "report", "to": "dave", "reason": "spam", "text": "x",
                "id": 2})
        got = []
        while len(got) < 2:
            m = a.next(timeout=5)
            if "id" in m:
                got.append((m["t"], m["id"], m.get("pid", m.get("code"))))
        self.assertEqual(got, [("reported", 1, c.pid), ("reported", 2, d.pid)])
        self.assertEqual(srv.sql(
            "SELECT count(*) FROM reports WHERE reporter = ?", a.pid),
            [(20,)])
        a.send({"t": "report", "to": "erin", "reason": "spam", "text": "x"})
        self.assertIn("20 reports", a.expect_error("rate_limited")["msg"])
        a.send({"t": "report", "to": "dave", "reason": "spam", "text": "x"})
        self.assertIn("once a day",
                      a.expect_error("already_reported")["msg"])
        self.assertEqual(srv.sql(
            "SELECT count(*) FROM reports WHERE suspect = ?", e.pid), [(0,)])


def r_at(srv, pid):
    """The time of pid's stored report (one made now, for the day)."""
    return srv.sql("SELECT max(at_ms) FROM reports WHERE reporter = ?",
                   pid)[0][0]

