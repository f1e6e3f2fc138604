"""An arena game's berserk, its first-move time and an event's entry
conditions (PROTOCOL.md "Arena tournaments", "Berserk", "Entry
conditions"): a player berserks before his first move (half his time, no
increment, told to both players and the spectators, kept across a kill
-9), a won berserk game of 14 plies or more scores one more point with a
mark in the standings; berserk refused where the event forbids it,
outside an arena, twice, or after one's first move; the first move of an
arena game has lichess's time by speed (16 s for 1+0), not the server's
setting; a join that fails a condition is refused naming it."""
from harness import FreshServerTest, not_in_cluster
from test_arena import ITALIAN, OPEN, standing
from test_correspondence import TestTime

CLOCK = {"type": "fischer", "initial_s": 60, "increment_s": 1}


def create(c, **extra):
    return c.request(dict({"t": "arena_create", "name": "Berserk",
                           "clock": CLOCK, "duration_s": 600}, **extra),
                     "arena_created")["arena"]


@not_in_cluster("a node of a cluster runs no tournaments (docs/cluster.md)")
class BerserkTest(FreshServerTest):
    def pair(self, srv, ev):
        a, b = self.client(srv), self.client(srv)
        for c in (a, b):
            c.request({"t": "arena_join", "event": ev}, "arena_joined")
        gid = a.expect("arena_game", event=ev)["game"]
        start = a.expect("game_start", game=gid)
        b.expect("game_start", game=gid)
        for c in (a, b):
            c.expect("state", game=gid)
        return (a, b, gid) if start["white"]["id"] == a.pid else (b, a, gid)

    def play(self, white, black, gid, moves, first=0):
        for ply, uci in enumerate(moves.split(), first):
            (white, black)[ply % 2].move(gid, uci, ply)
            for c in (white, black):
                c.expect("moved", game=gid, ply=ply + 1)

    def test_berserk_halves_the_clock_scores_and_survives_a_kill(self):
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org)
        self.assertTrue(ev["berserk"])
        ev = ev["event"]
        white, black, gid = self.pair(srv, ev)
        spec = self.client(srv)
        spec.request({"t": "watch", "game": gid}, "state")
        white.send({"t": "berserk", "game": gid})
        for c in (white, black, spec):
            m = c.expect("berserk", game=gid)
            self.assertEqual(m["color"], "white")
            self.assertEqual((m["clocks"]["white_ms"],
                              m["clocks"]["black_ms"]), (30000, 60000))
        err = white.request({"t": "berserk", "game": gid}, "error")
        self.assertEqual(err["code"], "berserk_refused")
        self.assertIn("already", err["msg"])
        self.play(white, black, gid, "e2e4 e7e5")
        err = black.request({"t": "berserk", "game": gid}, "error")
        self.assertEqual((err["code"], "moved" in err["msg"]),
                         ("berserk_refused", True))
        err = spec.request({"t": "berserk", "game": gid}, "error")
        self.assertEqual(err["code"], "not_a_player")
        self.play(white, black, gid, " ".join(ITALIAN.split()[2:]), 2)
        st = black.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["berserk"], {"white": True, "black": False})
        # ten moves each: black got ten increments, white none
        self.assertLessEqual(st["clocks"]["white_ms"], 30000)
        self.assertGreater(st["clocks"]["black_ms"], 60000)
        srv.kill()
        srv2 = self.server(OPEN)
        w2 = self.client(srv2, token=white.token)
        b2 = self.client(srv2, token=black.token)
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertLessEqual(st["clocks"]["white_ms"], 30000)
        self.assertEqual(st["berserk"], {"white": True, "black": False})
        self.play(w2, b2, gid, "a4a5 b7b5", 20)  # after the restart too
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertLessEqual(st["clocks"]["white_ms"], 30000)
        b2.send({"t": "resign", "game": gid})
        w2.expect("game_end", game=gid)
        watcher = self.client(srv2)
        st = watcher.request({"t": "arena_watch", "event": ev},
                             "arena_standings")
        while standing(st, white.pid)["sheet"] == []:
            st = watcher.expect("arena_standings", timeout=10, event=ev)
        row = standing(st, white.pid)
        self.assertEqual(row["score"], 3)  # 2 for the win, 1 for berserk
        self.assertEqual(row["sheet"], [{"kind": "win", "points": 3,
                                         "flag": "streak",
                                         "berserk": "valid"}])
        self.assertNotIn("berserk", standing(st, black.pid)["sheet"][0])

    def test_a_short_berserk_game_earns_nothing_more(self):
        """Both berserk; black wins in 3 plies: 2 points and the berserk
        marked invalid on both sheets (fewer than 14 plies)."""
        srv = self.server(OPEN)
        ev = create(self.client(srv))["event"]
        white, black, gid = self.pair(srv, ev)
        for c in (black, white):
            c.send({"t": "berserk", "game": gid})
            for d in (white, black):
                d.expect("berserk", game=gid)
        self.play(white, black, gid, "e2e4 e7e5 d1h5")
        white.send({"t": "resign", "game": gid})
        black.expect("game_end", game=gid)
        w = self.client(srv)
        st = w.request({"t": "arena_watch", "event": ev}, "arena_standings")
        while standing(st, white.pid)["sheet"] == []:
            st = w.expect("arena_standings", timeout=10, event=ev)
        self.assertEqual(standing(st, black.pid)["sheet"],
                         [{"kind": "win", "points": 2, "flag": "streak",
                           "berserk": "invalid"}])
        self.assertEqual(standing(st, white.pid)["sheet"],
                         [{"kind": "loss", "points": 0, "flag": "normal",
                           "berserk": "invalid"}])

    def test_berserk_refused_where_forbidden_or_not_an_arena(self):
        srv = self.server(OPEN)
        ev = create(self.client(srv), berserk=False)
        self.assertFalse(ev["berserk"])
        white, black, gid = self.pair(srv, ev["event"])
        err = white.request({"t": "berserk", "game": gid}, "error")
        self.assertEqual(err["code"], "berserk_refused")
        self.assertIn("forbids", err["msg"])
        self.assertNotIn("berserk", white.request(
            {"t": "sync", "game": gid}, "state"))
        w, b, casual = self.start_game(srv)
        err = w.request({"t": "berserk", "game": casual}, "error")
        self.assertEqual((err["code"], err["msg"]),
                         ("berserk_refused", "not an arena game"))
        err = w.request({"t": "berserk", "game": "nosuchgame"}, "error")
        self.assertEqual(err["code"], "no_such_game")
        self.assertFalse([m for m in black.backlog
                          if m.get("t") == "berserk"])


@not_in_cluster("test time is one process's clock")
class FirstMoveTest(FreshServerTest):
    def test_first_move_time_by_speed(self):
        tt = TestTime()
        srv = self.server(OPEN, first_move_s=60, env=tt.env())
        ev = create(self.client(srv), clock={"type": "fischer",
                                             "initial_s": 60,
                                             "increment_s": 0})["event"]
        white, black, gid = BerserkTest.pair(self, srv, ev)
        st = white.request({"t": "sync", "game": gid}, "state")
        self.assertLessEqual(st["first_move_ms"], 16000)  # bullet: 16 s
        tt.advance(white, 14)
        white.request({"t": "ping"}, "pong")
        self.assertFalse([m for m in white.backlog
                          if m.get("t") == "game_end"])
        tt.advance(white, 3)
        end = black.expect("game_end", game=gid)
        self.assertEqual(end["reason"], "no_start")


@not_in_cluster("a node of a cluster runs no tournaments (docs/cluster.md)")
class EntryConditionsTest(FreshServerTest):
    """An arena's entry conditions; test_swiss_rules runs the same on a
    Swiss event (KIND, CREATE: the event's fields but conditions,
    CATEGORY: its clock's)."""
    KIND = "arena"
    CREATE = {"name": "Berserk", "clock": CLOCK, "duration_s": 600}
    CATEGORY = "bullet"

    def create(self, c, conditions):
        """A new event with conditions: its summary."""
        return c.request(dict(self.CREATE, t=self.KIND + "_create",
                              conditions=conditions),
                         self.KIND + "_created")[self.KIND]

    def refused(self, c, ev, **extra):
        err = c.request(dict({"t": self.KIND + "_join", "event": ev},
                             **extra), "error")
        self.assertEqual(err["code"], "condition_not_met")
        return err["msg"]

    def test_each_condition_refuses_naming_it(self):
        srv = self.server(OPEN)
        guest, acct = self.client(srv), self.client(srv)
        k = self.KIND

        def org():  # two open events per creator: a creator each
            return self.client(srv)
        acct.request({"t": "register", "username": "member",
                      "password": "correct horse"}, "registered")
        ev = self.create(org(), {"rating_min": 1600, "rating_max": 2000})
        self.assertEqual(ev["conditions"],
                         {"rating_min": 1600, "rating_max": 2000})
        self.assertEqual(self.refused(guest, ev["event"]),
                         "rating_min: your %s rating 1500 is under 1600"
                         % self.CATEGORY)
        ev = self.create(org(), {"rating_max": 1400})["event"]
        self.assertIn("rating_max", self.refused(guest, ev))
        ev = self.create(org(), {"rated_games_min": 5})["event"]
        self.assertEqual(self.refused(acct, ev),
                         "rated_games_min: you have played 0 rated %s "
                         "games of the 5 needed" % self.CATEGORY)
        ev = self.create(org(), {"accounts_only": True, "bots": True,
                                 "password": "club-7"})
        self.assertEqual(ev["conditions"], {"accounts_only": True,
                                            "bots": True, "password": True})
        ev = ev["event"]
        self.assertIn("accounts_only", self.refused(guest, ev,
                                                    password="club-7"))
        self.assertEqual(self.refused(acct, ev),
                         "password: this tournament needs one")
        self.assertEqual(self.refused(acct, ev, password="club-8"),
                         "password: not this tournament's")
        acct.request({"t": k + "_join", "event": ev, "password": "club-7"},
                     k + "_joined")
        st = acct.request({"t": k + "_watch", "event": ev}, k + "_standings")
        self.assertEqual([r["id"] for r in st["standings"]], [acct.pid])
        self.joined(srv, acct, ev)
        # kept across a restart: the journal's first line has them
        before = {e["event"]: e["conditions"] for e in acct.request(
            {"t": k + "_list"}, k + "_list")["events"]}
        self.assertEqual(len(before), 4)
        srv.kill()
        srv2 = self.server(OPEN)
        g2 = self.client(srv2, token=guest.token)
        self.assertIn("accounts_only", self.refused(g2, ev,
                                                    password="club-7"))
        ls = g2.request({"t": k + "_list"}, k + "_list")["events"]
        self.assertEqual({e["event"]: e["conditions"] for e in ls}, before)
        self.assertEqual(self.refused(g2, ev, password="club-8"),
                         "accounts_only: only an account may join")

    def joined(self, srv, acct, ev):
        """What a kind checks once acct joined ev with its password."""

    def test_bad_conditions_are_refused(self):
        srv = self.server(OPEN)
        c = self.client(srv)
        for cond in ({"rating_min": 1800, "rating_max": 1700},
                     {"rating_min": 0}, {"rated_games_min": -1},
                     {"accounts_only": 1}, {"bots": "yes"},
                     {"password": "has space"},
                     {"password": ""}, {"elo": 3}, []):
            err = c.request(dict(self.CREATE, t=self.KIND + "_create",
                                 conditions=cond), "error")
            self.assertEqual(err["code"], "bad_field", cond)
            self.assertTrue(err["msg"].startswith("conditions"), err)
        if self.KIND == "arena":
            err = c.request(dict(self.CREATE, t="arena_create",
                                 berserk="no"), "error")
            self.assertEqual(err["code"], "bad_field")
        self.assertEqual(c.request({"t": self.KIND + "_list"},
                                   self.KIND + "_list")["events"], [])
