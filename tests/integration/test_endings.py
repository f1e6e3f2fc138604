"""Every way a game ends that is decided by moves, claims or players:
checkmate, stalemate, dead position, fivefold, 75 moves, threefold and
50-move claims (with and without a move, and rejected), agreement,
resignation, leave and abort."""
from harness import ServerTest

SHUFFLE = "g1f3 g8f6 f3g1 f6g8"


class EndingsTest(ServerTest):
    def assert_end(self, clients, gid, result, reason):
        for c in clients:
            e = c.expect("game_end", game=gid)
            self.assertEqual((e["result"], e["reason"]), (result, reason))
            self.assertNotIn("id", e)
        st = clients[0].request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["status"], "ended")
        self.assertEqual((st["result"], st["reason"]), (result, reason))
        self.assertEqual(st["legal"], [])
        self.assertIsNone(st["clocks"]["running"])
        return st

    def test_checkmate(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "f2f3 e7e5 g2g4")
        b.move(gid, "d8h4", 3)
        m = w.expect("moved", game=gid, ply=4)
        self.assertEqual(m["san"], "Qh4#")
        self.assertTrue(m["check"])
        self.assertEqual(m["legal"], [])
        self.assertFalse(m["claimable"])
        self.assertIsNone(m["clocks"]["running"])
        self.assert_end([w, b], gid, "0-1", "checkmate")
        w.move(gid, "e2e4", 4)
        w.expect_error("game_over")

    def test_stalemate(self):
        w, b, gid = self.invite_game(fen="k7/8/8/2Q5/8/8/8/7K w - - 0 1")
        w.move(gid, "c5b6", 0)
        self.assert_end([w, b], gid, "1/2-1/2", "stalemate")

    def test_dead_position(self):
        w, b, gid = self.invite_game(fen="7k/8/8/8/8/2b5/8/KN6 w - - 0 1")
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertTrue(st["check"])
        self.assertEqual(st["legal"], ["a1a2", "b1c3"])
        w.move(gid, "b1c3", 0)
        st = self.assert_end([w, b], gid, "1/2-1/2", "dead_position")
        self.assertEqual(st["proof"], {"white": "material",
                                       "black": "material"})

    def test_dead_position_locked(self):
        # the king takes the rook: locked pawns only; the proof names the
        # pawns that never move and what each side can reach, in game_end,
        # in the state and (in words) in the PGN
        w, b, gid = self.invite_game(
            fen="4k3/8/8/p1p1p1p1/P1P1P1P1/8/3r4/4K3 w - - 0 1")
        w.move(gid, "e1d2", 0)
        e = b.expect("game_end", game=gid)
        ranks = lambda lo, hi: ["%s%d" % (f, r) for r in range(lo, hi + 1)
                                for f in "abcdefgh"]
        proof = {"white": "locked", "black": "locked",
                 "locked": ["a4", "c4", "e4", "g4", "a5", "c5", "e5", "g5"],
                 "reach": {"white": ranks(1, 3), "black": ranks(6, 8)}}
        self.assertEqual(e["proof"], proof)
        st = self.assert_end([w], gid, "1/2-1/2", "dead_position")
        self.assertEqual(st["proof"], proof)
        status, _, body = self.server.http("/api/games/%s/pgn" % gid)
        self.assertEqual(status, 200)
        pgn = " ".join(body.decode().split())
        self.assertIn('[Termination "normal"]', pgn)
        self.assertIn("{ Dead position. White cannot checkmate: the pawns "
                      "are locked; these never move: a4 c4 e4 g4 a5 c5 e5 "
                      "g5; White's king and pieces can only reach a1 b1",
                      pgn)
        self.assertTrue(pgn.endswith("} 1/2-1/2"))

    def test_fivefold_is_automatic(self):
        w, b, gid = self.invite_game()
        ply = self.play(w, b, gid, " ".join([SHUFFLE] * 3) + " g1f3 g8f6"
                        + " f3g1")
        b.move(gid, "f6g8", ply)
        m = w.expect("moved", game=gid, ply=ply + 1)
        self.assertEqual(m["legal"], [])
        self.assert_end([w, b], gid, "1/2-1/2", "fivefold")

    def test_seventy_five_moves_is_automatic(self):
        w, b, gid = self.invite_game(fen="k7/8/8/8/8/8/8/KQ6 w - - 149 80")
        w.move(gid, "b1b2", 0)
        self.assert_end([w, b], gid, "1/2-1/2", "seventy_five_moves")

    def test_checkmate_beats_seventy_five(self):
        w, b, gid = self.invite_game(fen="k7/7Q/1K6/8/8/8/8/8 w - - 149 80")
        w.move(gid, "h7h8", 0)
        self.assert_end([w, b], gid, "1-0", "checkmate")

    def test_threefold_claim_without_move(self):
        w, b, gid = self.invite_game()
        ply = self.play(w, b, gid, SHUFFLE)
        w.send({"t": "draw_claim", "game": gid})
        w.expect_error("claim_rejected")
        ply = self.play(w, b, gid, SHUFFLE, ply)
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertTrue(st["claimable"])
        b.send({"t": "draw_claim", "game": gid})
        b.expect_error("not_your_turn")
        w.send({"t": "draw_claim", "game": gid, "ply": ply})
        self.assert_end([w, b], gid, "1/2-1/2", "threefold")

    def test_threefold_claim_with_move(self):
        w, b, gid = self.invite_game()
        ply = self.play(w, b, gid, SHUFFLE + " g1f3 g8f6 f3g1")
        st = b.request({"t": "sync", "game": gid}, "state")
        self.assertFalse(st["claimable"])
        self.assertEqual(st["claim_moves"], ["f6g8"])
        b.send({"t": "draw_claim", "game": gid, "uci": "f6h5", "ply": ply})
        b.expect_error("claim_rejected")
        b.send({"t": "draw_claim", "game": gid, "uci": "f6e4", "ply": ply})
        b.expect_error("claim_rejected")
        b.send({"t": "draw_claim", "game": gid, "uci": "f6d4", "ply": ply})
        b.expect_error("illegal_move")
        b.send({"t": "draw_claim", "game": gid, "uci": "f6g8",
                "ply": ply + 1})
        b.expect_error("stale_ply")
        b.send({"t": "draw_claim", "game": gid, "uci": "f6g8", "ply": ply})
        for c in (w, b):
            m = c.expect("moved", game=gid, ply=ply + 1)
            self.assertEqual(m["uci"], "f6g8")
            self.assertEqual(m["legal"], [])
        self.assert_end([w, b], gid, "1/2-1/2", "threefold")

    def test_fifty_move_claims(self):
        fen = "k7/8/8/8/8/8/8/KQ6 w - - 99 80"
        w, b, gid = self.invite_game(fen=fen)
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertFalse(st["claimable"])
        self.assertIn("b1b2", st["claim_moves"])
        w.send({"t": "draw_claim", "game": gid})
        w.expect_error("claim_rejected")
        w.move(gid, "b1b2", 0)
        m = b.expect("moved", game=gid, ply=1)
        self.assertTrue(m["claimable"])
        b.send({"t": "draw_claim", "game": gid})
        self.assert_end([w, b], gid, "1/2-1/2", "fifty_moves")

    def test_fifty_move_claim_with_move(self):
        fen = "k7/8/8/8/8/8/8/KQ6 w - - 99 80"
        w, b, gid = self.invite_game(fen=fen)
        w.send({"t": "draw_claim", "game": gid, "uci": "b1b2"})
        m = b.expect("moved", game=gid, ply=1)
        self.assertEqual(m["san"], "Qb2")
        self.assert_end([w, b], gid, "1/2-1/2", "fifty_moves")

    def test_agreement_and_offer_rules(self):
        w, b, gid = self.invite_game()
        b.send({"t": "draw_accept", "game": gid})
        b.expect_error("no_draw_offer")
        w.send({"t": "draw_offer", "game": gid})
        o = b.expect("draw_offered", game=gid)
        self.assertEqual(o["color"], "white")
        w.send({"t": "draw_accept", "game": gid})  # own offer
        w.expect_error("no_draw_offer")
        b.send({"t": "draw_decline", "game": gid})
        d = w.expect("draw_declined", game=gid)
        self.assertEqual(d["color"], "black")
        b.send({"t": "draw_accept", "game": gid})
        b.expect_error("no_draw_offer")
        # declined: white offers again only after a move of its own
        w.send({"t": "draw_offer", "game": gid})
        w.expect_error("rate_limited")
        self.play(w, b, gid, "e2e4 e7e5")
        # an offer survives the offerer's move, lapses on the opponent's
        w.send({"t": "draw_offer", "game": gid})
        b.expect("draw_offered", game=gid)
        # repeating it while it is pending does nothing at all
        w.send({"t": "draw_offer", "game": gid})
        w.request({"t": "ping"}, "pong")
        b.request({"t": "ping"}, "pong")  # behind any draw_offered
        self.assertNotIn("draw_offered", [m["t"] for m in b.backlog])
        w.move(gid, "g1f3", 2)
        self.assertEqual(b.expect("moved", ply=3)["draw_offer"], "white")
        b.move(gid, "b8c6", 3)
        self.assertIsNone(w.expect("moved", ply=4)["draw_offer"])
        b.send({"t": "draw_accept", "game": gid})
        b.expect_error("no_draw_offer")
        w.send({"t": "draw_offer", "game": gid})
        b.expect("draw_offered", game=gid)
        st = b.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["draw_offer"], "white")
        b.send({"t": "draw_accept", "game": gid})
        self.assert_end([w, b], gid, "1/2-1/2", "agreement")

    def test_crossing_offers_agree(self):
        w, b, gid = self.invite_game()
        w.send({"t": "draw_offer", "game": gid})
        b.expect("draw_offered", game=gid)
        b.send({"t": "draw_offer", "game": gid})
        self.assert_end([w, b], gid, "1/2-1/2", "agreement")

    def test_resignation(self):
        w, b, gid = self.invite_game()
        b.send({"t": "resign", "game": gid})
        self.assert_end([w, b], gid, "1-0", "resignation")
        b.send({"t": "resign", "game": gid})
        b.expect_error("game_over")

    def test_leave_started_game_resigns(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4 e7e5")
        w.send({"t": "leave", "game": gid})
        self.assert_end([w, b], gid, "0-1", "resignation")

    def test_abort(self):
        w, b, gid = self.invite_game()
        w.move(gid, "e2e4", 0)
        b.expect("moved", ply=1)
        b.send({"t": "abort", "game": gid})
        self.assert_end([w, b], gid, "*", "aborted")
        w2, b2, gid2 = self.invite_game()
        self.play(w2, b2, gid2, "e2e4 e7e5")
        w2.send({"t": "abort", "game": gid2})
        w2.expect_error("abort_not_allowed")

    def test_cancelled_invitation(self):
        a, b = self.client(), self.client()
        gid = a.request({"t": "invite", "clock": {"type": "per_move",
                                                  "per_move_s": 60}},
                        "invited")["game"]
        st = b.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["status"], "waiting")
        self.assertEqual(st["legal"], [])
        b.send({"t": "abort", "game": gid})
        b.expect_error("not_a_player")
        a.send({"t": "move", "game": gid, "uci": "e2e4", "ply": 0})
        a.expect_error("not_started")
        a.send({"t": "leave", "game": gid})
        e = a.expect("game_end", game=gid)
        self.assertEqual((e["result"], e["reason"]), ("*", "cancelled"))
        b.send({"t": "join", "game": gid})
        b.expect_error("game_over")
        a.send({"t": "join", "game": gid})
        a.expect_error("own_game")
        # abort cancels an invitation too, with the same words
        gid = a.request({"t": "invite", "clock": {"type": "per_move",
                                                  "per_move_s": 60}},
                        "invited")["game"]
        a.send({"t": "abort", "game": gid})
        e = a.expect("game_end", game=gid)
        self.assertEqual((e["result"], e["reason"]), ("*", "cancelled"))
