"""Swiss tournaments (PROTOCOL.md "Swiss tournaments"): five players over
three rounds, started by the creator; each round is paired by the Dutch
engine once the last round's games have all ended, the odd player out
gets the bye (1 point), results and Sonneborn-Berger are pushed to the
watchers; the TRF export (WebSocket and GET /api/swiss/EID/trf) re-paired
by chess-cli gives the server's next round, also under the organiser's
forbidden pairs (its XXP lines); a kill -9 during a round keeps
its live games and one between rounds pairs the next round after the
restart; a round of 25 boards starts its games in two turns of the loop
(20, then 5), each once and in the boards' order; bad input and the caps
are refused and change nothing."""
import concurrent.futures
import json
import os
import subprocess
import tempfile
import time
import unittest

from harness import CLUSTER, SERVER, FreshServerTest, not_in_cluster
from test_arena import caps_across_the_cluster

CLOCK = {"type": "fischer", "initial_s": 60, "increment_s": 0}
OPEN = {"arena_create": 2}  # anyone creates (guests: no registering)
CLI = os.path.join(os.path.dirname(os.path.dirname(SERVER or ".")),
                   "common", "cli", "chess-cli")


def create(c, rounds=3, **kw):
    msg = dict({"t": "swiss_create", "name": "Club", "clock": CLOCK,
                "rounds": rounds}, **kw)
    return c.request(msg, "swiss_created")["swiss"]["event"]


def pair_with_cli(trf):
    """chess-cli pair's answer for a TRF: [(white SN, black SN)]."""
    with tempfile.NamedTemporaryFile("w", suffix=".trf", delete=False) as f:
        f.write(trf)
    try:
        out = subprocess.run([CLI, "pair", f.name], capture_output=True,
                             text=True, timeout=30)
    finally:
        os.unlink(f.name)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    return [tuple(int(x) for x in ln.split()) for ln in
            lines[1:1 + int(lines[0])]]


@not_in_cluster("one server's kills and test clock (in a cluster: "
                "ClusterSwissTest, test_tourney_kill)")
class SwissTest(FreshServerTest):
    def round_games(self, players, w, event, rnd):
        """Round rnd as watcher w sees it paired, and its swiss_game
        messages: ({gid: [client, client]}, standings)."""
        st = self.watch_until(w, event, lambda s: s["round"] == rnd)
        by_pid = {c.pid: c for c in players}
        games = {}
        for b in st["pairings"]:
            if b["black"] is None:
                continue
            cs = [by_pid[b["white"]], by_pid[b["black"]]]
            for c in cs:
                self.assertEqual(c.expect("swiss_game", event=event,
                                          round=rnd)["game"], b["game"])
            games[b["game"]] = cs
        return games, st

    def watch_until(self, w, event, pred):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            st = w.expect("swiss_standings", timeout=20, event=event)
            if pred(st):
                return st
        self.fail("no standings as expected")

    def white_resigns(self, games):
        """In each game its white resigns (black wins)."""
        for gid, cs in games.items():
            start = cs[0].expect("game_start", game=gid)
            white = cs[0] if start["white"]["id"] == cs[0].pid else cs[1]
            white.send({"t": "resign", "game": gid})
            white.expect("game_end", game=gid)

    def sns(self, st):
        return {r["id"]: r["sn"] for r in st["standings"]}

    def pairs_of(self, st):
        sn = self.sns(st)
        return sorted((sn[b["white"]], sn[b["black"]] if b["black"] else 0)
                      for b in st["pairings"])

    def joined_event(self, players, **kw):
        """A fresh server, an event (create's kw) that players guests
        joined, watched by one more: (srv, organiser, event, players,
        watcher, its first standings)."""
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org, **kw)
        ps = [self.client(srv) for _ in range(players)]
        for p in ps:
            p.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        w = self.client(srv)
        st = w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        return srv, org, ev, ps, w, st

    def test_five_players_three_rounds_with_kills(self):
        srv, org, ev, ps, w, st = self.joined_event(5, interval_s=3)
        self.assertEqual((st["status"], st["round"], len(st["standings"])),
                         ("open", 0, 5))
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        games, st = self.round_games(ps, w, ev, 1)
        self.assertEqual(len(games), 2)  # and one bye
        byes = [b for b in st["pairings"] if b["black"] is None]
        self.assertEqual([b["result"] for b in byes], ["bye"])
        self.white_resigns(games)
        st = self.watch_until(w, ev, lambda s: s["round"] == 1 and all(
            b["result"] for b in s["pairings"]))
        # the TRF after round 1, re-paired by chess-cli, is round 2
        trf = org.request({"t": "swiss_trf", "event": ev}, "swiss_trf")["trf"]
        status, ctype, body = srv.http("/api/swiss/%s/trf" % ev)
        self.assertEqual((status, body.decode()), (200, trf))
        self.assertTrue(ctype.startswith("text/plain"))
        self.assertEqual(srv.http("/api/swiss/%s.trf" % ev),
                         (status, ctype, body))  # (the same, lichess's form)
        expect2 = sorted(pair_with_cli(trf))
        games, st = self.round_games(ps, w, ev, 2)
        self.assertEqual(self.pairs_of(st), expect2)
        # kill -9 during round 2: one game ended, the other live
        first, live = sorted(games)
        self.white_resigns({first: games[first]})
        self.watch_until(w, ev, lambda s: any(
            b["game"] == first and b["result"] for b in s["pairings"]))
        srv.kill()
        srv = self.server(OPEN)
        w = self.client(srv)
        st = w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        self.assertEqual((st["round"], st["status"]), (2, "running"))
        by_game = {b["game"]: b for b in st["pairings"]}
        self.assertTrue(by_game[first]["result"])
        self.assertIsNone(by_game[live]["result"])
        ps = [self.client(srv, token=p.token) for p in ps]
        live_players = [p for p in ps
                        if p.pid in (by_game[live]["white"],
                                     by_game[live]["black"])]
        # the live game goes on: its white resigns it
        white = next(p for p in live_players
                     if p.pid == by_game[live]["white"])
        white.send({"t": "resign", "game": live})
        white.expect("game_end", game=live)
        self.watch_until(w, ev, lambda s: all(b["result"]
                                              for b in s["pairings"]))
        # kill -9 between rounds (the 3 s interval runs): round 3 after
        trf = w.request({"t": "swiss_trf", "event": ev}, "swiss_trf")["trf"]
        expect3 = sorted(pair_with_cli(trf))
        srv.kill()
        srv = self.server(OPEN)
        ps = [self.client(srv, token=p.token) for p in ps]
        w = self.client(srv)
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        games, st = self.round_games(ps, w, ev, 3)
        self.assertEqual(self.pairs_of(st), expect3)
        self.white_resigns(games)
        st = self.watch_until(w, ev, lambda s: s["status"] == "finished")
        rows = st["standings"]
        # 3 rounds of 2 games and a bye: 9 points, 3 different byes
        self.assertEqual(sum(r["points"] for r in rows), 9)
        self.assertEqual(sum(1 for r in rows for e in r["sheet"]
                             if e["result"] == "U"), 3)
        self.assertEqual(max(sum(e["result"] == "U" for e in r["sheet"])
                             for r in rows), 1)
        self.assertEqual([r["rank"] for r in rows], [1, 2, 3, 4, 5])
        keys = [(r["points"], r["sb"], r["performance"]) for r in rows]
        self.assertEqual(keys, sorted(keys, reverse=True))
        # Sonneborn-Berger from the sheets: opponents beaten, a bye at
        # one's own score
        score = {r["sn"]: r["points"] for r in rows}
        for r in rows:
            sb = sum(score[e["opp"]] if e["result"] == "1" else
                     score[e["opp"]] / 2 if e["result"] == "=" else
                     r["points"] if e["result"] == "U" else 0
                     for e in r["sheet"])
            self.assertAlmostEqual(r["sb"], sb, msg=r)
        err = ps[0].request({"t": "swiss_join", "event": ev}, "error")
        self.assertEqual(err["code"], "event_over")

    def test_a_games_state_names_its_event(self):
        """Every state of a live Swiss game carries its event (PROTOCOL.md
        section 7, "event"; no berserk in a Swiss event): the players'
        first, a reconnected player's sync, a spectator's watch; none
        once it ended."""
        srv, org, ev, ps, w, st = self.joined_event(2, rounds=1)
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        a, b = ps
        gid = a.expect("swiss_game", event=ev, round=1)["game"]
        link = {"id": ev, "kind": "swiss", "name": "Club", "berserk": False}
        self.assertEqual(a.expect("state", game=gid)["event"], link)
        a2 = self.client(srv, token=a.token)
        self.assertEqual(a2.request({"t": "sync", "game": gid},
                                    "state")["event"], link)
        self.assertEqual(w.request({"t": "watch", "game": gid},
                                   "state")["event"], link)
        b.send({"t": "resign", "game": gid})
        a.expect("game_end", game=gid)
        self.assertNotIn("event", w.request({"t": "sync", "game": gid},
                                            "state"))

    def test_late_joiner_half_point_bye_and_withdrawal(self):
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org, rounds=3, start_in_s=0)
        a, b = self.client(srv), self.client(srv)
        w = self.client(srv)
        for p in (a, b):
            p.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        games, st = self.round_games([a, b], w, ev, 1)
        late = self.client(srv)
        late.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        st = self.watch_until(w, ev, lambda s: len(s["standings"]) == 3)
        row = {r["id"]: r for r in st["standings"]}
        self.assertEqual((row[late.pid]["rank"], row[late.pid]["sn"],
                          row[late.pid]["points"]), (0, 0, 0))
        b.request({"t": "swiss_withdraw", "event": ev}, "swiss_withdrawn")
        self.white_resigns(games)  # b's game goes on and ends
        # round 2: a meets the late joiner, b is absent
        games, st = self.round_games([a, late], w, ev, 2)
        self.assertEqual(len(st["pairings"]), 1)
        row = {r["id"]: r for r in st["standings"]}
        self.assertEqual([e["result"] for e in row[late.pid]["sheet"]],
                         ["H", " "])  # a half-point bye for round 1
        self.assertEqual(row[late.pid]["sn"], 3)
        self.assertEqual(row[b.pid]["sheet"][1]["result"], "Z")
        self.assertTrue(row[b.pid]["withdrawn"])
        trf = late.request({"t": "swiss_trf", "event": ev},
                           "swiss_trf")["trf"]
        self.assertIn("XXR 3", trf)
        self.assertEqual(len([ln for ln in trf.split("\n")
                              if ln.startswith("001")]), 3)
        # b may come back: paired again in round 3
        b.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        self.white_resigns(games)
        games, st = self.round_games([a, b, late], w, ev, 3)
        self.assertEqual(len(st["pairings"]), 2)  # a game and a bye

    def test_forbidden_pairs_in_the_trf(self):
        # the organiser's forbidden pairs are the TRF's XXP lines, which
        # chess-cli honours: its round 2 from the file is the server's,
        # with a pair forbidden that it would have paired otherwise
        srv, org, ev, ps, w, st = self.joined_event(4)
        a, b, c, d = [p.pid for p in ps]
        org.request({"t": "swiss_forbid", "event": ev, "pairs": [[a, c]]},
                    "swiss_forbidden")
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        games, st = self.round_games(ps, w, ev, 1)
        # (paused: no round 2 before the second list)
        org.request({"t": "swiss_pause", "event": ev}, "swiss_paused")
        sn = self.sns(st)
        pid = {v: k for k, v in sn.items()}
        self.assertNotIn(tuple(sorted((sn[a], sn[c]))), [
            tuple(sorted(x)) for x in self.pairs_of(st)])
        self.white_resigns(games)
        self.watch_until(w, ev, lambda s: all(b["result"]
                                              for b in s["pairings"]))
        trf = org.request({"t": "swiss_trf", "event": ev}, "swiss_trf")["trf"]
        xxp = "XXP %d %d\n" % (sn[a], sn[c])
        self.assertIn(xxp, trf)
        # a pair chess-cli gives without the forbidden pairs, other than
        # the one forbidden already
        x, y = next(q for q in pair_with_cli(trf.replace(xxp, ""))
                    if sorted(q) != sorted((sn[a], sn[c])))
        org.request({"t": "swiss_forbid", "event": ev,
                     "pairs": [[a, c], [pid[x], pid[y]]]}, "swiss_forbidden")
        status, ctype, body = srv.http("/api/swiss/%s/trf" % ev)
        trf = body.decode()
        self.assertEqual(status, 200)
        self.assertTrue(trf.endswith(
            "\n%sXXP %d %d\n" % (xxp, x, y)), trf)
        expect2 = sorted(pair_with_cli(trf))
        self.assertNotIn((x, y), expect2)
        self.assertNotIn((y, x), expect2)
        org.request({"t": "swiss_resume", "event": ev}, "swiss_resumed")
        games, st = self.round_games(ps, w, ev, 2)
        self.assertEqual(self.pairs_of(st), expect2)

    def test_a_round_starts_in_parts(self):
        # 50 players, 25 boards: the loop starts 20 games a turn, so the
        # standings pushed with the pairing show the first 20 boards'
        # games and the next turn starts the last 5, each game once
        srv, org, ev, ps, w, _ = self.joined_event(50, rounds=1)
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        first = self.watch_until(w, ev, lambda s: s["round"] == 1)
        self.assertEqual([bool(b["game"]) for b in first["pairings"]],
                         [True] * 20 + [False] * 5)
        games, st = self.round_games(ps, w, ev, 1)  # (the next tick's)
        self.assertEqual(len(games), 25)
        self.assertTrue(all(b["game"] for b in st["pairings"]))
        self.assertEqual([b["game"] for b in st["pairings"]][:20],
                         [b["game"] for b in first["pairings"]][:20])
        # journaled and started once each, in the boards' order
        log = srv.log_text()
        started = [ln.split(" game=")[1].split()[0] for ln in
                   log.splitlines() if "event=swiss_pairing " in ln]
        self.assertEqual(started, [b["game"] for b in st["pairings"]])
        self.assertIn("event=swiss_round_started swiss=%s round=1 "
                      "turns=2 " % ev, log)
        srv.kill()
        w = self.client(self.server(OPEN))
        st2 = w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        self.assertEqual(st2["pairings"], st["pairings"])

    def test_bad_input_changes_nothing(self):
        srv = self.server({"arena_create": 1, "max_swiss": 1})
        guest = self.client(srv)
        err = guest.request({"t": "swiss_create", "name": "X",
                             "clock": CLOCK, "rounds": 3}, "error")
        self.assertEqual(err["code"], "needs_account")
        acct = self.client(srv)
        acct.request({"t": "register", "username": "organiser",
                      "password": "correct horse"}, "registered")
        for bad, code in (
                ({"rounds": 0}, "bad_field"),
                ({"rounds": 31}, "bad_field"),
                ({"rounds": "3"}, "bad_field"),
                ({"interval_s": -1}, "bad_field"),
                ({"interval_s": 3601}, "bad_field"),
                ({"start_in_s": -1}, "bad_field"),
                ({"duration_s": 60}, "bad_field"),
                ({"clock": {"type": "per_move", "per_move_s": 30}},
                 "bad_clock"),
                ({"name": "has space"}, "bad_field")):
            msg = dict({"t": "swiss_create", "name": "X", "clock": CLOCK,
                        "rounds": 3}, **bad)
            self.assertEqual(acct.request(msg, "error")["code"], code, bad)
        err = acct.request({"t": "swiss_create", "name": "X",
                            "clock": CLOCK}, "error")
        self.assertEqual(err["code"], "bad_field")  # rounds missing
        ev = create(acct)
        err = acct.request({"t": "swiss_create", "name": "Y", "clock": CLOCK,
                            "rounds": 3}, "error")
        self.assertEqual(err["code"], "events_full")
        for t in ("swiss_join", "swiss_withdraw", "swiss_watch",
                  "swiss_start", "swiss_trf"):
            err = guest.request({"t": t, "event": "nosuchevent"}, "error")
            self.assertEqual(err["code"], "no_such_event")
        for path in ("/api/swiss/nosuchevent/trf",
                     "/api/swiss/nosuchevent.trf", "/api/swiss/%s.pgn" % ev,
                     "/api/swiss/%s/trf/x" % ev, "/api/swiss/.trf"):
            status, body = srv.http_json(path)
            self.assertEqual((status, body), (404, {"error": "no_such_event"}),
                             path)
        err = guest.request({"t": "swiss_start", "event": ev}, "error")
        self.assertEqual(err["code"], "not_organiser")
        err = guest.request({"t": "swiss_withdraw", "event": ev}, "error")
        self.assertEqual(err["code"], "not_joined")
        guest.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        err = guest.request({"t": "swiss_join", "event": ev}, "error")
        self.assertEqual(err["code"], "already_joined")
        ls = guest.request({"t": "swiss_list"}, "swiss_list")["events"]
        self.assertEqual([(e["event"], e["status"], e["players"],
                           e["rounds"]) for e in ls], [(ev, "open", 1, 3)])
        # one player alone: the start pairs nobody, the event finishes
        acct.request({"t": "swiss_start", "event": ev}, "swiss_started")
        err = acct.request({"t": "swiss_start", "event": ev}, "error")
        self.assertEqual(err["code"], "event_started")
        st = guest.request({"t": "swiss_watch", "event": ev},
                           "swiss_standings")
        self.watch_until(guest, ev, lambda s: s["status"] == "finished")


    def test_two_open_events_per_creator_and_off(self):
        srv = self.server(OPEN)
        a, b = self.client(srv), self.client(srv)
        create(a)
        create(a, start_in_s=600)
        err = a.request({"t": "swiss_create", "name": "Z", "clock": CLOCK,
                         "rounds": 3}, "error")
        self.assertEqual(err["code"], "events_full")
        self.assertIn("one player", err["msg"])
        create(b)
        self.assertEqual(len(b.request({"t": "swiss_list"}, "swiss_list")
                             ["events"]), 3)
        srv.kill()
        c = self.client(self.server({"arena_create": 0}))
        err = c.request({"t": "swiss_create", "name": "X", "clock": CLOCK,
                         "rounds": 3}, "error")
        self.assertEqual(err["code"], "no_tournaments")

    def test_standings_by_page_and_me(self):
        """swiss_watch's page: 10 rows a page with "page" and "pages"
        (those who joined since the last pairing count, after the ranked
        ones), each page pushed to its own watchers; the answer, never a
        push, has "me": the watcher's own row, null when not listed; the
        boards name their players; "next_ms" is when the next round is
        due."""
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org)
        cs = [self.client(srv) for _ in range(12)]
        for c in cs:
            c.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        last, w = cs[11], self.client(srv)
        p1 = last.request({"t": "swiss_watch", "event": ev, "page": 1},
                          "swiss_standings")
        self.assertEqual((p1["page"], p1["pages"], len(p1["standings"])),
                         (1, 2, 10))
        self.assertNotIn(last.pid, [r["id"] for r in p1["standings"]])
        self.assertEqual((p1["me"]["id"], p1["me"]["rank"]), (last.pid, 0))
        self.assertIsNone(p1["next_ms"])  # (a manual start)
        p2 = w.request({"t": "swiss_watch", "event": ev, "page": 2},
                       "swiss_standings")
        self.assertEqual([r["id"] for r in p2["standings"]],
                         [c.pid for c in cs[10:]])
        self.assertIsNone(p2["me"])
        top = w.request({"t": "swiss_watch", "event": ev},
                        "swiss_standings")
        self.assertNotIn("page", top)
        self.assertEqual(len(top["standings"]), 12)
        w.request({"t": "swiss_watch", "event": ev, "page": 2},
                  "swiss_standings")
        cs[0].request({"t": "swiss_withdraw", "event": ev},
                      "swiss_withdrawn")  # (before a pairing: unlisted)
        self.assertIsNone(cs[0].request({"t": "swiss_watch", "event": ev},
                                        "swiss_standings")["me"])
        pushed = w.expect("swiss_standings", event=ev)
        self.assertNotIn("me", pushed)
        self.assertEqual([r["id"] for r in pushed["standings"]],
                         [cs[11].pid])
        self.assertEqual(len(last.expect("swiss_standings", event=ev)
                             ["standings"]), 10)
        # paired: ranked rows, 11 players, so page 2 is rank 11's alone
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        st = self.watch_until(w, ev, lambda s: s["round"] == 1)
        self.assertEqual([r["rank"] for r in st["standings"]], [11])
        # every board names its players, on any page
        names = {c.pid: c.player["name"] for c in cs[1:]}
        self.assertEqual(sorted((b["white"], b["white_name"], b["black"],
                                 b["black_name"]) for b in st["pairings"]),
                         sorted((b["white"], names[b["white"]], b["black"],
                                 names.get(b["black"]))
                                for b in st["pairings"]))
        self.assertIsNone(st["next_ms"])  # (a round in play)
        me = last.request({"t": "swiss_watch", "event": ev, "page": 2},
                          "swiss_standings")["me"]
        self.assertEqual(me["id"], last.pid)
        self.assertGreater(me["sn"], 0)
        # an event with a start time: its first round is due then
        ev2 = create(org, start_in_s=600)
        st = w.request({"t": "swiss_watch", "event": ev2},
                       "swiss_standings")
        self.assertEqual(st["next_ms"], st["start_ms"])


TRF_TYPE = "text/plain; charset=utf-8"
# (the HTTP API's bucket of 127.0.0.1: the TRF tests ask dozens at once)
TRF_OPEN = dict(OPEN, http_rate_per_s=1000, http_burst=1000)


@unittest.skipUnless(CLUSTER, "a cluster's Swiss")
class ClusterSwissTest(FreshServerTest):
    watch_until = SwissTest.watch_until
    round_games = SwissTest.round_games
    white_resigns = SwissTest.white_resigns

    def listed(self, c, events):
        """Waits until client c's node lists every one of events (its
        director's relay heard there)."""
        deadline = time.monotonic() + 10
        while not set(events) <= {e["event"] for e in c.request(
                {"t": "swiss_list"}, "swiss_list")["events"]}:
            self.assertLess(time.monotonic(), deadline, "not listed")
            time.sleep(0.2)

    def trf_path(self, ev):
        return "/api/swiss/%s/trf" % ev

    def test_the_trf_from_any_node(self):
        """GET /api/swiss/EID/trf on a node that does not direct the
        event (asked of its director: swiss_trf.c) is the director's own
        answer byte for byte, after two rounds played; an unknown event
        is 404 on every node."""
        srv = self.server(TRF_OPEN, nodes=3)
        srv.pin(0)
        org = self.client(srv)
        ev = create(org, rounds=3)
        ps = [self.client(srv) for _ in range(6)]
        for p in ps:
            p.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        w = self.client(srv)
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        for rnd in (1, 2):
            games, _ = self.round_games(ps, w, ev, rnd)
            self.white_resigns(games)
        # (round 3 paired: the TRF holds the two rounds played until its
        # games end)
        self.watch_until(w, ev, lambda s: s["round"] == 3 or
                         s["status"] == "finished")
        status, ctype, trf = srv.nodes[0].http(self.trf_path(ev))
        self.assertEqual((status, ctype), (200, TRF_TYPE))
        lines = [ln for ln in trf.decode().split("\n")
                 if ln.startswith("001 ")]
        self.assertEqual(len(lines), 6)
        self.assertTrue(all(len(ln.split()) >= 11 for ln in lines))
        srv.pin(1)
        self.listed(self.client(srv), [ev])
        srv.pin(2)
        self.listed(self.client(srv), [ev])
        for i in (1, 2, 1):
            self.assertEqual(srv.nodes[i].http(self.trf_path(ev)),
                             (200, TRF_TYPE, trf), "node %d" % i)
        self.assertEqual(org.request({"t": "swiss_trf", "event": ev},
                                     "swiss_trf")["trf"], trf.decode())
        self.assertIn("event=swiss_trf_told swiss=%s nodes=1" % ev,
                      srv.nodes[0].log_text())
        for n in srv.nodes:
            status, _, body = n.http(self.trf_path("NoSuchEvent1"))
            self.assertEqual((status, json.loads(body)),
                             (404, {"error": "no_such_event"}))

    def test_the_trf_asks_held_are_capped(self):
        """The director holds its renders 2.5 s (the test knob): node 1
        holds 32 asks of an event and 64 in all; one more of that event,
        or of a third, is 503 trf_busy at once (logged swiss_trf_full);
        the held asks are all answered then, the director's bytes, one
        render an event for them all."""
        srv = self.server(TRF_OPEN, nodes=2,
                          env={"CHESS_TEST_CLOCK_MS": "0",
                               "CHESS_TEST_SWISS_TRF_HOLD_MS": "2500"})
        srv.pin(0)
        org, org2 = self.client(srv), self.client(srv)
        evs = [create(org), create(org), create(org2)]
        trfs = [srv.nodes[0].http(self.trf_path(ev))[2] for ev in evs]
        srv.pin(1)
        self.listed(self.client(srv), evs)
        node1 = srv.nodes[1]
        with concurrent.futures.ThreadPoolExecutor(max_workers=70) as pool:
            held = [pool.submit(node1.http, self.trf_path(evs[k]))
                    for k in (0, 1) for _ in range(32)]
            time.sleep(0.8)
            self.assertFalse(any(f.done() for f in held), "not held")
            for ev, why in ((evs[0], "event"), (evs[2], "node")):
                t0 = time.monotonic()
                status, ctype, body = node1.http(self.trf_path(ev))
                self.assertLess(time.monotonic() - t0, 1)
                self.assertEqual((status, json.loads(body)),
                                 (503, {"error": "trf_busy"}))
                self.assertIn("event=swiss_trf_full swiss=%s why=%s" %
                              (ev, why), node1.log_text())
            answers = [f.result() for f in held]
        for i, a in enumerate(answers):
            self.assertEqual(a, (200, TRF_TYPE, trfs[i // 32]))
        log = srv.nodes[0].log_text()
        for ev in evs[:2]:
            self.assertEqual(log.count("event=swiss_trf_told swiss=%s " %
                                       ev), 1)
        # (room again: the third event's ask answered)
        self.assertEqual(node1.http(self.trf_path(evs[2])),
                         (200, TRF_TYPE, trfs[2]))

    def test_a_trf_the_director_never_answers(self):
        """A director that does not answer (it holds its renders past
        4 s: the test knob) leaves node 1's ask 504 trf_timeout after
        about 4 s (logged swiss_trf_timeout); node 1 serves on."""
        srv = self.server(TRF_OPEN, nodes=2,
                          env={"CHESS_TEST_CLOCK_MS": "0",
                               "CHESS_TEST_SWISS_TRF_HOLD_MS": "60000"})
        srv.pin(0)
        ev = create(self.client(srv))
        srv.pin(1)
        c = self.client(srv)
        self.listed(c, [ev])
        t0 = time.monotonic()
        status, ctype, body = srv.nodes[1].http(self.trf_path(ev))
        took = time.monotonic() - t0
        self.assertEqual((status, json.loads(body)),
                         (504, {"error": "trf_timeout"}))
        self.assertTrue(3.5 < took < 4.9, took)
        self.assertIn("event=swiss_trf_timeout swiss=%s" % ev,
                      srv.nodes[1].log_text())
        self.assertEqual(srv.nodes[1].http_json("/healthz")[0], 200)
        self.assertIn("XXR 3", c.request({"t": "swiss_trf", "event": ev},
                                         "swiss_trf")["trf"])
        self.assertNotIn("event=swiss_trf_told", srv.nodes[0].log_text())

    def retry(self, c, msg, t):
        """c's request msg, sent again while the cluster answers busy (a
        director killed, not taken over yet) or knows no such event."""
        deadline = time.monotonic() + 20
        while True:
            try:
                return c.request(msg, t)
            except AssertionError:
                self.assertLess(time.monotonic(), deadline, "no %s" % t)
                time.sleep(0.3)

    def test_the_caps_count_the_clusters_events(self):
        """max_swiss and the 2 events per creator hold across the nodes
        (counted in Redis, as the arena's)."""
        caps_across_the_cluster(
            self, {**OPEN, "max_swiss": 3}, "swiss",
            {"t": "swiss_create", "name": "Club", "clock": CLOCK,
             "rounds": 3, "start_in_s": 600},
            "the server holds as many open Swiss tournaments as it may")

    def test_every_command_from_another_node(self):
        """An event created on node 0 is directed there; the organiser
        (the same account on node 1) and the players on node 1 run every
        Swiss command through node 0 (sent on: cmd:E), node 1 lists it
        and pushes its standings (the relay), and a Swiss game hosted on
        node 0 keeps its draw rule for node 1's players."""
        srv = self.server(OPEN, nodes=2)
        srv.pin(0)
        org = self.client(srv)
        ev = create(org, rounds=2)
        srv.pin(1)
        org1 = self.client(srv, token=org.token)
        a, b, c, d, w = (self.client(srv) for _ in range(5))
        deadline = time.monotonic() + 10
        while not any(e["event"] == ev for e in w.request(
                {"t": "swiss_list"}, "swiss_list")["events"]):
            self.assertLess(time.monotonic(), deadline, "not listed on 1")
            time.sleep(0.2)
        for p in (a, b, c, d):
            p.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        self.assertEqual(a.request({"t": "swiss_join", "event": ev},
                                   "error")["code"], "already_joined")
        st = d.request({"t": "swiss_watch", "event": ev, "page": 1},
                       "swiss_standings")
        self.assertEqual((st["page"], st["me"]["id"]), (1, d.pid))
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        d.request({"t": "swiss_withdraw", "event": ev}, "swiss_withdrawn")
        d.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        self.assertEqual(b.request({"t": "swiss_pause", "event": ev},
                                   "error")["code"], "not_organiser")
        org1.request({"t": "swiss_forbid", "event": ev,
                      "pairs": [[a.pid, b.pid]]}, "swiss_forbidden")
        org1.request({"t": "swiss_remove", "event": ev, "to": d.pid},
                     "swiss_removed")
        self.assertEqual(d.request({"t": "swiss_join", "event": ev},
                                   "error")["code"], "removed")
        org1.request({"t": "swiss_pause", "event": ev}, "swiss_paused")
        org1.request({"t": "swiss_resume", "event": ev}, "swiss_resumed")
        err = org1.request({"t": "swiss_pair", "event": ev,
                            "pairs": [[a.pid, b.pid], [c.pid, None]]},
                           "error")
        self.assertEqual(err["code"], "bad_pairings")
        self.assertEqual(org1.request(
            {"t": "swiss_pair", "event": ev,
             "pairs": [[a.pid, c.pid], [b.pid, None]]},
            "swiss_paired")["round"], 1)
        org1.request({"t": "swiss_start", "event": ev}, "swiss_started")
        gid = a.expect("swiss_game", event=ev, round=1)["game"]
        self.assertEqual(c.expect("swiss_game", event=ev)["game"], gid)
        a.expect("game_start", game=gid)
        a.send({"t": "draw_offer", "game": gid})
        a.expect_error("draw_too_early")
        self.assertIn("XXR 2", w.request({"t": "swiss_trf", "event": ev},
                                         "swiss_trf")["trf"])
        c.send({"t": "resign", "game": gid})
        st = self.watch_until(w, ev, lambda s: s["pairings"][0]["result"]
                              == "1-0")
        points = {r["id"]: r["points"] for r in st["standings"]}
        self.assertEqual((points[a.pid], points[c.pid]), (1, 0))
        org1.request({"t": "swiss_terminate", "event": ev},
                     "swiss_terminated")
        self.watch_until(w, ev, lambda s: s["status"] == "finished")
        self.assertEqual(a.request({"t": "swiss_join", "event": ev},
                                   "error")["code"], "event_over")
        # (an event over answered from the copy here: the last standings)
        self.assertEqual(a.request({"t": "swiss_watch", "event": ev},
                                   "swiss_standings")["me"]["id"], a.pid)

    def test_a_join_from_another_node_has_the_players_rating(self):
        """An account on node 1 joins an event node 0 directs: the
        director reads his facts first (his bullet rating, written to
        the database after his login), as arena_join does."""
        srv = self.server(OPEN, nodes=2)
        srv.pin(0)
        ev = create(self.client(srv))
        srv.pin(1)
        rita = self.client(srv, name="rita")
        r = rita.request({"t": "register", "username": "rita",
                          "password": "correct horse battery"},
                         "registered")
        srv.sql("INSERT INTO ratings (pid, category, rating, rd, "
                "volatility, games, wins, draws, losses, last_ms) VALUES "
                "(?, 'bullet', 1700, 60, 0.06, 30, 15, 0, 15, 1)",
                r["player"]["id"])
        rita.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        me = rita.request({"t": "swiss_watch", "event": ev},
                          "swiss_standings")["me"]
        self.assertEqual((me["id"], me["rating"]), (r["player"]["id"], 1700))

    def test_a_game_handed_over_keeps_the_draw_rule(self):
        """The director stopped (SIGTERM): its Swiss game is handed to
        node 1, where its players are, and keeps no draw offers before
        move 30; node 1 takes the event over and scores the game's end
        there."""
        srv = self.server(OPEN, nodes=2)
        srv.pin(0)
        org = self.client(srv)
        ev = create(org, rounds=1)
        srv.pin(1)
        a, b, w = self.client(srv), self.client(srv), self.client(srv)
        for c in (a, b):
            c.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        gid = a.expect("swiss_game", event=ev, round=1)["game"]
        b.expect("swiss_game", event=ev, game=gid)
        self.assertEqual(srv.host_of(gid), 0)
        # a spectator on node 1 of the game node 0 hosts: its event
        link = {"id": ev, "kind": "swiss", "name": "Club", "berserk": False}
        self.assertEqual(w.request({"t": "watch", "game": gid},
                                   "state")["event"], link)
        self.assertEqual(srv.nodes[0].terminate(), 0)
        self.assertEqual(srv.host_of(gid), 1)
        # (node 1 links it from node 0's last relay, before its takeover)
        self.assertEqual(self.retry(a, {"t": "sync", "game": gid},
                                    "state")["event"], link)
        a.send({"t": "draw_offer", "game": gid})
        a.expect_error("draw_too_early")
        b.send({"t": "resign", "game": gid})
        a.expect("game_end", game=gid)
        st = self.retry(w, {"t": "swiss_watch", "event": ev},
                        "swiss_standings")
        if st["status"] != "finished":
            st = self.watch_until(w, ev, lambda s: s["status"] ==
                                  "finished")
        points = {r["id"]: r["points"] for r in st["standings"]}
        self.assertEqual((points[a.pid], points[b.pid]), (1, 0))

    def test_a_whole_cluster_killed_a_swiss_goes_on(self):
        """Every node killed and started again: a node takes over the
        Swiss nobody directs (known from the journal at its start), its
        round's game is adopted as a Swiss game (no draw offer before
        move 30), and once it ends its result counts (and the event
        finishes: two players cannot meet twice)."""
        srv = self.server(OPEN, nodes=2)
        srv.pin(0)
        org, a = self.client(srv), self.client(srv)
        srv.pin(1)
        b = self.client(srv)
        ev = create(org, rounds=2)
        for c in (a, b):
            c.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        gid = a.expect("swiss_game", event=ev, round=1)["game"]
        b.expect("swiss_game", event=ev, game=gid)
        for n in srv.nodes:
            n.kill()
        for i in range(2):
            srv.restart_node(i)
        srv.pin(1)
        a2, b2, w = (self.client(srv, token=a.token),
                     self.client(srv, token=b.token), self.client(srv))
        st = self.retry(w, {"t": "swiss_watch", "event": ev},
                        "swiss_standings")
        self.assertEqual((st["round"], st["pairings"][0]["game"]),
                         (1, gid))
        a2.expect("state", timeout=20, game=gid)  # (adopted)
        a2.send({"t": "draw_offer", "game": gid})
        a2.expect_error("draw_too_early")
        b2.send({"t": "resign", "game": gid})
        a2.expect("game_end", game=gid)
        st = self.watch_until(w, ev, lambda s: s["status"] == "finished")
        self.assertIsNotNone(st["pairings"][0]["result"])
        points = {r["id"]: r["points"] for r in st["standings"]}
        self.assertEqual((points[a.pid], points[b.pid]), (1, 0))
