"""Opening names over the protocol (PROTOCOL.md section 6, "Openings"):
the `moved` that changes the game's opening carries it, to both players
and a spectator, and no other `moved` does; a transposition renames it;
`state` carries it (null before any name), also for a spectator who
arrives late and for the finished game read back over HTTP; the PGN
export has its ECO and Opening tags; a game from a set-up position has
none."""
from harness import ServerTest

# each move, and the opening its `moved` carries (None: no field)
LINE = [
    ("c2c4", ("A10", "English Opening")),
    ("e7e6", ("A13", "English Opening: Agincourt Defense")),
    ("b1c3", None),
    ("d7d5", None),
    # written 1. d4 d5 2. c4 e6 3. Nc3: a transposition
    ("d2d4", ("D31", "Queen's Gambit Declined: Queen's Knight Variation")),
    ("g8f6", ("D35", "Queen's Gambit Declined: Normal Defense")),
    ("h2h3", None),  # out of theory: the name stays
]


class OpeningTest(ServerTest):
    def test_opening_goes_with_the_move_that_changes_it(self):
        w, b, gid = self.invite_game()
        c = self.client()
        st = c.request({"t": "watch", "game": gid}, "state")
        self.assertIsNone(st["opening"])
        players = [w, b]
        for ply, (uci, want) in enumerate(LINE):
            players[ply % 2].move(gid, uci, ply)
            for who in (w, b, c):
                m = who.expect("moved", game=gid, ply=ply + 1)
                if want is None:
                    self.assertNotIn("opening", m)
                else:
                    self.assertEqual(m["opening"],
                                     {"eco": want[0], "name": want[1]})
        d35 = {"eco": "D35", "name": "Queen's Gambit Declined: Normal Defense"}
        self.assertEqual(w.request({"t": "sync", "game": gid},
                                   "state")["opening"], d35)
        late = self.client()
        self.assertEqual(late.request({"t": "watch", "game": gid},
                                      "state")["opening"], d35)
        # the live game's PGN so far, then the finished one's
        status, _, pgn = self.server.http("/api/games/%s/pgn" % gid)
        self.assertEqual(status, 200)
        self.assertIn(b'[ECO "D35"]\n[Opening "Queen\'s Gambit Declined: '
                      b'Normal Defense"]\n[Termination "normal"]', pgn)
        w.send({"t": "resign", "game": gid})
        for who in (w, b, c, late):
            who.expect("game_end", game=gid)
        status, _, pgn = self.server.http("/api/games/%s/pgn" % gid)
        self.assertEqual(status, 200)
        self.assertIn(b'[ECO "D35"]\n', pgn)
        status, api = self.server.http_json("/api/games/%s" % gid)
        self.assertEqual(status, 200)
        self.assertEqual(api["opening"], d35)

    def test_set_up_position_has_no_opening(self):
        # the position after 1. e4, set up: 1... e5 reaches C20's position
        # but the game did not start from the initial one
        w, b, gid = self.invite_game(
            fen="rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        b.move(gid, "e7e5", 0)
        for who in (w, b):
            self.assertNotIn("opening", who.expect("moved", game=gid, ply=1))
        self.assertIsNone(w.request({"t": "sync", "game": gid},
                                    "state")["opening"])
