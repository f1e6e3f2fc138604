"""Arena tournaments (PROTOCOL.md "Arena tournaments"): players join a
short event, are paired every second, play, and the pushed standings show
lichess's arena scores (2/1/0, quick draws, fire after two wins); a
withdrawal stops pairing and a rejoin waits out the pause; no pairings
once the time left is under max(30 s, min(base/2, 120 s)); an event
survives a kill -9 mid-event with its standings and its live game; bad
input (unknown event, joined twice, not joined, over, the caps, the
creation policy) is refused and changes nothing."""
import socket
import time
import unittest

import harness
from harness import CLUSTER, FreshServerTest, not_in_cluster
from test_correspondence import TestTime

CLOCK = {"type": "fischer", "initial_s": 60, "increment_s": 0}
OPEN = {"arena_create": 2}  # anyone creates (guests: no registering)
# 20 plies of the Italian game, no repetition: a draw after it counts
ITALIAN = ("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 d2d3 f8c5 c2c3 d7d6 b1d2 a7a6 "
           "a2a4 h7h6 h2h3 c8e6 d1e2 d8e7 e1g1 e8g8")


def create(c, duration_s=60, start_in_s=0, name="Blitz"):
    return c.request({"t": "arena_create", "name": name, "clock": CLOCK,
                      "duration_s": duration_s, "start_in_s": start_in_s},
                     "arena_created")["arena"]["event"]


def drain(c, seconds):
    """What c has and gets within seconds."""
    out, c.backlog = c.backlog, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            out.append(c._next(deadline - time.monotonic()))
        except socket.timeout:
            break
    return out


def standing(st, pid):
    return next(r for r in st["standings"] if r["id"] == pid)


def caps_across_the_cluster(t, settings, kind, ask, full):
    """Test t's check of the caps on open events on three nodes (settings
    cap the cluster at 3): a creator's third event, on a third node, is
    refused, and so is the cluster's fourth on any node (msg full); an
    event terminated gives its count back. kind: arena or swiss, ask its
    create command."""
    def create(c):
        return c.request(ask, kind + "_created")[kind]["event"]

    srv = t.server(settings, nodes=3)
    srv.pin(0)
    a = t.client(srv)
    srv.pin(1)
    a1, b = t.client(srv, token=a.token), t.client(srv)
    srv.pin(2)
    a2, c = t.client(srv, token=a.token), t.client(srv)
    ev = create(a)
    create(a1)
    err = a2.request(ask, "error")
    t.assertEqual((err["code"], err["msg"]), (
        "events_full",
        "you have created as many open tournaments as one player may"))
    create(b)
    err = c.request(ask, "error")
    t.assertEqual((err["code"], err["msg"]), ("events_full", full))
    a.request({"t": kind + "_terminate", "event": ev}, kind + "_terminated")
    deadline = time.monotonic() + 10
    while True:
        try:
            create(c)
            break
        except AssertionError:  # (events_full until it is over)
            t.assertLess(time.monotonic(), deadline, "not given back")
            time.sleep(0.3)


@not_in_cluster("a node of a cluster runs no tournaments (docs/cluster.md)")
class ArenaTest(FreshServerTest):
    def players(self, srv, n=2, event=None):
        cs = [self.client(srv) for _ in range(n)]
        if event:
            for c in cs:
                c.request({"t": "arena_join", "event": event},
                          "arena_joined")
        return cs

    def paired(self, a, b, event):
        """The next arena game of a and b: (white, black, gid)."""
        gid = a.expect("arena_game", event=event)["game"]
        self.assertEqual(b.expect("arena_game", event=event)["game"], gid)
        start = a.expect("game_start", game=gid)
        b.expect("game_start", game=gid)
        for c in (a, b):
            c.expect("state", game=gid)
        return (a, b, gid) if start["white"]["id"] == a.pid else (b, a, gid)

    def lose(self, loser, gid):
        loser.send({"t": "resign", "game": gid})
        loser.expect("game_end", game=gid)

    def watch_until(self, w, event, pred):
        """The first standings pushed to watcher w that satisfy pred."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            st = w.expect("arena_standings", timeout=20, event=event)
            if pred(st):
                return st
        self.fail("no standings as expected")

    def test_scores_fire_and_draws(self):
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org)
        a, b = self.players(srv, 2, ev)
        w = self.client(srv)
        first = w.request({"t": "arena_watch", "event": ev},
                          "arena_standings")
        self.assertEqual(first["status"], "running")
        for _ in range(3):  # a wins three: 2, 2, then 4 on fire
            white, black, gid = self.paired(a, b, ev)
            self.lose(b, gid)
        st = self.watch_until(w, ev, lambda s: standing(s, a.pid)["score"]
                              == 8)
        ra, rb = standing(st, a.pid), standing(st, b.pid)
        self.assertEqual((ra["rank"], ra["fire"]), (1, True))
        self.assertEqual([(x["kind"], x["points"], x["flag"])
                          for x in ra["sheet"]],
                         [("win", 2, "streak"), ("win", 2, "streak"),
                          ("win", 4, "double")])
        self.assertEqual((rb["rank"], rb["score"], rb["fire"]), (2, 0, False))
        # a draw of 20 plies on fire: 2, and the fire is out
        white, black, gid = self.paired(a, b, ev)
        self.play(white, black, gid, ITALIAN)
        white.send({"t": "draw_offer", "game": gid})
        black.expect("draw_offered", game=gid)
        black.send({"t": "draw_accept", "game": gid})
        a.expect("game_end", game=gid)
        st = self.watch_until(w, ev, lambda s: standing(s, a.pid)["score"]
                              == 10)
        self.assertFalse(standing(st, a.pid)["fire"])
        self.assertEqual(standing(st, b.pid)["score"], 1)
        # a quick draw scores nothing
        white, black, gid = self.paired(a, b, ev)
        self.play(white, black, gid, "e2e4 e7e5")
        white.send({"t": "draw_offer", "game": gid})
        black.expect("draw_offered", game=gid)
        black.send({"t": "draw_accept", "game": gid})
        st = self.watch_until(w, ev, lambda s: len(standing(s, a.pid)
                                                     ["sheet"]) == 5)
        self.assertEqual(standing(st, a.pid)["sheet"][-1]["kind"],
                         "quick_draw")
        self.assertEqual(standing(st, a.pid)["score"], 10)
        self.assertEqual(standing(st, b.pid)["score"], 1)

    def test_streaks_switched_off(self):
        """"streaks": false (an organiser's choice): three wins score 2
        each, nobody is on fire; kept in the journal across a restart."""
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = org.request({"t": "arena_create", "name": "Calm",
                          "clock": CLOCK, "duration_s": 60,
                          "streaks": False}, "arena_created")["arena"]
        self.assertIs(ev["streaks"], False)
        ev = ev["event"]
        a, b = self.players(srv, 2, ev)
        w = self.client(srv)
        w.request({"t": "arena_watch", "event": ev}, "arena_standings")
        for _ in range(3):
            white, black, gid = self.paired(a, b, ev)
            self.lose(b, gid)
        st = self.watch_until(w, ev, lambda s: len(standing(
            s, a.pid)["sheet"]) == 3)
        ra = standing(st, a.pid)
        self.assertEqual((ra["score"], ra["fire"]), (6, False))
        self.assertEqual([x["points"] for x in ra["sheet"]], [2, 2, 2])
        srv.kill()
        srv2 = self.server(OPEN)
        listed = self.client(srv2).request({"t": "arena_list"},
                                           "arena_list")["events"]
        self.assertEqual([(e["event"], e["streaks"]) for e in listed],
                         [(ev, False)])
        err = self.client(srv2).request(
            {"t": "arena_create", "name": "Bad", "clock": CLOCK,
             "duration_s": 60, "streaks": "no"}, "error")
        self.assertEqual((err["code"], err["msg"]),
                         ("bad_field", "streaks: true or false"))

    def test_a_games_state_names_its_event(self):
        """Every state of a live arena game carries its event (PROTOCOL.md
        section 7, "event"): the players' first, a reconnected player's
        sync and a spectator's watch (a reload, a spectator: the game
        page's link and Berserk button); an event that forbids berserk
        says so; an ended game's state has none."""
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org, name="Night")
        a, b = self.players(srv, 2, ev)
        gid = a.expect("arena_game", event=ev)["game"]
        link = {"id": ev, "kind": "arena", "name": "Night", "berserk": True}
        self.assertEqual(a.expect("state", game=gid)["event"], link)
        a2 = self.client(srv, token=a.token)
        self.assertEqual(a2.request({"t": "sync", "game": gid},
                                    "state")["event"], link)
        w = self.client(srv)
        self.assertEqual(w.request({"t": "watch", "game": gid},
                                   "state")["event"], link)
        self.lose(b, gid)
        self.assertNotIn("event", w.request({"t": "sync", "game": gid},
                                            "state"))
        # berserk forbidden: "berserk":false
        ev2 = org.request({"t": "arena_create", "name": "Calm",
                           "clock": CLOCK, "duration_s": 60,
                           "berserk": False}, "arena_created")
        ev2 = ev2["arena"]["event"]
        c, d = self.players(srv, 2, ev2)
        gid2 = c.expect("arena_game", event=ev2)["game"]
        self.assertEqual(w.request({"t": "watch", "game": gid2},
                                   "state")["event"],
                         {"id": ev2, "kind": "arena", "name": "Calm",
                          "berserk": False})

    def test_standings_by_page(self):
        """arena_watch's page: PROTOCOL.md's 10 rows of that page, with
        "page" and "pages", pushed again to that page's watchers alone;
        without a page the best 200 as before; a bad page is bad_field."""
        srv = self.server(OPEN)
        ev = create(self.client(srv), start_in_s=600)
        cs = self.players(srv, 12, ev)
        w1, w2, w0 = self.client(srv), self.client(srv), self.client(srv)
        p1 = w1.request({"t": "arena_watch", "event": ev, "page": 1},
                        "arena_standings")
        p2 = w2.request({"t": "arena_watch", "event": ev, "page": 2},
                        "arena_standings")
        top = w0.request({"t": "arena_watch", "event": ev},
                         "arena_standings")
        self.assertEqual((p1["page"], p1["pages"]), (1, 2))
        self.assertEqual([r["rank"] for r in p1["standings"]],
                         list(range(1, 11)))
        self.assertEqual((p2["page"], p2["pages"]), (2, 2))
        self.assertEqual([r["rank"] for r in p2["standings"]], [11, 12])
        self.assertNotIn("page", top)
        self.assertEqual(len(top["standings"]), 12)
        # a 13th player: every watcher is pushed its own page
        self.players(srv, 1, ev)
        self.assertEqual([r["rank"] for r in w2.expect(
            "arena_standings", event=ev)["standings"]], [11, 12, 13])
        self.assertEqual(len(w1.expect("arena_standings",
                                       event=ev)["standings"]), 10)
        self.assertEqual(len(w0.expect("arena_standings",
                                       event=ev)["standings"]), 13)
        for page in (0, 501, "1"):
            err = cs[0].request({"t": "arena_watch", "event": ev,
                                 "page": page}, "error")
            self.assertEqual((err["code"], err["msg"]),
                             ("bad_field",
                              "page: an integer from 1 to 500"))

    def test_watch_answers_own_row(self):
        """arena_watch's answer has "me", the watcher's own row whatever
        page he watches (null when not listed: a watcher who never
        joined, or withdrew before the start), and the pushes, the same
        bytes for every watcher of a page, have none. Once finished,
        every page has the podium."""
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org, start_in_s=600)
        cs = self.players(srv, 12, ev)
        last, w = cs[11], self.client(srv)
        p1 = last.request({"t": "arena_watch", "event": ev, "page": 1},
                          "arena_standings")
        self.assertNotIn(last.pid, [r["id"] for r in p1["standings"]])
        self.assertEqual((p1["me"]["id"], p1["me"]["rank"],
                          p1["me"]["withdrawn"]), (last.pid, 12, False))
        top = last.request({"t": "arena_watch", "event": ev},
                           "arena_standings")
        self.assertEqual(top["me"], standing(top, last.pid))
        self.assertIsNone(w.request({"t": "arena_watch", "event": ev,
                                     "page": 2}, "arena_standings")["me"])
        last.request({"t": "arena_watch", "event": ev, "page": 1},
                     "arena_standings")
        last.request({"t": "arena_withdraw", "event": ev},
                     "arena_withdrawn")
        pushed = w.expect("arena_standings", event=ev)
        self.assertEqual([r["rank"] for r in pushed["standings"]], [11])
        self.assertNotIn("me", pushed)
        self.assertNotIn("me", last.expect("arena_standings", event=ev))
        self.assertIsNone(last.request({"t": "arena_watch", "event": ev,
                                        "page": 1}, "arena_standings")["me"])
        self.assertNotIn("podium", pushed)
        w.request({"t": "arena_watch", "event": ev, "page": 2},
                  "arena_standings")
        org.request({"t": "arena_terminate", "event": ev},
                    "arena_terminated")
        end = self.watch_until(w, ev, lambda s: s["status"] == "finished")
        self.assertEqual([r["rank"] for r in end["standings"]], [11])
        self.assertEqual([(r["rank"], r["id"]) for r in end["podium"]],
                         [(1, cs[0].pid), (2, cs[1].pid), (3, cs[2].pid)])

    def play(self, white, black, gid, moves):
        ply = 0
        for uci in moves.split():
            (white, black)[ply % 2].move(gid, uci, ply)
            ply += 1
            for c in (white, black):
                c.expect("moved", game=gid, ply=ply)

    def test_withdraw_stops_pairing_and_rejoin_waits(self):
        srv = self.server(OPEN)
        ev = create(self.client(srv))
        a, b = self.players(srv, 2, ev)
        white, black, gid = self.paired(a, b, ev)
        a.request({"t": "arena_withdraw", "event": ev}, "arena_withdrawn")
        err = a.request({"t": "arena_withdraw", "event": ev}, "error")
        self.assertEqual(err["code"], "not_joined")
        self.lose(black, gid)  # the game goes on and ends
        time.sleep(2.5)  # two ticks: nobody to pair b with
        for c in (a, b):
            self.assertFalse([m for m in c.backlog
                              if m.get("t") == "arena_game"])
            self.assertEqual(self.drain_games(c), [])
        err = a.request({"t": "arena_join", "event": ev}, "error")
        self.assertEqual(err["code"], "paused")
        st = a.request({"t": "arena_watch", "event": ev}, "arena_standings")
        self.assertTrue(standing(st, a.pid)["withdrawn"])
        self.assertEqual(len(standing(st, a.pid)["sheet"]), 1)

    def drain_games(self, c):
        games = []
        try:
            while True:
                m = c.next(timeout=0.1)
                if m.get("t") == "arena_game":
                    games.append(m["game"])
        except Exception:
            return games

    def test_no_pairing_near_the_end_then_over(self):
        # 60 s base: pairings stop with under 30 s left; a 12 s event
        # never pairs, and is over after 12 s
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org, duration_s=12)
        a, b = self.players(srv, 2, ev)
        st = a.request({"t": "arena_watch", "event": ev}, "arena_standings")
        self.assertEqual(st["status"], "running")
        self.assertEqual(len(st["standings"]), 2)
        time.sleep(2.5)
        self.assertEqual(self.drain_games(b), [])
        self.watch_until(a, ev, lambda s: s["status"] == "finished")
        for t in ("arena_join", "arena_withdraw"):
            err = b.request({"t": t, "event": ev}, "error")
            self.assertEqual(err["code"], "event_over")
        ls = org.request({"t": "arena_list"}, "arena_list")["events"]
        self.assertEqual([(e["event"], e["status"], e["players"])
                          for e in ls], [(ev, "finished", 2)])

    def test_restart_mid_event_keeps_standings(self):
        srv = self.server(OPEN)
        ev = create(self.client(srv))
        a, b = self.players(srv, 2, ev)
        for _ in range(2):
            white, black, gid = self.paired(a, b, ev)
            self.lose(b, gid)
        white, black, live = self.paired(a, b, ev)  # in play at the kill
        self.play(white, black, live, "e2e4 e7e5")
        w = self.client(srv)
        st = w.request({"t": "arena_watch", "event": ev}, "arena_standings")
        self.assertEqual(standing(st, a.pid)["game"], live)
        srv.kill()
        srv2 = self.server(OPEN)
        w2 = self.client(srv2)
        st = w2.request({"t": "arena_watch", "event": ev}, "arena_standings")
        ra = standing(st, a.pid)
        self.assertEqual((ra["score"], ra["fire"], ra["game"]),
                         (4, True, live))
        self.assertEqual(standing(st, b.pid)["score"], 0)
        b2 = self.client(srv2, token=b.token)
        a2 = self.client(srv2, token=a.token)
        # (the restored game names its event again: not stored, set
        # again by the director)
        self.assertEqual(a2.request({"t": "sync", "game": live},
                                    "state")["event"]["id"], ev)
        b2.send({"t": "resign", "game": live})
        st = self.watch_until(w2, ev, lambda s: standing(s, a.pid)["score"]
                              == 8)
        self.assertEqual([x["points"] for x in standing(st, a.pid)["sheet"]],
                         [2, 2, 4])
        # and pairing goes on after the restart
        a2.expect("arena_game", event=ev)

    def test_bad_input_changes_nothing(self):
        srv = self.server({"arena_create": 1, "max_arenas": 1})
        guest = self.client(srv)
        err = guest.request({"t": "arena_create", "name": "X", "clock": CLOCK,
                             "duration_s": 60}, "error")
        self.assertEqual(err["code"], "needs_account")
        acct = self.client(srv)
        acct.request({"t": "register", "username": "organiser",
                      "password": "correct horse"}, "registered")
        for bad, code in (
                ({"duration_s": 5}, "bad_field"),
                ({"start_in_s": -1}, "bad_field"),
                ({"clock": {"type": "per_move", "per_move_s": 30}},
                 "bad_clock"),
                ({"name": "has space"}, "bad_field"),
                ({"rounds": 3}, "bad_field")):
            msg = dict({"t": "arena_create", "name": "X", "clock": CLOCK,
                        "duration_s": 60}, **bad)
            self.assertEqual(acct.request(msg, "error")["code"], code, bad)
        ev = create(acct, start_in_s=600)
        err = acct.request({"t": "arena_create", "name": "Y", "clock": CLOCK,
                            "duration_s": 60}, "error")
        self.assertEqual(err["code"], "events_full")
        for t in ("arena_join", "arena_withdraw", "arena_watch"):
            err = guest.request({"t": t, "event": "nosuchevent"}, "error")
            self.assertEqual(err["code"], "no_such_event")
        err = guest.request({"t": "arena_withdraw", "event": ev}, "error")
        self.assertEqual(err["code"], "not_joined")
        guest.request({"t": "arena_join", "event": ev}, "arena_joined")
        err = guest.request({"t": "arena_join", "event": ev}, "error")
        self.assertEqual(err["code"], "already_joined")
        ls = guest.request({"t": "arena_list"}, "arena_list")["events"]
        self.assertEqual([(e["event"], e["status"], e["players"])
                          for e in ls], [(ev, "open", 1)])
        # before the start, leaving and coming back are free
        guest.request({"t": "arena_withdraw", "event": ev}, "arena_withdrawn")
        guest.request({"t": "arena_join", "event": ev}, "arena_joined")

    def test_abort_scores_nothing_and_a_missed_first_move_loses(self):
        # (test time: an arena game's first move has 16 s at 1+0)
        tt = TestTime()
        srv = self.server(OPEN, env=tt.env())
        ev = create(self.client(srv))
        a, b = self.players(srv, 2, ev)
        w = self.client(srv)
        w.request({"t": "arena_watch", "event": ev}, "arena_standings")
        white, black, gid = self.paired(a, b, ev)
        black.send({"t": "abort", "game": gid})  # black aborts: no loser
        st = self.watch_until(w, ev, lambda s: all(
            len(r["sheet"]) == 1 for r in s["standings"]))
        for r in st["standings"]:
            self.assertEqual((r["sheet"][0]["kind"], r["score"],
                              r["withdrawn"]), ("quick_draw", 0, False))
        # next game: white never moves, loses on no_start, is withdrawn
        white, black, gid = self.paired(a, b, ev)
        tt.advance(w, 17)
        white.expect("game_end", timeout=10, game=gid)
        st = self.watch_until(w, ev, lambda s: all(
            len(r["sheet"]) == 2 for r in s["standings"]))
        rw, rb = standing(st, white.pid), standing(st, black.pid)
        self.assertEqual((rw["score"], rw["withdrawn"]), (0, True))
        self.assertEqual((rb["score"], rb["withdrawn"], rb["rank"]),
                         (2, False, 1))

    def test_two_open_events_per_creator(self):
        srv = self.server(OPEN)
        a, b = self.client(srv), self.client(srv)
        create(a, start_in_s=600)
        create(a, start_in_s=600)
        err = a.request({"t": "arena_create", "name": "Z", "clock": CLOCK,
                         "duration_s": 60}, "error")
        self.assertEqual(err["code"], "events_full")
        self.assertIn("one player", err["msg"])
        create(b)  # another creator may
        self.assertEqual(len(b.request({"t": "arena_list"}, "arena_list")
                             ["events"]), 3)

    def test_off_by_setting(self):
        srv = self.server({"arena_create": 0})
        c = self.client(srv)
        err = c.request({"t": "arena_create", "name": "X", "clock": CLOCK,
                         "duration_s": 60}, "error")
        self.assertEqual(err["code"], "no_tournaments")
        self.assertEqual(c.request({"t": "arena_list"}, "arena_list")
                         ["events"], [])


@unittest.skipUnless(CLUSTER, "a cluster's arenas")
class ClusterArenaTest(FreshServerTest):
    watch_until = ArenaTest.watch_until

    def test_an_arena_across_two_nodes(self):
        """An arena created on node 0 is directed there (its lease in
        Redis): node 1 lists it, its player's join is sent on to the
        director, the two players are paired and play across the nodes,
        and a watcher on each node is pushed the same standings (node 1's
        through the director's relay)."""
        srv = self.server(OPEN, nodes=2)
        srv.pin(0)
        org, a, wa = self.client(srv), self.client(srv), self.client(srv)
        srv.pin(1)
        b, wb = self.client(srv), self.client(srv)
        ev = create(org)
        deadline = time.monotonic() + 10
        while not any(e["event"] == ev for e in b.request(
                {"t": "arena_list"}, "arena_list")["events"]):
            self.assertLess(time.monotonic(), deadline, "not listed on 1")
            time.sleep(0.2)
        for w in (wa, wb):
            self.assertEqual(w.request({"t": "arena_watch", "event": ev},
                                       "arena_standings")["event"], ev)
        for c in (a, b):
            self.assertEqual(c.request({"t": "arena_join", "event": ev},
                                       "arena_joined")["event"], ev)
        err = b.request({"t": "arena_join", "event": ev}, "error")
        self.assertEqual(err["code"], "already_joined")
        # (node 1's watch answered by the director: the page, b's row)
        st = b.request({"t": "arena_watch", "event": ev, "page": 1},
                       "arena_standings")
        self.assertEqual((st["page"], st["me"]["id"]), (1, b.pid))
        gid = a.expect("arena_game", event=ev)["game"]
        self.assertEqual(b.expect("arena_game", event=ev)["game"], gid)
        for c in (a, b):
            c.expect("game_start", game=gid)
        # a spectator on node 1 of the game node 0 hosts: its event
        self.assertEqual(wb.request({"t": "watch", "game": gid},
                                    "state")["event"],
                         {"id": ev, "kind": "arena", "name": "Blitz",
                          "berserk": True})
        b.send({"t": "resign", "game": gid})
        a.expect("game_end", game=gid)
        seen = [self.watch_until(w, ev, lambda s: any(
            r["id"] == a.pid and r["score"] == 2 for r in s["standings"]))
            for w in (wa, wb)]
        self.assertEqual(seen[0]["standings"], seen[1]["standings"])
        self.assertEqual(standing(seen[1], b.pid)["sheet"][0]["kind"],
                         "loss")
        # the next pairing's arena_game reaches each player once (b's
        # connection is mirrored on node 0 by now: not through it too)
        gid2 = b.expect("arena_game", event=ev)["game"]
        a.expect("arena_game", event=ev, game=gid2)
        b.expect("game_start", game=gid2)
        self.assertEqual([m for m in drain(b, 0.5) if m["t"] == "arena_game"],
                         [])

    def adopted_state(self, c, gid):
        """gid's state, whose host was killed, once it is adopted (a
        sync sent again while the cluster answers busy)."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                return c.request({"t": "sync", "game": gid}, "state")
            except AssertionError:  # (busy while it is adopted)
                time.sleep(0.3)
        self.fail("the game was not adopted")

    def resign_adopted(self, c, gid):
        """c resigns gid, whose host was killed: sent again while its
        adoption makes the cluster answer busy, until a sync says it
        ended."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            c.send({"t": "resign", "game": gid})
            try:
                if c.request({"t": "sync", "game": gid},
                             "state")["status"] == "ended":
                    return
            except AssertionError:  # (busy while it is adopted)
                pass
            time.sleep(0.3)
        self.fail("the game did not end")

    def test_the_director_killed_another_node_directs_on(self):
        """kill -9 of the node that directs an arena: when its lease
        lapses another node takes the event over from the journal (the
        same standings on both nodes' watchers), learns the end of the
        game the dead node hosted (adopted by another node) from the
        store, and pairs on."""
        srv = self.server(OPEN, nodes=3)
        srv.pin(0)
        org = self.client(srv)
        srv.pin(1)
        a, wa = self.client(srv), self.client(srv)
        srv.pin(2)
        b, wb = self.client(srv), self.client(srv)
        ev = create(org)
        for c in (a, b):
            # (sent on to node 0: its relay may not have reached 1 and 2)
            self.assertEqual(c.request({"t": "arena_join", "event": ev},
                                       "arena_joined")["event"], ev)
        gid = a.expect("arena_game", event=ev)["game"]
        self.assertEqual(b.expect("arena_game", event=ev)["game"], gid)
        b.send({"t": "resign", "game": gid})
        a.expect("game_end", game=gid)
        gid2 = a.expect("arena_game", event=ev)["game"]
        self.assertEqual(b.expect("arena_game", event=ev)["game"], gid2)
        def playing(s):
            return (standing(s, a.pid)["score"] == 2 and
                    standing(s, a.pid)["game"] == gid2)
        before = wa.request({"t": "arena_watch", "event": ev},
                            "arena_standings")
        if not playing(before):  # (the copy here a second late)
            before = self.watch_until(wa, ev, playing)
        wb.request({"t": "arena_watch", "event": ev}, "arena_standings")
        srv.nodes[0].kill()
        # adopted by node 1 or 2 before the takeover, the game names its
        # event (the dead director's last relay names it): a's sync; no
        # berserk there (a node that does not direct the event refuses it)
        self.assertEqual(self.adopted_state(a, gid2)["event"],
                         {"id": ev, "kind": "arena", "name": "Blitz",
                          "berserk": False})
        # the game ends where it is adopted, before the takeover: the new
        # director reads its end from the store
        self.resign_adopted(a, gid2)
        after = [self.watch_until(w, ev, lambda s: standing(
            s, b.pid)["score"] == 2) for w in (wa, wb)]
        self.assertIn("event=tourney_taken_over event=" + ev,
                      srv.nodes[1].log_text() + srv.nodes[2].log_text())
        self.assertEqual(after[0]["standings"], after[1]["standings"])
        # the same standings as before the kill, with that game's end
        for pid, kind in ((a.pid, "loss"), (b.pid, "win")):
            was, now = standing(before, pid), standing(after[0], pid)
            self.assertEqual([(x["kind"], x["points"]) for x in
                              now["sheet"][:-1]],
                             [(x["kind"], x["points"]) for x in
                              was["sheet"]])
            self.assertEqual(now["sheet"][-1]["kind"], kind)
        gid3 = a.expect("arena_game", timeout=20, event=ev)["game"]
        self.assertEqual(b.expect("arena_game", event=ev)["game"], gid3)

    def test_a_whole_cluster_killed_an_arena_goes_on(self):
        """Every node killed and started again: a node takes over the
        arena nobody directs (known from the journal at its start), with
        its players and scores, and pairs them again."""
        srv = self.server(OPEN, nodes=2)
        srv.pin(0)
        org, a = self.client(srv), self.client(srv)
        srv.pin(1)
        b = self.client(srv)
        ev = create(org)
        for c in (a, b):
            c.request({"t": "arena_join", "event": ev}, "arena_joined")
        gid = a.expect("arena_game", event=ev)["game"]
        b.expect("arena_game", event=ev, game=gid)
        b.send({"t": "resign", "game": gid})
        a.expect("game_end", game=gid)
        for n in srv.nodes:
            n.kill()
        for i in range(2):
            srv.restart_node(i)
        srv.pin(1)
        a2, b2, w = (self.client(srv, token=a.token),
                     self.client(srv, token=b.token), self.client(srv))
        deadline = time.monotonic() + 20
        while True:
            try:
                st = w.request({"t": "arena_watch", "event": ev},
                               "arena_standings")
                break
            except AssertionError:  # (busy, or not known yet)
                self.assertLess(time.monotonic(), deadline, "not taken")
                time.sleep(0.3)
        self.assertEqual(standing(st, a.pid)["score"], 2)
        self.assertEqual(standing(st, b.pid)["score"], 0)
        gid2 = a2.expect("arena_game", timeout=20, event=ev)["game"]
        b2.expect("arena_game", event=ev, game=gid2)

    def test_a_far_page_stays_live_on_another_node(self):
        """A watcher on node 1 of page 21 (beyond the best 200 the
        director relays to every node) is pushed that page when it
        changes: node 1 wants it of the director, which relays it too;
        the best 200 are not pushed to him."""
        srv = self.server({**OPEN, "max_connections_per_ip": 5000}, nodes=2)
        srv.pin(0)
        org = self.client(srv)
        ev = create(org, start_in_s=600)
        players = []
        for _ in range(205):
            players.append(self.client(srv))
            players[-1].request({"t": "arena_join", "event": ev},
                                "arena_joined")
        srv.pin(1)
        w = self.client(srv)
        deadline = time.monotonic() + 10
        while not any(e["event"] == ev and e["players"] == 205 for e in
                      w.request({"t": "arena_list"}, "arena_list")["events"]):
            self.assertLess(time.monotonic(), deadline, "not listed on 1")
            time.sleep(0.2)
        st = w.request({"t": "arena_watch", "event": ev, "page": 21},
                       "arena_standings")
        self.assertEqual((st["page"], st["pages"], len(st["standings"])),
                         (21, 21, 5))
        time.sleep(3)  # (node 1's want heard, the page relayed)
        drain(w, 0.1)
        srv.pin(0)
        for _ in range(3):
            self.client(srv).request({"t": "arena_join", "event": ev},
                                     "arena_joined")
        st = self.watch_until(w, ev, lambda s: len(s["standings"]) == 8)
        self.assertEqual((st["page"], st["pages"]), (21, 21))
        self.assertNotIn("me", st)
        # (the best 200 are the first page's watchers': not his)
        self.assertEqual([m for m in drain(w, 2) if "page" not in m], [])

    def test_the_caps_count_the_clusters_events(self):
        """max_arenas and the 2 events per creator hold across the nodes
        (counted in Redis)."""
        caps_across_the_cluster(
            self, {**OPEN, "max_arenas": 3}, "arena",
            {"t": "arena_create", "name": "Blitz", "clock": CLOCK,
             "duration_s": 60, "start_in_s": 600},
            "the server holds as many open tournaments as it may")

    def test_an_events_room_is_the_clusters(self):
        """An event's chat room spans the nodes: a line said by a watcher
        on node 1 reaches the watchers on nodes 0 (the director) and 2,
        and a late watcher on node 2 is replayed it."""
        srv = self.server({**OPEN, "chat_guests": 1}, nodes=3)
        srv.pin(0)
        org = self.client(srv)
        ev = create(org, start_in_s=600)
        srv.pin(1)
        a = self.client(srv)
        srv.pin(2)
        b = self.client(srv)
        deadline = time.monotonic() + 10
        while not any(e["event"] == ev for e in b.request(
                {"t": "arena_list"}, "arena_list")["events"]):
            self.assertLess(time.monotonic(), deadline, "not listed on 2")
            time.sleep(0.2)
        for c in (org, a, b):
            c.request({"t": "arena_watch", "event": ev}, "arena_standings")
            c.expect("chat_history", room="event", event=ev)
        a.send({"t": "chat", "room": "event", "event": ev, "text": "gl all"})
        for c in (a, org, b):
            line = c.expect("chat", room="event", event=ev)
            self.assertEqual((line["pid"], line["text"]), (a.pid, "gl all"))
        late = self.client(srv)
        late.send({"t": "arena_watch", "event": ev})
        self.assertEqual([x["text"] for x in late.expect(
            "chat_history", room="event", event=ev)["lines"]], ["gl all"])

    def test_a_node_does_not_rebuild_a_single_servers_event(self):
        """An event a single server left in the database is not rebuilt,
        nor paired, by a node of a cluster on that database."""
        config = harness.write_json(self.path("open.json"), OPEN)
        one = harness.SingleServer(datadir=self.dir,
                                   extra=["--config", config])
        create(self.client(one), start_in_s=600)
        self.assertEqual(one.terminate(), 0)
        c = self.client(self.server(OPEN))
        self.assertEqual(c.request({"t": "arena_list"}, "arena_list")
                         ["events"], [])
        self.assertNotIn("event=arena_restored", self.servers[-1].log_text())

