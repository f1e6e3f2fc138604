"""The chat rooms that are no game's (PROTOCOL.md "Chat"): the lobby's,
off unless the operator sets lobby_chat, read by every lobby watcher and
written by accounts that watch the lobby; a tournament's, read and
written by its watchers. Both: a blocked speaker left out, the room's
limit, the last lines replayed to a late joiner (also after a restart:
stored in room_lines). In a cluster (test_rooms_cluster) the clients
alternate between the nodes: the lobby's lines reach every node's
watchers, all in one order."""
from harness import FreshServerTest, not_in_cluster
from test_chat import no_chat

PASSWORD = "correct horse"
CLOCK = {"type": "fischer", "initial_s": 60, "increment_s": 0}
LOBBY = {"lobby_chat": 1, "chat_per_min": 6000, "chat_burst": 1000}


def say(c, text, **key):
    c.send(dict({"t": "chat", "text": text}, **key))


class RoomsTest(FreshServerTest):
    def account(self, srv, username):
        c = self.client(srv, name=username)
        c.request({"t": "register", "username": username,
                   "password": PASSWORD}, "registered")
        return c

    def on_lobby(self, c):
        c.send({"t": "lobby_watch"})
        c.expect("lobby")
        if self.lobby_chat:  # the room is there, empty
            self.assertEqual(c.expect("chat_history", room="lobby")["lines"],
                             [])
        return c

    lobby_chat = True

    def test_lobby_off_by_default(self):
        self.lobby_chat = False
        srv = self.server()
        a = self.on_lobby(self.account(srv, "alice"))
        say(a, "hello", room="lobby")
        self.assertIn("no chat room", a.expect_error("chat_not_allowed")["msg"])
        no_chat(a)  # no history either: no room
        self.assertEqual(srv.sql("SELECT count(*) FROM room_lines")[0][0], 0)

    def test_lobby_room(self):
        srv = self.server(LOBBY)
        a = self.on_lobby(self.account(srv, "alice"))
        b = self.on_lobby(self.account(srv, "bob"))
        g = self.on_lobby(self.client(srv))  # a guest reads
        say(a, "anyone for a blitz?", room="lobby")
        first = a.expect("chat", room="lobby")  # (two sockets: one order)
        say(b, "me", room="lobby")
        for c in (a, b, g):  # every watcher, in order
            line = first if c is a else c.expect("chat", room="lobby")
            self.assertNotIn("game", line)
            self.assertEqual((line["pid"], line["name"], line["text"]),
                             (a.pid, "alice", "anyone for a blitz?"))
            self.assertEqual(c.expect("chat", room="lobby")["text"], "me")
        say(g, "hi", room="lobby")  # a guest may not write
        self.assertIn("guests", g.expect_error("chat_not_allowed")["msg"])
        away = self.account(srv, "carol")  # not on the lobby page
        say(away, "hi", room="lobby")
        self.assertIn("watch", away.expect_error("chat_not_allowed")["msg"])
        no_chat(away)
        b.request({"t": "block", "to": a.pid}, "blocks")
        say(a, "still there?", room="lobby")
        self.assertEqual(g.expect("chat", room="lobby")["text"],
                         "still there?")
        no_chat(b)  # bob blocked alice
        rows = srv.sql("SELECT room, key, pid, text FROM room_lines "
                       "ORDER BY id")
        self.assertEqual([tuple(r) for r in rows],
                         [("lobby", "lobby", a.pid, "anyone for a blitz?"),
                          ("lobby", "lobby", b.pid, "me"),
                          ("lobby", "lobby", a.pid, "still there?")])
        late = self.client(srv)
        late.send({"t": "lobby_watch"})
        hist = late.expect("chat_history", room="lobby")
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["anyone for a blitz?", "me", "still there?"])
        srv.stop()  # stored: replayed after a restart
        srv2 = self.server(LOBBY)
        late2 = self.client(srv2)
        late2.send({"t": "lobby_watch"})
        hist = late2.expect("chat_history", room="lobby")
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["anyone for a blitz?", "me", "still there?"])

    def test_lobby_room_limit(self):
        # the room takes 1 line a second after a burst of 4, whoever
        # writes; in a cluster (alice and bob on two nodes) the lines of
        # the other node count too
        srv = self.server(dict(LOBBY, chat_room_per_s=1))
        a = self.on_lobby(self.account(srv, "alice"))
        b = self.on_lobby(self.account(srv, "bob"))
        for c in (a, a, b, b):
            say(c, "line", room="lobby")
            for r in (a, b):
                r.expect("chat", room="lobby", pid=c.pid)
        answers = []
        for text in ("x", "y"):  # (within 2 s at most one token came back)
            say(b, text, room="lobby")
            m = b.next()
            while m["t"] not in ("error", "chat"):
                m = b.next()
            answers.append(m.get("code", "chat"))
        self.assertIn("rate_limited", answers)
        n = srv.sql("SELECT count(*) FROM room_lines")[0][0]
        self.assertEqual(n, 4 + answers.count("chat"))

    def test_lobby_history_bounded(self):
        # the store keeps a room's last 500 lines; 50 are replayed
        srv = self.server(dict(LOBBY, chat_room_per_s=10000,
                               msg_rate_per_s=10000, msg_burst=10000))
        a = self.on_lobby(self.account(srv, "alice"))
        for i in range(505):
            say(a, "line %d" % i, room="lobby")
        a.expect("chat", room="lobby", text="line 504", timeout=30)
        self.assertEqual(srv.sql("SELECT count(*) FROM room_lines")[0][0],
                         500)
        self.assertEqual(srv.sql("SELECT count(*) FROM room_lines "
                                 "WHERE text IN ('line 4', 'line 5')"),
                         [(1,)])  # line 4 went, line 5 stays
        late = self.client(srv)
        late.send({"t": "lobby_watch"})
        hist = late.expect("chat_history", room="lobby")
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["line %d" % i for i in range(455, 505)])

    def test_lobby_flood_mutes(self):
        # the player's budget is game chat's: the line past it mutes
        srv = self.server({"lobby_chat": 1, "chat_burst": 2,
                           "chat_per_min": 1})
        a = self.on_lobby(self.account(srv, "alice"))
        for text in ("one", "two"):
            say(a, text, room="lobby")
            a.expect("chat", room="lobby", text=text)
        say(a, "three", room="lobby")
        self.assertIn("muted for", a.expect_error("rate_limited")["msg"])
        self.assertGreater(a.expect("chat_muted")["until"], 0)
        say(a, "four", room="lobby")
        a.expect_error("muted")
        self.assertEqual(srv.sql("SELECT count(*) FROM room_lines")[0][0], 2)
        self.assertIn("event=chat_muted pid=%s room=lobby" % a.pid,
                      srv.log_text())

    @not_in_cluster("a watch on a node that has not heard the event yet "
                    "is not kept (docs/cluster.md): test_arena's "
                    "ClusterArenaTest has an event's room on three nodes")
    def test_event_room(self):
        srv = self.server({"arena_create": 2, "chat_guests": 1})
        a, b, out = self.client(srv), self.client(srv), self.client(srv)
        ev = a.request({"t": "arena_create", "name": "Blitz", "clock": CLOCK,
                        "duration_s": 60, "start_in_s": 600},
                       "arena_created")["arena"]["event"]
        for c in (a, b):
            c.request({"t": "arena_watch", "event": ev}, "arena_standings")
            self.assertEqual(c.expect("chat_history", room="event",
                                      event=ev)["lines"], [])
        say(a, "good luck all", room="event", event=ev)
        for c in (a, b):
            line = c.expect("chat", room="event", event=ev)
            self.assertEqual((line["pid"], line["text"]),
                             (a.pid, "good luck all"))
        no_chat(out)  # not on the event's page
        say(out, "hi", room="event", event=ev)
        self.assertIn("watch", out.expect_error("chat_not_allowed")["msg"])
        say(out, "hi", room="event", event="nosuchevent")
        out.expect_error("no_such_event")
        say(a, "hi", room="event")  # no event
        self.assertEqual(a.expect_error("bad_field")["msg"], "event: missing")
        late = self.client(srv)
        late.send({"t": "arena_watch", "event": ev})
        hist = late.expect("chat_history", room="event", event=ev)
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["good luck all"])
        rows = srv.sql("SELECT room, key, text FROM room_lines")
        self.assertEqual([tuple(r) for r in rows],
                         [("event", ev, "good luck all")])
        # a Swiss event's room alike, apart from the arena's
        sw = a.request({"t": "swiss_create", "name": "Club", "clock": CLOCK,
                        "rounds": 3}, "swiss_created")["swiss"]["event"]
        b.request({"t": "swiss_watch", "event": sw}, "swiss_standings")
        self.assertEqual(b.expect("chat_history", room="event",
                                  event=sw)["lines"], [])
        say(b, "round one soon?", room="event", event=sw)
        self.assertEqual(b.expect("chat", room="event", event=sw)["text"],
                         "round one soon?")
        no_chat(a)  # a is on the arena's page, not the Swiss's
