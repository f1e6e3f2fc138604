"""A Swiss event's own rules (PROTOCOL.md "Swiss tournaments", "Entry
conditions"): no draw by agreement before move 30 (lichess's rule: a
draw_offer before ply 60 is draw_too_early and changes nothing, through
the Board API's /draw/yes and offeringDraw too, and after a restart; one
at ply 60 stands and is accepted; every state of the live game says
"draw_from_ply":60, also after a restart and to a spectator; an arena
game is not bound by it and its state has no such key), and
the arena's entry conditions on swiss_create, each refusing a first join
with condition_not_met naming it, shown on the summary and kept across a
kill -9."""
import test_arena_berserk
from harness import FreshServerTest, ServerTest, not_in_cluster
from test_arena import ITALIAN, OPEN
from test_arena import create as arena_create
from test_botapi import post

CLOCK = {"type": "fischer", "initial_s": 300, "increment_s": 0}
FAST = dict(OPEN, move_burst=40)  # 30 moves each at once

# 40 plies after ITALIAN (20) without a fivefold: White's rook goes a1-b1
# and back (2 moves), Black's queen e7-d8-e8-e7 (3): a position comes back
# every 12 plies, at most 4 times in 40.
SHUFFLE = " ".join(("a1b1", "b1a1")[i % 2] + " " +
                   ("e7d8", "d8e8", "e8e7")[i % 3] for i in range(20))


def create(c, **extra):
    return c.request(dict({"t": "swiss_create", "name": "Rules",
                           "clock": CLOCK, "rounds": 1}, **extra),
                     "swiss_created")["swiss"]


@not_in_cluster("a node of a cluster runs no tournaments (docs/cluster.md)")
class SwissDrawTest(FreshServerTest):
    play = ServerTest.play

    def swiss_game(self, srv, a=None, b=None):
        """A 2-player Swiss (of a and b, else two guests) started by its
        creator: (white, black, GID, watcher, EID)."""
        org, w = self.client(srv), self.client(srv)
        a, b = a or self.client(srv), b or self.client(srv)
        ev = create(org)["event"]
        for c in (a, b):
            c.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        gid = a.expect("swiss_game", event=ev)["game"]
        start = a.expect("game_start", game=gid)
        b.expect("game_start", game=gid)
        for c in (a, b):
            # the rule is in the game's state (PROTOCOL.md section 7)
            self.assertEqual(c.expect("state", game=gid)["draw_from_ply"],
                             60)
        white, black = (a, b) if start["white"]["id"] == a.pid else (b, a)
        return white, black, gid, w, ev

    def test_no_draw_offer_before_move_30(self):
        srv = self.server(FAST)
        white, black, gid, w, ev = self.swiss_game(srv)
        ply = self.play(white, black, gid, ITALIAN)
        self.assertEqual(ply, 20)  # move 10
        err = white.request({"t": "draw_offer", "game": gid}, "error")
        self.assertEqual(err["code"], "draw_too_early")
        self.assertEqual(err["msg"], "no draw offers before move 30 in this "
                         "tournament's games (20 of 60 plies played)")
        # nothing changed: no offer shown, none to accept
        st = black.request({"t": "sync", "game": gid}, "state")
        self.assertIsNone(st["draw_offer"])
        self.assertEqual(black.request({"t": "draw_accept", "game": gid},
                                       "error")["code"], "no_draw_offer")
        ply = self.play(white, black, gid, SHUFFLE[:-5], start_ply=ply)
        self.assertEqual(ply, 59)  # one ply short: still refused
        self.assertEqual(black.request({"t": "draw_offer", "game": gid},
                                       "error")["code"], "draw_too_early")
        ply = self.play(white, black, gid, SHUFFLE[-4:], start_ply=ply)
        self.assertEqual(ply, 60)  # move 30 played by both
        white.send({"t": "draw_offer", "game": gid})
        self.assertEqual(black.expect("draw_offered", game=gid)["color"],
                         "white")
        black.send({"t": "draw_accept", "game": gid})
        end = white.expect("game_end", game=gid)
        self.assertEqual((end["result"], end["reason"]),
                         ("1/2-1/2", "agreement"))
        # over: the rule is no longer shown
        self.assertNotIn("draw_from_ply", white.request(
            {"t": "sync", "game": gid}, "state"))
        st = w.expect("swiss_standings", event=ev,
                      status="finished")
        self.assertEqual(st["pairings"][0]["result"], "1/2-1/2")

    def test_board_api_draw_refused(self):
        """/draw/yes and a move's offeringDraw go through draw_offer."""
        srv = self.server(OPEN)
        ab = []
        for name in ("alice", "bob"):
            c = self.client(srv, name=name)
            c.request({"t": "register", "username": name,
                       "password": "correct horse"}, "registered")
            c.api = c.request({"t": "token_create",
                               "scopes": ["board:play"]},
                              "token_created")["token"]
            ab.append(c)
        white, black, gid, w, ev = self.swiss_game(srv, *ab)
        base = "/api/board/game/%s/" % gid
        self.assertEqual(post(srv.port, base + "move/e2e4?offeringDraw=true",
                              white.api), (200, {"ok": True}))
        m = black.expect("moved", game=gid, ply=1)
        self.assertIsNone(m["draw_offer"])  # the move, not the offer
        status, body = post(srv.port, base + "draw/yes", black.api)
        self.assertEqual(status, 400)
        self.assertIn("no draw offers before move 30", body["error"])
        st = white.request({"t": "sync", "game": gid}, "state")
        self.assertEqual((st["status"], st["draw_offer"]), ("started", None))

    def test_restored_game_keeps_the_rule(self):
        srv = self.server(OPEN)
        white, black, gid, w, ev = self.swiss_game(srv)
        self.play(white, black, gid, "e2e4 e7e5")
        srv.kill()
        srv = self.server(OPEN)
        white = self.client(srv, token=white.token)
        black = self.client(srv, token=black.token)
        err = white.request({"t": "draw_offer", "game": gid}, "error")
        self.assertEqual(err["code"], "draw_too_early")
        # the players' and a spectator's state say so after the restart
        for c in (black, self.client(srv)):
            st = c.request({"t": "sync", "game": gid}, "state")
            self.assertEqual((st["ply"], st["draw_from_ply"]), (2, 60))

    def test_an_arena_game_draws_at_once(self):
        srv = self.server(OPEN)
        ev = arena_create(self.client(srv))
        a, b = self.client(srv), self.client(srv)
        for c in (a, b):
            c.request({"t": "arena_join", "event": ev}, "arena_joined")
        gid = a.expect("arena_game", event=ev)["game"]
        for c in (a, b):
            self.assertNotIn("draw_from_ply", c.expect("state", game=gid))
        a.send({"t": "draw_offer", "game": gid})
        b.expect("draw_offered", game=gid)
        b.send({"t": "draw_accept", "game": gid})
        self.assertEqual(a.expect("game_end", game=gid)["reason"],
                         "agreement")


@not_in_cluster("a node of a cluster runs no tournaments (docs/cluster.md)")
class SwissEntryTest(test_arena_berserk.EntryConditionsTest):
    """The arena's entry conditions test on a Swiss event."""
    KIND = "swiss"
    CREATE = {"name": "Rules", "clock": CLOCK, "rounds": 3}
    CATEGORY = "blitz"

    def joined(self, srv, acct, ev):
        st = acct.request({"t": "swiss_watch", "event": ev},
                          "swiss_standings")
        self.assertEqual(st["conditions"], {"accounts_only": True,
                                            "bots": True, "password": True})
        # a rejoin after a withdrawal is not checked again (the arena's)
        acct.request({"t": "swiss_withdraw", "event": ev}, "swiss_withdrawn")
        acct.request({"t": "swiss_join", "event": ev}, "swiss_joined")
