"""Rematch over the real server: a game played to its end, the offer to
both players, the new game with the colours swapped, the same clock and
start position; a decline, the lapse when a player goes, and no_rematch.
(The 60 s lapse is tested with the fake clock in tests/unit/test_rematch.c.)
"""
from harness import ServerTest

BLITZ = {"type": "fischer", "initial_s": 180, "increment_s": 2}
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
ITALIAN = ("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - "
           "3 3")


class RematchTest(ServerTest):
    def test_checkmate_then_rematch(self):
        w, b, gid = self.invite_game(clock=BLITZ)
        self.play(w, b, gid, "f2f3 e7e5 g2g4 d8h4")
        for c in (w, b):
            self.assertEqual(c.expect("game_end", game=gid)["reason"],
                             "checkmate")
        # the winner offers; both see it, with the offerer's colour
        b.send({"t": "rematch", "game": gid, "id": "r1"})
        for c in (w, b):
            o = c.expect("rematch_offered", game=gid)
            self.assertEqual(o["color"], "black")
            self.assertNotIn("id", o)
        # a repeat tells nobody anything
        b.send({"t": "rematch", "game": gid})
        w.quiet(0.3)
        b.quiet(0.1)
        # the loser accepts: a new game, colours swapped, same clock
        w.send({"t": "rematch", "game": gid})
        starts = [c.expect("game_start") for c in (w, b)]
        new = starts[0]["game"]
        self.assertNotEqual(new, gid)
        self.assertEqual(starts[1]["game"], new)
        for s in starts:
            self.assertEqual(s["white"]["id"], b.pid)
            self.assertEqual(s["black"]["id"], w.pid)
            self.assertEqual(s["clock"], BLITZ)
        self.assertEqual(starts[0]["you"], "black")
        self.assertEqual(starts[1]["you"], "white")
        st = b.expect("state", game=new)
        self.assertEqual(st["status"], "started")
        self.assertEqual(st["initial_fen"], START)
        # it is played like any other game: the old black moves first now
        self.play(b, w, new, "e2e4 e7e5")
        # the old game gives no second rematch
        w.send({"t": "rematch", "game": gid, "id": 7})
        e = w.expect_error("no_rematch")
        self.assertEqual(e["id"], 7)
        b.send({"t": "rematch_decline", "game": gid})
        b.expect_error("no_rematch")
        # nor does a live game
        b.send({"t": "rematch", "game": new})
        b.expect_error("no_rematch")
        st = w.request({"t": "sync", "game": new}, "state")
        self.assertEqual((st["status"], st["ply"]), ("started", 2))

    def test_decline_leave_and_errors(self):
        w, b, gid = self.invite_game(clock=BLITZ, fen=ITALIAN)
        b.send({"t": "resign", "game": gid})
        for c in (w, b):
            c.expect("game_end", game=gid)
        stranger = self.client()
        stranger.send({"t": "rematch", "game": gid})
        stranger.expect_error("no_rematch")
        stranger.send({"t": "rematch", "game": "nosuchgame"})
        stranger.expect_error("no_such_game")
        b.send({"t": "rematch_decline", "game": gid})
        b.expect_error("no_rematch")  # nothing offered
        # white offers, black declines: both are told
        w.send({"t": "rematch", "game": gid})
        b.expect("rematch_offered", game=gid, color="white")
        b.send({"t": "rematch_decline", "game": gid})
        for c in (w, b):
            d = c.expect("rematch_declined", game=gid)
            self.assertEqual((d["color"], d["reason"]), ("black", "declined"))
        w.expect("rematch_offered", game=gid)
        # declined: white may not offer again
        w.send({"t": "rematch", "game": gid})
        w.expect_error("no_rematch")
        # black may; white's only connection goes: the offer lapses
        b.send({"t": "rematch", "game": gid})
        b.expect("rematch_offered", game=gid, color="black")
        w.expect("rematch_offered", game=gid, color="black")
        w.close()
        d = b.expect("rematch_declined", game=gid)
        self.assertEqual((d["color"], d["reason"]), ("white", "left"))
        # and an absent opponent cannot be offered one
        b.send({"t": "rematch", "game": gid})
        b.expect_error("no_rematch")

    def test_offers_per_game_are_counted_across_reconnects(self):
        # issue 25: offer, close, reconnect with the token, offer again
        # delivered 200 offers in 0.4 s; now 3 per player and game
        w, b, gid = self.invite_game(clock=BLITZ)
        b.send({"t": "resign", "game": gid})
        for c in (w, b):
            c.expect("game_end", game=gid)
        token = b.token
        b.close()
        delivered = 0
        for i in range(10):
            c = self.client(token=token)
            c.send({"t": "rematch", "game": gid})
            if i < 3:
                w.expect("rematch_offered", game=gid, color="black")
                delivered += 1
                c.close()
                d = w.expect("rematch_declined", game=gid)
                self.assertEqual(d["reason"], "left")
            else:
                e = c.expect_error("no_rematch")
                self.assertIn("3 times", e["msg"])
                c.close()
        w.quiet(0.3)
        self.assertEqual(delivered, 3)
        # the opponent's own offers are counted apart
        c = self.client(token=token)
        w.send({"t": "rematch", "game": gid})
        c.expect("rematch_offered", game=gid, color="white")

    def test_rematch_from_a_set_up_position(self):
        w, b, gid = self.invite_game(fen=ITALIAN)
        b.send({"t": "abort", "game": gid})  # aborted games allow one
        for c in (w, b):
            self.assertEqual(c.expect("game_end", game=gid)["reason"],
                             "aborted")
        w.send({"t": "rematch", "game": gid})
        b.expect("rematch_offered", game=gid, color="white")
        b.send({"t": "rematch", "game": gid})
        s = w.expect("game_start")
        self.assertEqual(s["you"], "black")
        st = w.expect("state", game=s["game"])
        self.assertEqual(st["initial_fen"], ITALIAN)
        self.assertEqual(st["to_move"], "black")
        # black (the old white) moves first from the set-up position
        w.move(s["game"], "g8f6", 0)
        b.expect("moved", game=s["game"], ply=1)
