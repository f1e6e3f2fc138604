"""Takebacks and time given (PROTOCOL.md "Takebacks and time given"):
a request accepted (one ply, two plies), declined and not repeated until
a move, lapsing on a move, a premove sent for a ply taken back, the
players' preference in casual and rated games, the precise errors; +15 s
given up to the cap, refused with a per-move clock and in a finished
game, in the PGN; an accepted takeback and time given survive kill -9."""
from harness import FISCHER_5_0, FreshServerTest, ServerTest

PASSWORD = "correct horse"
PER_MOVE = {"type": "per_move", "per_move_s": 60}


def request(c, gid):
    c.send({"t": "takeback", "game": gid})


class TakebackTest(ServerTest):
    def taken_back(self, clients, gid, color, ply):
        """Each client gets taken_back then the state at ply; the last
        state."""
        for c in clients:
            t = c.expect("taken_back", game=gid)
            self.assertEqual((t["color"], t["ply"]), (color, ply))
            st = c.expect("state", game=gid)
            self.assertEqual(st["ply"], ply)
            self.assertIsNone(st["takeback"])
        return st

    def test_accept_takes_back_the_last_move(self):
        w, b, gid = self.invite_game()
        s = self.client()
        s.request({"t": "watch", "game": gid}, "state")
        self.play(w, b, gid, "e2e4 e7e5 g1f3")
        request(w, gid)
        for c in (b, s):  # the opponent and the spectators are told
            self.assertEqual(c.expect("takeback_requested", game=gid)
                             ["color"], "white")
        st = b.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["takeback"], "white")
        b.send({"t": "takeback_accept", "game": gid})
        st = self.taken_back([w, b, s], gid, "white", 2)
        self.assertEqual(st["moves"], ["e2e4", "e7e5"])
        self.assertEqual(st["to_move"], "white")
        self.assertEqual(st["clocks"]["running"], "white")
        self.assertIn("g1f3", st["legal"])
        self.play(w, b, gid, "b1c3 b8c6", start_ply=2)

    def test_two_plies_on_own_turn(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4 e7e5 g1f3 b8c6")
        request(w, gid)  # white to move: its move and black's reply
        b.expect("takeback_requested", game=gid)
        b.send({"t": "takeback_accept", "game": gid})
        st = self.taken_back([w, b], gid, "white", 2)
        self.assertEqual(st["moves"], ["e2e4", "e7e5"])
        self.assertEqual(st["to_move"], "white")
        # crossing requests agree: black asks while white's is pending
        self.play(w, b, gid, "d2d4", start_ply=2)
        request(w, gid)
        b.expect("takeback_requested", game=gid)
        request(b, gid)
        st = self.taken_back([w, b], gid, "white", 2)

    def test_decline_then_not_repeated_until_a_move(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4 e7e5 g1f3")
        request(w, gid)
        b.expect("takeback_requested", game=gid)
        b.send({"t": "takeback_decline", "game": gid})
        self.assertEqual(w.expect("takeback_declined", game=gid)["color"],
                         "black")
        request(w, gid)
        w.expect_error("takeback_declined")
        b.send({"t": "takeback_accept", "game": gid})
        b.expect_error("no_takeback_request")
        self.play(w, b, gid, "b8c6", start_ply=3)
        request(w, gid)  # a move was played: it may ask again
        b.expect("takeback_requested", game=gid)
        b.send({"t": "takeback_accept", "game": gid})
        self.taken_back([w, b], gid, "white", 2)

    def test_request_lapses_and_premove_for_a_ply_taken_back(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4 e7e5 g1f3")
        request(w, gid)
        b.expect("takeback_requested", game=gid)
        # black's premove goes out as white's move arrives: played, the
        # request lapses
        self.play(w, b, gid, "b8c6", start_ply=3)
        b.send({"t": "takeback_accept", "game": gid})
        b.expect_error("no_takeback_request")
        # accepted, then black's premove for the ply taken back arrives
        self.play(w, b, gid, "f1c4", start_ply=4)
        request(w, gid)
        b.expect("takeback_requested", game=gid)
        b.send({"t": "takeback_accept", "game": gid})
        self.taken_back([w, b], gid, "white", 4)
        b.move(gid, "g8f6", 5)
        b.expect_error("stale_ply")
        b.move(gid, "g8f6", 4)
        b.expect_error("not_your_turn")

    def test_errors(self):
        w, b, gid = self.invite_game()
        s = self.client()
        request(w, gid)
        w.expect_error("nothing_to_take_back")
        self.play(w, b, gid, "e2e4")
        request(w, gid)
        w.expect_error("nothing_to_take_back")
        self.play(w, b, gid, "e7e5", start_ply=1)
        request(s, gid)
        s.expect_error("not_a_player")
        s.send({"t": "give_time", "game": gid})
        s.expect_error("not_a_player")
        w.send({"t": "takeback_decline", "game": gid})
        w.expect_error("no_takeback_request")
        request(w, gid)
        b.expect("takeback_requested", game=gid)
        w.send({"t": "takeback_accept", "game": gid})  # its own
        w.expect_error("no_takeback_request")
        request(w, gid)  # repeated while pending: nothing at all
        w.request({"t": "ping"}, "pong")
        b.request({"t": "ping"}, "pong")
        self.assertNotIn("takeback_requested", [m["t"] for m in b.backlog])
        b.send({"t": "resign", "game": gid})
        w.expect("game_end", game=gid)
        for t in ("takeback", "takeback_accept", "give_time"):
            w.send({"t": t, "game": gid})
            w.expect_error("game_over")
        w.send({"t": "takeback", "game": gid, "ply": 1})
        w.expect_error("bad_field")

    def test_give_time_up_to_the_cap_and_in_the_pgn(self):
        w, b, gid = self.invite_game()
        w.send({"t": "give_time", "game": gid})
        w.expect_error("give_time_not_allowed")  # no clock runs yet
        self.play(w, b, gid, "e2e4 e7e5")
        before = w.request({"t": "sync", "game": gid}, "state")["clocks"]
        for i in range(4):
            w.send({"t": "give_time", "game": gid})
            for c in (w, b):
                g = c.expect("time_given", game=gid)
                self.assertEqual((g["color"], g["ms"]), ("black", 15000))
            self.assertEqual(g["clocks"]["black_ms"],
                             before["black_ms"] + 15000 * (i + 1))
        w.send({"t": "give_time", "game": gid})
        w.expect_error("give_time_capped")
        b.send({"t": "give_time", "game": gid})  # black's own cap
        self.assertEqual(w.expect("time_given", game=gid)["color"], "white")
        w.send({"t": "resign", "game": gid})
        b.expect("game_end", game=gid)
        # the stored PGN (any node of a cluster reads it)
        status, _, body = self.server.http("/api/games/%s/pgn" % gid)
        self.assertEqual(status, 200)
        pgn = body.decode()
        self.assertEqual(pgn.count("[%give black 15]"), 4, pgn)
        self.assertIn("e5 { [%clk", pgn)
        self.assertEqual(pgn.count("[%give white 15]"), 1, pgn)
        b.send({"t": "give_time", "game": gid})
        b.expect_error("game_over")

    def test_give_time_refused_with_a_per_move_clock(self):
        w, b, gid = self.invite_game(clock=PER_MOVE)
        self.play(w, b, gid, "e2e4 e7e5")
        w.send({"t": "give_time", "game": gid})
        w.expect_error("give_time_not_allowed")


class TakebackPreferenceTest(FreshServerTest):
    def account(self, srv, username, takeback=None):
        c = self.client(srv, name=username)
        c.request({"t": "register", "username": username,
                   "password": PASSWORD}, "registered")
        if takeback:
            c.request({"t": "settings", "settings": {"takeback": takeback}},
                      "settings_saved")
        return c

    def game(self, w, b, rated):
        gid = w.request({"t": "invite", "clock": FISCHER_5_0,
                         "color": "white", "rated": rated},
                        "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
        for ply, uci in enumerate("e2e4 e7e5 g1f3".split()):
            (w, b)[ply % 2].move(gid, uci, ply)
            for c in (w, b):
                c.expect("moved", game=gid, ply=ply + 1)
        return gid

    def test_rated_needs_both_always_casual_neither_never(self):
        srv = self.server()
        w = self.account(srv, "alice", "always")
        b = self.account(srv, "bob")  # the default: casual games only
        gid = self.game(w, b, True)
        request(w, gid)
        w.expect_error("takeback_not_allowed")
        b.request({"t": "settings", "settings": {"takeback": "always"}},
                  "settings_saved")
        request(w, gid)
        b.expect("takeback_requested", game=gid)
        casual = self.game(w, b, False)
        request(w, casual)  # both allow casual games
        b.expect("takeback_requested", game=casual)
        b.send({"t": "takeback_decline", "game": casual})
        w.expect("takeback_declined", game=casual)
        b.request({"t": "settings", "settings": {"takeback": "never"}},
                  "settings_saved")
        b.move(casual, "b8c6", 3)
        w.expect("moved", game=casual, ply=4)
        request(w, casual)
        w.expect_error("takeback_not_allowed")

    def test_kill9_after_takeback_and_time_given(self):
        srv = self.server()
        w, b, gid = self.start_game(srv)
        for ply, uci in enumerate("d2d4 d7d5 c2c4 e7e6".split()):
            (w, b)[ply % 2].move(gid, uci, ply)
            for c in (w, b):
                c.expect("moved", game=gid, ply=ply + 1)
        request(w, gid)  # white to move: c4 and e6
        b.expect("takeback_requested", game=gid)
        b.send({"t": "takeback_accept", "game": gid})
        w.expect("taken_back", game=gid, ply=2)
        b.send({"t": "give_time", "game": gid})
        given = w.expect("time_given", game=gid)["clocks"]
        w.move(gid, "g1f3", 2)
        b.expect("moved", game=gid, ply=3)
        srv.kill()
        srv2 = self.server()
        b2 = self.client(srv2, token=b.token)
        st = b2.request({"t": "sync", "game": gid}, "state")
        # the journal replayed in the order written: e6 stays taken back
        self.assertEqual(st["moves"], ["d2d4", "d7d5", "g1f3"])
        self.assertGreaterEqual(st["clocks"]["white_ms"],
                                given["white_ms"] - 2000)
        self.assertGreater(st["clocks"]["white_ms"], 300000)  # 15 s more
        status, _, body = srv2.http("/api/games/%s/pgn" % gid)
        self.assertRegex(body.decode(), r"2\. Nf3\s+\{ \[%clk 0:05:1")
        self.assertIn("[%give white 15]", body.decode())
        w2 = self.client(srv2, token=w.token)
        b2.expect("opponent_back", game=gid, color="white")
        b2.move(gid, "g8f6", 3)
        w2.expect("moved", game=gid, ply=4)
