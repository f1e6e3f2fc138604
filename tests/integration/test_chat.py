"""Chat (PROTOCOL.md "Chat"): a game's players' room and spectators'
room kept apart, every connection of the room getting each line in
order; who may write where; the last 50 lines replayed to a late joiner,
also after a restart; guests refused by default; a flood answered
rate_limited, then muted with the mute's end told; chat off in the
settings; empty, too long, control-character and invalid UTF-8 lines
refused with their precise error and nothing stored."""
import socket

from harness import FISCHER_5_0, FreshServerTest
from wsclient import OP_TEXT

PASSWORD = "correct horse"
OPEN = {"chat_guests": 1, "chat_per_min": 6000, "chat_burst": 1000,
        "chat_room_per_s": 1000}


def say(c, gid, room, text):
    c.send({"t": "chat", "game": gid, "room": room, "text": text})


def no_chat(c, timeout=0.3):
    """Asserts no chat line nor history reaches c within timeout (other
    messages, as a watcher count, may)."""
    for m in c.backlog:
        assert m["t"] not in ("chat", "chat_history"), m
    try:
        while True:
            m = c._next(timeout)
            assert m["t"] not in ("chat", "chat_history"), m
    except socket.timeout:
        pass


class ChatTest(FreshServerTest):
    def watcher(self, srv, gid):
        s = self.client(srv)
        s.request({"t": "watch", "game": gid}, "state")
        return s

    def test_rooms_are_apart(self):
        srv = self.server(OPEN)
        w, b, gid = self.start_game(srv)
        w2 = self.client(srv, token=w.token)  # white's second connection
        s, t = self.watcher(srv, gid), self.watcher(srv, gid)
        say(w, gid, "player", "good luck")
        say(w, gid, "player", "have fun")
        for c in (w, w2, b):  # every connection of the room, in order
            line = c.expect("chat", game=gid)
            self.assertEqual((line["room"], line["pid"], line["name"],
                              line["text"]),
                             ("player", w.pid, w.player["name"], "good luck"))
            self.assertIsInstance(line["at"], int)
            self.assertEqual(c.expect("chat", game=gid)["text"], "have fun")
        say(s, gid, "spectator", "e4 is best by test <b>")
        for c in (s, t):
            line = c.expect("chat", game=gid)
            self.assertEqual((line["room"], line["pid"], line["text"]),
                             ("spectator", s.pid, "e4 is best by test <b>"))
        for c in (w, w2, b):  # the players do not hear the spectators ...
            no_chat(c)
        for c in (s, t):  # ... nor the spectators the players
            no_chat(c)
        say(s, gid, "player", "hi")  # a spectator in the players' room
        self.assertIn("players", s.expect_error("not_a_player")["msg"])
        say(w, gid, "spectator", "hi")  # a player in the spectators'
        w.expect_error("chat_not_allowed")
        u = self.client(srv)  # not watching
        say(u, gid, "spectator", "hi")
        self.assertIn("watch", u.expect_error("chat_not_allowed")["msg"])
        rows = srv.sql("SELECT room, pid, text FROM chat_lines "
                       "WHERE gid = ? ORDER BY id", gid)
        self.assertEqual([tuple(r) for r in rows],
                         [("player", w.pid, "good luck"),
                          ("player", w.pid, "have fun"),
                          ("spectator", s.pid, "e4 is best by test <b>")])
        # once the game is over its players read the spectators' room
        w.send({"t": "resign", "game": gid})
        hist = b.expect("chat_history", game=gid, room="spectator")
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["e4 is best by test <b>"])
        say(t, gid, "spectator", "gg")
        self.assertEqual(t.expect("chat", game=gid)["text"], "gg")
        self.assertEqual(b.expect("chat", game=gid, room="spectator")
                         ["text"], "gg")
        say(b, gid, "player", "thanks for the game")  # after the end too
        for c in (w, w2, b):
            c.expect("chat", game=gid, room="player",
                     text="thanks for the game")
        no_chat(t)

    def test_last_50_replayed_and_kept_across_a_restart(self):
        srv = self.server(OPEN)
        w, b, gid = self.start_game(srv)
        s = self.watcher(srv, gid)
        for i in range(55):
            say(w, gid, "player", "line %d" % i)
        for i in range(55):
            b.expect("chat", game=gid, text="line %d" % i)
        say(s, gid, "spectator", "from the stands")
        s.expect("chat", game=gid, text="from the stands")
        late = self.client(srv)
        late.send({"t": "watch", "game": gid})
        late.expect("state", game=gid)
        hist = late.expect("chat_history", game=gid)
        self.assertEqual(hist["room"], "spectator")  # never the players'
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["from the stands"])
        no_chat(late)
        b.send({"t": "sync", "game": gid})
        b.expect("state", game=gid)
        hist = b.expect("chat_history", game=gid, room="player")
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["line %d" % i for i in range(5, 55)])
        no_chat(b)  # no spectators' room while the game is on
        srv.stop()
        srv2 = self.server(OPEN)
        b2 = self.client(srv2, token=b.token)
        b2.send({"t": "sync", "game": gid})
        b2.expect("state", game=gid)
        hist = b2.expect("chat_history", game=gid, room="player")
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["line %d" % i for i in range(5, 55)])
        self.assertEqual(hist["lines"][-1]["pid"], w.pid)
        late2 = self.client(srv2)
        late2.send({"t": "watch", "game": gid})
        hist = late2.expect("chat_history", game=gid, room="spectator")
        self.assertEqual([x["text"] for x in hist["lines"]],
                         ["from the stands"])

    def test_guests_refused_by_default(self):
        srv = self.server()
        w, b, gid = self.start_game(srv)
        say(w, gid, "player", "hello")
        self.assertIn("guests", w.expect_error("chat_not_allowed")["msg"])
        no_chat(b)
        a = self.client(srv, name="alice")
        a.request({"t": "register", "username": "alice",
                   "password": PASSWORD}, "registered")
        gid2 = a.request({"t": "invite", "clock": FISCHER_5_0,
            "color": "white"}, "invited")["game"]
        b.send({"t": "join", "game": gid2})
        a.expect("state", game=gid2)
        say(a, gid2, "player", "accounts may")
        self.assertEqual(b.expect("chat", game=gid2)["text"], "accounts may")
        self.assertEqual(srv.sql("SELECT count(*) FROM chat_lines")[0][0], 1)

    def test_flood_is_rate_limited_then_muted(self):
        srv = self.server({"chat_guests": 1, "chat_per_min": 6,
                           "chat_burst": 3, "chat_mute_s": 120})
        w, b, gid = self.start_game(srv)
        for i in range(3):
            say(w, gid, "player", "spam %d" % i)
            w.expect("chat", game=gid, text="spam %d" % i)
        say(w, gid, "player", "spam 3")
        err = w.expect_error("rate_limited")
        self.assertIn("muted for 120 s", err["msg"])
        until = w.expect("chat_muted")["until"]
        now_ms = int(srv.sql("SELECT max(at_ms) FROM chat_lines")[0][0])
        self.assertTrue(now_ms + 115000 < until < now_ms + 125000, until)
        say(w, gid, "player", "spam 4")
        self.assertIn("left", w.expect_error("muted")["msg"])
        self.assertEqual(w.expect("chat_muted")["until"], until)
        for i in range(3):
            b.expect("chat", game=gid, text="spam %d" % i)
        no_chat(b)
        say(b, gid, "player", "the opponent is not muted")
        w.expect("chat", game=gid, text="the opponent is not muted")
        self.assertEqual(srv.sql("SELECT count(*) FROM chat_lines")[0][0], 4)
        self.assertIn("event=chat_muted pid=" + w.pid, srv.log_text())

    def test_chat_off(self):
        srv = self.server({"chat_guests": 1})
        a = self.client(srv, name="alice")
        token = a.request({"t": "register", "username": "alice",
                           "password": PASSWORD}, "registered")["token"]
        b = self.client(srv)
        gid = a.request({"t": "invite", "clock": FISCHER_5_0,
            "color": "white"}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        a.expect("state", game=gid)
        b.expect("state", game=gid)
        say(b, gid, "player", "before")
        a.expect("chat", game=gid, text="before")
        a.request({"t": "settings", "settings": {"chat": "off"}},
                  "settings_saved")
        say(b, gid, "player", "after")
        b.expect("chat", game=gid, text="after")
        no_chat(a)  # neither sees ...
        say(a, gid, "player", "hi")  # ... nor sends
        self.assertIn("off", a.expect_error("chat_not_allowed")["msg"])
        a.send({"t": "sync", "game": gid})
        a.expect("state", game=gid)
        no_chat(a)  # no replay either
        a2 = self.client(srv, token=token)  # another device: still off
        say(b, gid, "player", "again")
        b.expect("chat", game=gid, text="again")
        no_chat(a2)
        a.request({"t": "settings", "settings": {"chat": "on"}},
                  "settings_saved")
        say(b, gid, "player", "back")
        a.expect("chat", game=gid, text="back")

    def test_bad_lines(self):
        srv = self.server(OPEN)
        w, b, gid = self.start_game(srv)
        cases = [
            ("", "text: empty"),
            ("   ", "text: empty"),
            ("x" * 141, "text: 141 characters, at most 140"),
            ("\u00e9" * 141, "text: 141 characters, at most 140"),
            ("a\nb", "text: control character U+000A at character 2"),
            ("a\u202eb", "text: control character U+202E at character 2"),
            ("a\tb", "text: control character U+0009 at character 2"),
            ("a\x7fb", "text: control character U+007F at character 2"),
        ]
        for text, msg in cases:
            say(w, gid, "player", text)
            self.assertEqual(w.expect_error("bad_field")["msg"], msg)
        w.send({"t": "chat", "game": gid, "room": "lobby", "text": "x"})
        self.assertIn("room", w.expect_error("bad_field")["msg"])
        say(w, gid, "player", "\u00e9" * 140)  # 140 characters: fine
        self.assertEqual(len(b.expect("chat", game=gid)["text"]), 140)
        no_chat(b)
        # invalid UTF-8 on the wire: the connection is closed 1007
        frame = (b'{"t":"chat","game":"' + gid.encode() +
                 b'","room":"player","text":"\xff"}')
        w.ws.send_frame(OP_TEXT, frame)
        self.assertEqual(w.ws.recv_close(), 1007)
        no_chat(b)
        self.assertEqual(srv.sql("SELECT count(*) FROM chat_lines")[0][0], 1)
