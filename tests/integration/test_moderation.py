"""Moderators (PROTOCOL.md "Moderation"): the operator grants the role
with `chess-server mod grant` beside the running server; a moderator
reads the report queue (worst first) and acts on an account: warn (the
player told the moderator's text), mute for a time (chat lines refused
with the mute's end, the player told), unmute, close the reports. Each
action is a row of mod_actions and a log line; anyone else gets
not_moderator and nothing is stored."""
from harness import (CLUSTER, FISCHER_5_0, Closed, FreshServerTest,
                     not_in_cluster, wait_until)

PASSWORD = "correct horse battery"


class ModerationTest(FreshServerTest):
    def account(self, srv, username):
        c = self.client(srv, name=username)
        r = c.request({"t": "register", "username": username,
                       "password": PASSWORD}, "registered")
        c.player, c.token = r["player"], r["token"]
        return c

    def game(self, w, b):
        gid = w.request({"t": "invite", "clock": FISCHER_5_0,
                         "color": "white"}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
        return gid

    def test_role_queue_and_actions(self):
        srv = self.server()
        m, bob, carol = (self.account(srv, n)
                         for n in ("Mona", "bob", "carol"))
        carol.request({"t": "report", "to": "bob", "reason": "spam",
                       "text": "links every move"}, "reported")
        carol.request({"t": "report", "to": "mona", "reason": "username",
                       "text": "rude name"}, "reported")
        # nobody is a moderator yet: a precise error, nothing stored
        for c in (m, bob):
            c.send({"t": "mod_reports"})
            self.assertIn("only a moderator", c.expect_error(
                "not_moderator")["msg"])
        m.send({"t": "mod_action", "to": "bob", "action": "warn",
                "text": "stop"})
        m.expect_error("not_moderator")
        g = self.client(srv)
        g.send({"t": "mod_reports"})
        g.expect_error("not_moderator")
        self.assertEqual(srv.sql("SELECT count(*) FROM mod_actions"), [(0,)])
        # the CLI: an unknown user is exit 2, then a grant, listed
        rc, out, err = self.mod(srv, "grant", "nobody")
        self.assertEqual((rc, out), (2, ""))
        self.assertIn("no account named 'nobody'", err)
        rc, out, err = self.mod(srv, "grant", "mona")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.mod(srv, "list")[:2], (0, "Mona\n"))
        # read with the account's facts: a new connection's welcome says so
        m2 = self.client(srv, token=m.token)
        self.assertIs(m2.player.get("moderator"), True)
        self.assertNotIn("moderator", bob.player)
        # the queue, worst first (a username's report scores 50)
        q = m.request({"t": "mod_reports"}, "mod_reports")["reports"]
        self.assertEqual([(x["pid"], x["name"], x["reason"], x["score"],
                           x["atoms"]) for x in q],
                         [(m.pid, "Mona", "username", 50, 1),
                          (bob.pid, "bob", "spam", 20, 1)])
        self.assertIsInstance(q[0]["last"], int)
        self.assertEqual([(t["by"], t["text"]) for t in q[1]["texts"]],
                         [("carol", "links every move")])
        self.assertIsInstance(q[1]["texts"][0]["at"], int)
        # warn: the player is told the moderator's text
        r = m.request({"t": "mod_action", "to": "BOB", "action": "warn",
                       "text": "no links, please"}, "mod_done")
        self.assertEqual((r["action"], r["pid"], r["name"], r["until"]),
                         ("warn", bob.pid, "bob", None))
        n = bob.expect("mod_notice")
        self.assertEqual((n["action"], n["text"], n["by"], n["until"]),
                         ("warn", "no links, please", "Mona", None))
        # mute: chat lines refused with the mute's end, the player told
        gid = self.game(bob, carol)
        r = m.request({"t": "mod_action", "to": bob.pid, "action": "mute",
                       "duration_s": 600, "text": "cool off"}, "mod_done")
        until = r["until"]
        self.assertEqual(bob.expect("mod_notice", action="mute")["until"],
                         until)
        bob.send({"t": "chat", "game": gid, "room": "player",
                  "text": "hello"})
        e = bob.expect_error("muted")
        self.assertRegex(e["msg"], r"muted by a moderator until "
                         r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")
        self.assertEqual(bob.expect("chat_muted")["until"], until)
        # a mute needs its length
        m.send({"t": "mod_action", "to": "bob", "action": "mute",
                "text": "x"})
        self.assertIn("duration_s", m.expect_error("bad_field")["msg"])
        m.send({"t": "mod_action", "to": "bob", "action": "ban",
                "text": "x"})
        self.assertIn("warn, mute, unmute, close, engine, unengine, "
                      "close_account, reopen_account or disconnect",
                      m.expect_error("bad_field")["msg"])
        # unmute: the lines go again
        m.request({"t": "mod_action", "to": "bob", "action": "unmute",
                   "text": "ok"}, "mod_done")
        bob.expect("mod_notice", action="unmute")
        bob.send({"t": "chat", "game": gid, "room": "player",
                  "text": "sorry"})
        self.assertEqual(carol.expect("chat", game=gid)["text"], "sorry")
        # close: bob's spam report leaves the queue
        m.request({"t": "mod_action", "to": "bob", "action": "close",
                   "reason": "spam", "text": "dealt with"}, "mod_done")
        q = m.request({"t": "mod_reports"}, "mod_reports")["reports"]
        self.assertEqual([x["pid"] for x in q], [m.pid])
        # every action stored (who, on whom, what, why) and logged
        self.assertEqual(
            srv.sql("SELECT moderator, target, action, reason, text "
                    "FROM mod_actions ORDER BY id"),
            [(m.pid, bob.pid, "warn", "", "no links, please"),
             (m.pid, bob.pid, "mute", "", "cool off"),
             (m.pid, bob.pid, "unmute", "", "ok"),
             (m.pid, bob.pid, "close", "spam", "dealt with")])
        wait_until(lambda: "event=mod_action moderator=%s target=%s "
                   "action=close reason=spam" % (m.pid, bob.pid)
                   in srv.log_text(), "the log line")
        # revoked: refused at once
        self.assertEqual(self.mod(srv, "revoke", "Mona")[0], 0)
        m.send({"t": "mod_reports"})
        m.expect_error("not_moderator")
        self.assertEqual(self.mod(srv, "list")[:2], (0, ""))

    def test_unknown_target_and_the_cap(self):
        srv = self.server()
        m, bob = self.account(srv, "mona"), self.account(srv, "bob")
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        m.send({"t": "mod_action", "to": "nobody", "action": "warn",
                "text": "x"})
        self.assertIn("no account named nobody",
                      m.expect_error("no_such_player")["msg"])
        m.send({"t": "mod_action", "to": "bob", "action": "warn",
                "text": ""})
        m.expect_error("bad_field")
        # 10 at once per account, moderator or not, then rate_limited
        for _ in range(10):
            bob.send({"t": "mod_reports"})
            bob.expect_error("not_moderator")
        bob.send({"t": "mod_reports"})
        self.assertIn("too many moderation commands",
                      bob.expect_error("rate_limited")["msg"])
        self.assertEqual(srv.sql("SELECT count(*) FROM mod_actions"), [(0,)])

    def closed(self, c):
        """The close code of c's connection, past what came before it."""
        while True:
            try:
                c.next()
            except Closed as e:
                return e.code

    def test_not_on_your_own_account(self):
        srv = self.server()
        m = self.account(srv, "mona")
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        for to in ("MONA", m.pid):
            m.send({"t": "mod_action", "to": to, "action": "mute",
                    "duration_s": 60, "text": "x"})
            self.assertIn("a moderator may not act on their own account",
                          m.expect_error("bad_field")["msg"])
        self.assertEqual(srv.sql("SELECT count(*) FROM mod_actions"), [(0,)])

    def test_engine_mark_and_its_reversal(self):
        srv = self.server()
        m, bob, carol = (self.account(srv, n)
                         for n in ("mona", "bob", "carol"))
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        srv.sql("INSERT INTO ratings (pid, category, rating, rd, volatility, "
                "games, wins, draws, losses, last_ms) VALUES "
                "(?, 'blitz', 1700, 60, 0.06, 30, 15, 0, 15, 1)", bob.pid)

        def board():
            return [p["name"] for p in
                    srv.http_json("/api/leaderboard/blitz")[1]["players"]]

        def rated():
            gid = bob.request({"t": "invite", "clock": FISCHER_5_0,
                               "color": "white", "rated": True},
                              "invited")["game"]
            carol.send({"t": "join", "game": gid})
            start = carol.expect("game_start", game=gid)
            for c in (bob, carol):
                c.expect("state", game=gid)
            bob.send({"t": "abort", "game": gid})
            for c in (bob, carol):
                c.expect("game_end", game=gid)
            return start["rated"]

        self.assertEqual(board(), ["bob"])
        m.request({"t": "mod_action", "to": "bob", "action": "engine",
                   "text": "engine moves"}, "mod_done")
        n = bob.expect("mod_notice", action="engine")
        self.assertEqual((n["text"], n["by"]), ("engine moves", "mona"))
        self.assertEqual(board(), [])
        self.assertIs(rated(), False)
        m.request({"t": "mod_action", "to": "bob", "action": "unengine",
                   "text": "appeal granted"}, "mod_done")
        bob.expect("mod_notice", action="unengine")
        self.assertEqual(board(), ["bob"])
        self.assertIs(rated(), True)
        self.assertEqual(srv.sql("SELECT action, text FROM mod_actions "
                                 "ORDER BY id"),
                         [("engine", "engine moves"),
                          ("unengine", "appeal granted")])
        wait_until(lambda: "action=unengine reason=- until_ms=0 at_ms="
                   in srv.log_text() and 'why="appeal granted"'
                   in srv.log_text(), "the log line")

    def test_disconnect_and_close_account(self):
        srv = self.server()
        m, bob = self.account(srv, "mona"), self.account(srv, "bob")
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        # every connection of the player (on every node of a cluster)
        token = bob.token
        bob2 = self.client(srv, token=token)
        m.request({"t": "mod_action", "to": "bob", "action": "disconnect",
                   "text": "reconnect, please"}, "mod_done")
        for c in (bob, bob2):
            c.expect("mod_notice", action="disconnect")
            self.assertEqual(self.closed(c), 1008)
        # it may come back; a close ends it and its tokens
        bob = self.client(srv, token=token)
        bob2 = self.client(srv, token=token)
        m.request({"t": "mod_action", "to": "bob", "action": "close_account",
                   "text": "abuse"}, "mod_done")
        for c in (bob, bob2):
            self.assertEqual(c.expect("mod_notice",
                                      action="close_account")["text"],
                             "abuse")
            self.assertEqual(self.closed(c), 1008)
        c = self.client(srv)
        c.send({"t": "login", "username": "bob", "password": PASSWORD})
        self.assertEqual(c.expect_error("account_closed")["msg"],
                         "this account was closed by a moderator")
        c = self.client(srv, hello=False)
        c.send({"t": "hello", "token": token})
        self.assertIn("unknown token", c.expect_error("bad_token")["msg"])
        # reopened: it logs in again
        m.request({"t": "mod_action", "to": bob.pid,
                   "action": "reopen_account", "text": "appeal"}, "mod_done")
        c = self.client(srv)
        w = c.request({"t": "login", "username": "bob",
                       "password": PASSWORD}, "welcome")
        self.assertEqual(w["player"]["id"], bob.pid)
        self.assertEqual(srv.sql("SELECT action FROM mod_actions ORDER BY id"),
                         [("disconnect",), ("close_account",),
                          ("reopen_account",)])

    def test_player_history(self):
        srv = self.server()
        m, bob, carol = (self.account(srv, n)
                         for n in ("mona", "bob", "carol"))
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        gid = self.game(bob, carol)
        for text in ("hi", "spam spam"):
            bob.send({"t": "chat", "game": gid, "room": "player",
                      "text": text})
            carol.expect("chat", text=text)
        carol.send({"t": "mod_player", "to": "bob"})
        carol.expect_error("not_moderator")
        m.send({"t": "mod_player", "to": "nobody"})
        m.expect_error("no_such_player")
        m.request({"t": "mod_action", "to": "bob", "action": "warn",
                   "text": "no spam"}, "mod_done")
        until = m.request({"t": "mod_action", "to": "bob", "action": "mute",
                           "duration_s": 600, "text": "cool off"},
                          "mod_done")["until"]
        r = m.request({"t": "mod_player", "to": "BOB"}, "mod_player")
        self.assertEqual((r["pid"], r["name"], r["muted_until"], r["engine"],
                          r["closed"]), (bob.pid, "bob", until, False, False))
        self.assertEqual([(c["game"], c["room"], c["text"])
                          for c in r["chat"]],
                         [(gid, "player", "spam spam"),
                          (gid, "player", "hi")])
        self.assertEqual([(a["action"], a["by"], a["text"], a["until"])
                          for a in r["actions"]],
                         [("mute", "mona", "cool off", until),
                          ("warn", "mona", "no spam", None)])
        self.assertIsInstance(r["actions"][0]["at"], int)

    def test_chat_line_deleted(self):
        srv = self.server()
        m, bob, carol = (self.account(srv, n)
                         for n in ("mona", "bob", "carol"))
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        gid = self.game(bob, carol)
        for text in ("buy my links", "good luck"):
            bob.send({"t": "chat", "game": gid, "room": "player",
                      "text": text})
        line = carol.expect("chat", text="buy my links")
        carol.expect("chat", text="good luck")
        bad = {"t": "mod_chat_delete", "game": gid, "room": "player",
               "to": "bob", "at": line["at"], "text": "spam"}
        carol.send(bad)
        carol.expect_error("not_moderator")
        m.send(dict(bad, at=-1))
        self.assertIn("at:", m.expect_error("bad_field")["msg"])
        r = m.request(bad, "mod_done")
        self.assertEqual((r["action"], r["pid"]), ("chat_delete", bob.pid))
        # gone from the room for everyone: its new history, live ...
        for c in (bob, carol):
            h = c.expect("chat_history", game=gid, room="player")
            self.assertEqual([x["text"] for x in h["lines"]], ["good luck"])
        self.assertEqual(bob.expect("mod_notice",
                                    action="chat_delete")["text"], "spam")
        # ... and replayed (a connection of carol's that syncs the game)
        carol2 = self.client(srv, token=carol.token)
        carol2.send({"t": "sync", "game": gid})
        h = carol2.expect("chat_history", game=gid, room="player")
        self.assertEqual([x["text"] for x in h["lines"]], ["good luck"])
        self.assertEqual(srv.sql("SELECT text FROM chat_lines "
                                 "WHERE gid = ?", gid), [("good luck",)])
        self.assertEqual(srv.sql("SELECT action, game, room, line_ms "
                                 "FROM mod_actions"),
                         [("chat_delete", gid, "player", line["at"])])

    def test_room_lines_deleted(self):
        """The lobby's and an event's rooms: a line deleted by a moderator
        leaves every watcher's room (in a cluster, every node's), the
        stored lines and the replay; the player's file lists such lines
        by room."""
        srv = self.server({"lobby_chat": 1, "arena_create": 2})
        m, bob, carol = (self.account(srv, n)
                         for n in ("mona", "bob", "carol"))
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        for c in (bob, carol):
            c.send({"t": "lobby_watch"})
            c.expect("chat_history", room="lobby")
        for text in ("buy my links", "good luck"):
            bob.send({"t": "chat", "room": "lobby", "text": text})
        line = carol.expect("chat", room="lobby", text="buy my links")
        carol.expect("chat", room="lobby", text="good luck")
        r = m.request({"t": "mod_player", "to": "bob"}, "mod_player")
        self.assertEqual([(x["room"], x["text"], x.get("game"))
                          for x in r["chat"]],
                         [("lobby", "good luck", None),
                          ("lobby", "buy my links", None)])
        bad = {"t": "mod_chat_delete", "room": "lobby", "to": "bob",
               "at": line["at"], "text": "spam"}
        m.send(dict(bad, game="g1"))
        self.assertEqual(m.expect_error("bad_field")["msg"],
                         "game: not in this room")
        r = m.request(bad, "mod_done")
        self.assertEqual((r["action"], r["pid"]), ("chat_delete", bob.pid))
        for c in (bob, carol):  # gone for every watcher, on every node
            h = c.expect("chat_history", room="lobby")
            self.assertEqual([x["text"] for x in h["lines"]], ["good luck"])
        # a late joiner (in a cluster on the moderator's node, where the
        # room was first read when its first line was heard)
        late = self.client(srv)
        late.send({"t": "lobby_watch"})
        h = late.expect("chat_history", room="lobby")
        self.assertEqual([x["text"] for x in h["lines"]], ["good luck"])
        self.assertEqual(srv.sql("SELECT text FROM room_lines"),
                         [("good luck",)])
        self.assertEqual(srv.sql("SELECT action, game, room, line_ms "
                                 "FROM mod_actions"),
                         [("chat_delete", "lobby", "lobby", line["at"])])
        # an event's room alike, named by event (in a cluster the event
        # is bob's node's, the moderator's delete another node's)
        ev = bob.request({"t": "arena_create", "name": "Blitz",
                          "clock": FISCHER_5_0, "duration_s": 60,
                          "start_in_s": 600}, "arena_created")
        ev = ev["arena"]["event"]
        bob.request({"t": "arena_watch", "event": ev}, "arena_standings")
        bob.expect("chat_history", room="event", event=ev)
        bob.send({"t": "chat", "room": "event", "event": ev, "text": "gl"})
        line = bob.expect("chat", room="event", event=ev)
        r = m.request({"t": "mod_player", "to": "bob"}, "mod_player")
        self.assertEqual((r["chat"][0]["room"], r["chat"][0]["event"]),
                         ("event", ev))
        m.request({"t": "mod_chat_delete", "room": "event", "event": ev,
                   "to": "bob", "at": line["at"], "text": "spam"},
                  "mod_done")
        h = bob.expect("chat_history", room="event", event=ev)
        self.assertEqual(h["lines"], [])
        self.assertEqual(srv.sql("SELECT count(*) FROM room_lines "
                                 "WHERE room = 'event'")[0][0], 0)

    def test_game_adjudicated_and_aborted(self):
        srv = self.server()
        m, bob, carol = (self.account(srv, n)
                         for n in ("mona", "bob", "carol"))
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        gid = bob.request({"t": "invite", "clock": FISCHER_5_0,
                           "color": "white", "rated": True},
                          "invited")["game"]
        carol.send({"t": "join", "game": gid})
        for c in (bob, carol):
            c.expect("state", game=gid)
        bob.move(gid, "e2e4", 0)
        carol.expect("moved", game=gid)
        carol.move(gid, "e7e5", 1)
        bob.expect("moved", game=gid, ply=1)
        fan = self.client(srv)
        fan.request({"t": "watch", "game": gid}, "state")
        order = {"t": "mod_game", "game": gid, "result": "0-1",
                 "text": "engine use"}
        carol.send(order)
        carol.expect_error("not_moderator")
        m.send(dict(order, result="2-0"))
        self.assertIn("result:", m.expect_error("bad_field")["msg"])
        r = m.request(order, "mod_done")
        self.assertEqual((r["action"], r["pid"]), ("game_end", None))
        # both players and the spectators told; rated as any end
        for c in (bob, carol, fan):
            end = c.expect("game_end", game=gid)
            self.assertEqual((end["result"], end["reason"]),
                             ("0-1", "adjudicated"))
        self.assertLess(end["ratings"]["white"]["after"],
                        end["ratings"]["white"]["before"])
        wait_until(lambda: srv.sql("SELECT count(*) FROM ratings") == [(2,)],
                   "the ratings stored")
        m.send(order)  # over: nothing more to do
        self.assertIn("not in play", m.expect_error("game_over")["msg"])
        # aborted: no result, no rating
        gid2 = self.game(bob, carol)
        bob.move(gid2, "d2d4", 0)
        carol.expect("moved", game=gid2)
        m.request({"t": "mod_game", "game": gid2, "result": "*",
                   "text": "server trouble"}, "mod_done")
        for c in (bob, carol):
            end = c.expect("game_end", game=gid2)
            self.assertEqual((end["result"], end["reason"]),
                             ("*", "aborted"))
        self.assertEqual(srv.sql("SELECT action, reason, game, text "
                                 "FROM mod_actions ORDER BY id"),
                         [("game_end", "0-1", gid, "engine use"),
                          ("game_end", "*", gid2, "server trouble")])
        wait_until(lambda: "action=game_end reason=0-1 game=%s" % gid
                   in srv.log_text(), "the log line")

    def test_maintenance_banner(self):
        srv = self.server()
        m, bob = self.account(srv, "mona"), self.account(srv, "bob")
        guest = self.client(srv)
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        bob.send({"t": "mod_maintenance", "start_in_s": 60, "text": "x"})
        bob.expect_error("not_moderator")
        for bad, word in (({"start_in_s": -1, "text": "x"}, "start_in_s"),
                          ({"start_in_s": 60}, "text")):
            m.send(dict({"t": "mod_maintenance"}, **bad))
            self.assertIn(word, m.expect_error("bad_field")["msg"])
        self.assertEqual(srv.sql("SELECT count(*) FROM mod_actions"), [(0,)])
        # every connection (on every node), the moderator's too
        r = m.request({"t": "mod_maintenance", "start_in_s": 600,
                       "text": "restart for an upgrade"}, "mod_done")
        self.assertEqual((r["action"], r["pid"], r["name"]),
                         ("maintenance", None, None))
        at = r["until"]
        for c in (m, bob, guest):
            n = c.expect("maintenance")
            self.assertEqual((n["at"], n["text"], n["by"]),
                             (at, "restart for an upgrade", "mona"))
        # a late joiner, until it passes
        late = self.client(srv)
        self.assertEqual(late.expect("maintenance")["at"], at)
        # cancelled: told, and no longer shown
        m.request({"t": "mod_maintenance", "text": "postponed"}, "mod_done")
        for c in (m, bob, guest, late):
            n = c.expect("maintenance")
            self.assertEqual((n["at"], n["text"]), (None, "postponed"))
        self.client(srv).quiet(0.3)
        self.assertEqual(srv.sql("SELECT moderator, coalesce(target, '-'), "
                                 "action, text FROM mod_actions "
                                 "ORDER BY id"),
                         [(m.pid, "-", "maintenance",
                           "restart for an upgrade"),
                          (m.pid, "-", "maintenance_cancel", "postponed")])
        wait_until(lambda: "target=- action=maintenance_cancel"
                   in srv.log_text(), "the log line")

    @not_in_cluster("a restart of the one process")
    def test_mute_outlives_a_restart(self):
        srv = self.server()
        m, bob, carol = (self.account(srv, n)
                         for n in ("mona", "bob", "carol"))
        self.assertEqual(self.mod(srv, "grant", "mona")[0], 0)
        until = m.request({"t": "mod_action", "to": "bob", "action": "mute",
                           "duration_s": 3600, "text": "cool off"},
                          "mod_done")["until"]
        # and a maintenance announced before shows after
        at = m.request({"t": "mod_maintenance", "start_in_s": 3600,
                        "text": "upgrade"}, "mod_done")["until"]
        srv.kill()
        srv2 = self.server()
        self.assertEqual(self.client(srv2).expect("maintenance")["at"], at)
        bob2 = self.client(srv2, token=bob.token)
        carol2 = self.client(srv2, token=carol.token)
        gid = self.game(bob2, carol2)
        bob2.send({"t": "chat", "game": gid, "room": "player", "text": "hi"})
        bob2.expect_error("muted")
        self.assertEqual(bob2.expect("chat_muted")["until"], until)
