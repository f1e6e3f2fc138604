"""Tournaments, the organiser's side (PROTOCOL.md "Swiss tournaments",
"Arena tournaments"): a Swiss event's players' cap (swiss_players), its
organiser's commands (pause and resume, forbidden pairs honoured by the
Dutch engine, a round paired by hand and checked, a player removed, the
event ended, an early start) refused to anyone else, and what joins and
withdrawals do while a round is being paired off the loop, a round of
700 players journaled in parts and replayed; an arena's
early start and termination; a moderator (the operator's role) may act
as any event's organiser. Who may create an event (tourney_account_days,
tourney_creators; on the WebSocket and over HTTP), and an arena's players'
cap (arena_players)."""
import time

from harness import CLUSTER, FreshServerTest, not_in_cluster
from test_lichessapi import call

CLOCK = {"type": "fischer", "initial_s": 60, "increment_s": 0}
OPEN = {"arena_create": 2}  # anyone creates (guests: no registering)


def create(c, rounds=3, **kw):
    msg = dict({"t": "swiss_create", "name": "Club", "clock": CLOCK,
                "rounds": rounds}, **kw)
    return c.request(msg, "swiss_created")["swiss"]["event"]


def error(c, msg):
    return c.request(msg, "error")


@not_in_cluster("a node of a cluster runs no tournaments (docs/cluster.md)")
class SwissOrganiserTest(FreshServerTest):
    def join_all(self, ev, ps):
        for p in ps:
            p.request({"t": "swiss_join", "event": ev}, "swiss_joined")

    def standings(self, w, ev, pred, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            st = w.expect("swiss_standings", timeout=timeout, event=ev)
            if pred(st):
                return st
        self.fail("no standings as expected")

    def pairs(self, st):
        return sorted(tuple(sorted((b["white"], b["black"] or "")))
                      for b in st["pairings"])

    def resign_all(self, ps, st):
        by = {c.pid: c for c in ps}
        for b in st["pairings"]:
            if b["black"] is not None:
                by[b["white"]].expect("game_start", game=b["game"])
                by[b["white"]].send({"t": "resign", "game": b["game"]})

    def test_players_cap(self):
        srv = self.server(dict(OPEN, swiss_players=3))
        org = self.client(srv)
        ev = create(org)
        ps = [self.client(srv) for _ in range(4)]
        self.join_all(ev, ps[:3])
        err = error(ps[3], {"t": "swiss_join", "event": ev})
        self.assertEqual((err["code"], err["msg"]), (
            "events_full", "the tournament has 3 players, the most one may "
            "have on this server"))
        # a withdrawn player comes back: no new place taken
        ps[0].request({"t": "swiss_withdraw", "event": ev}, "swiss_withdrawn")
        err = error(ps[3], {"t": "swiss_join", "event": ev})
        self.assertEqual(err["code"], "events_full")
        ps[0].request({"t": "swiss_join", "event": ev}, "swiss_joined")

    def test_only_the_organiser(self):
        srv = self.server(OPEN)
        org, other = self.client(srv), self.client(srv)
        ev = create(org)
        other.request({"t": "swiss_join", "event": ev}, "swiss_joined")
        for msg, what in (
                ({"t": "swiss_pause"}, "pause it"),
                ({"t": "swiss_resume"}, "resume it"),
                ({"t": "swiss_terminate"}, "end it"),
                ({"t": "swiss_remove", "to": other.pid}, "remove a player"),
                ({"t": "swiss_forbid", "pairs": []}, "forbid pairs"),
                ({"t": "swiss_pair", "pairs": [[other.pid, None]]},
                 "pair a round")):
            err = error(other, dict(msg, event=ev))
            self.assertEqual((err["code"], err["msg"]), (
                "not_organiser", "only the tournament's organiser (its "
                "creator) may " + what))
        for bad in ({"pairs": [[other.pid]]}, {"pairs": "x"},
                    {"pairs": [[other.pid, None]]},
                    {"pairs": [["a", "b"]] * 65}):
            err = error(org, dict({"t": "swiss_forbid", "event": ev}, **bad))
            self.assertEqual(err["code"], "bad_field", bad)
        err = error(org, {"t": "swiss_remove", "event": ev, "to": "nobody"})
        self.assertEqual((err["code"], err["msg"]), (
            "not_joined", "nobody has not joined this tournament"))
        # nothing changed: the event is open, its player in it
        st = other.request({"t": "swiss_watch", "event": ev},
                           "swiss_standings")
        self.assertEqual((st["status"], [r["id"] for r in st["standings"]]),
                         ("open", [other.pid]))

    def test_forbid_pause_manual_remove_terminate(self):
        srv = self.server(OPEN)
        org = self.client(srv)
        ev = create(org, start_in_s=3600)
        ps = [self.client(srv) for _ in range(4)]  # 1500 each: SN 1-4
        self.join_all(ev, ps)
        a, b, c, d = [p.pid for p in ps]
        err = error(org, {"t": "swiss_forbid", "event": ev,
                          "pairs": [[a, "nobody"]]})
        self.assertEqual((err["code"], err["msg"]), (
            "bad_pairings", "pairs[0]: nobody has not joined this "
            "tournament"))
        err = error(org, {"t": "swiss_forbid", "event": ev,
                          "pairs": [[a, a]]})
        self.assertEqual(err["code"], "bad_pairings")
        # the Dutch engine pairs 1-3 and 2-4: 1-3 is forbidden
        org.request({"t": "swiss_forbid", "event": ev, "pairs": [[a, c]]},
                    "swiss_forbidden")
        w = self.client(srv)
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        # start early: a start time an hour away
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        st = self.standings(w, ev, lambda s: s["round"] == 1)
        self.assertEqual(self.pairs(st), sorted([tuple(sorted((a, d))),
                                                 tuple(sorted((b, c)))]))
        err = error(org, {"t": "swiss_start", "event": ev})
        self.assertEqual(err["code"], "event_started")
        # paused: the round ends, no round 2 is paired
        org.request({"t": "swiss_pause", "event": ev}, "swiss_paused")
        org.request({"t": "swiss_pause", "event": ev}, "swiss_paused")
        self.resign_all(ps, st)
        self.standings(w, ev, lambda s: all(x["result"]
                                            for x in s["pairings"]))
        time.sleep(2.5)  # (more than two ticks)
        st = org.request({"t": "swiss_watch", "event": ev},
                         "swiss_standings")
        self.assertEqual(st["round"], 1)
        # the organiser's round 2, checked
        for pairs, msg in (
                ([[a, b], [c, a]], "board 2: a player paired twice"),
                ([[a, b]], "4 players are in the round, the boards pair 2"),
                ([[a, c], [b, d]], "board 1: a forbidden pair"),
                ([[a, b], [c, None], [d, None]],
                 "board 2: a bye, but only the last board of an odd number "
                 "of players is one")):
            err = error(org, {"t": "swiss_pair", "event": ev,
                              "pairs": pairs})
            self.assertEqual((err["code"], err["msg"]),
                             ("bad_pairings", msg))
        got = org.request({"t": "swiss_pair", "event": ev,
                           "pairs": [[b, a], [d, c]]}, "swiss_paired")
        self.assertEqual(got["round"], 2)
        err = error(org, {"t": "swiss_pair", "event": ev,
                          "pairs": [[b, a], [d, c]]})
        self.assertEqual(err["code"], "bad_pairings")
        st = self.standings(w, ev, lambda s: s["round"] == 2)
        self.assertEqual([(x["white"], x["black"], x["game"])
                          for x in st["pairings"]],
                         [(b, a, None), (d, c, None)])  # paused: no games
        org.request({"t": "swiss_resume", "event": ev}, "swiss_resumed")
        for p in ps:
            p.expect("swiss_game", event=ev, round=2)
        # removed: out of the next rounds, and may not come back
        org.request({"t": "swiss_remove", "event": ev, "to": d},
                    "swiss_removed")
        err = error(ps[3], {"t": "swiss_join", "event": ev})
        self.assertEqual(err["code"], "removed")
        err = error(org, {"t": "swiss_remove", "event": ev, "to": d})
        self.assertEqual(err["code"], "not_joined")
        org.request({"t": "swiss_terminate", "event": ev}, "swiss_terminated")
        st = self.standings(w, ev, lambda s: s["status"] == "finished")
        self.assertEqual(st["round"], 2)
        err = error(ps[0], {"t": "swiss_join", "event": ev})
        self.assertEqual(err["code"], "event_over")
        # the journal replays every call: the same after a restart
        srv.kill()
        srv = self.server(OPEN)
        w = self.client(srv)
        st2 = w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        self.assertEqual((st2["status"], st2["round"], self.pairs(st2)),
                         ("finished", 2, self.pairs(st)))
        self.assertEqual([r["withdrawn"] for r in st2["standings"]
                          if r["id"] == d], [True])

    def test_joins_and_withdrawals_while_pairing(self):
        # every pairing waits 3 s on the worker (tests only)
        srv = self.server(OPEN, env={"CHESS_TEST_CLOCK_MS": "0",
                                     "CHESS_TEST_SWISS_PAIR_MS": "3000"})
        org = self.client(srv)
        ev = create(org)
        ps = [self.client(srv) for _ in range(4)]
        self.join_all(ev, ps[:3])
        w = self.client(srv)
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        time.sleep(1.5)  # the next tick (within 1 s) sent the round out
        err = error(ps[3], {"t": "swiss_join", "event": ev})
        self.assertEqual((err["code"], err["msg"]), (
            "pairing", "round 1 is being paired: join again when its "
            "pairings are out, in a few seconds"))
        # a withdrawal voids the pairing under way: paired again without
        ps[2].request({"t": "swiss_withdraw", "event": ev},
                      "swiss_withdrawn")
        st = self.standings(w, ev, lambda s: s["round"] == 1)
        self.assertEqual(self.pairs(st), [tuple(sorted((ps[0].pid,
                                                        ps[1].pid)))])
        log = srv.log_text()
        self.assertIn("used=0", log)  # the first, dropped
        self.assertIn("used=1", log)
        self.assertNotIn("swiss_call_refused", log)
        ps[3].request({"t": "swiss_join", "event": ev}, "swiss_joined")

    def test_a_round_of_700_journaled_in_parts(self):
        # 350 boards are more than one journal row (4096 bytes) holds
        conf = dict(OPEN, max_connections_per_ip=1000)
        srv = self.server(conf)
        org = self.client(srv)
        ev = create(org, rounds=2)
        ps = [self.client(srv) for _ in range(700)]
        self.join_all(ev, ps)
        w = self.client(srv)
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        st = self.standings(w, ev, lambda s: s["round"] == 1)
        self.assertEqual(len(st["pairings"]), 350)
        self.assertIn("used=1", srv.log_text())
        srv.kill()
        srv = self.server(conf)
        w = self.client(srv)
        st2 = w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        self.assertEqual((st2["round"], self.pairs(st2)),
                         (1, self.pairs(st)))
        self.assertNotIn("replay_refused", srv.log_text())


@not_in_cluster("a node of a cluster runs no tournaments (docs/cluster.md)")
class ArenaOrganiserTest(FreshServerTest):
    def standings(self, w, ev, pred):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            st = w.expect("arena_standings", timeout=20, event=ev)
            if pred(st):
                return st
        self.fail("no standings as expected")

    def test_start_early_and_terminate(self):
        srv = self.server(OPEN)
        org, other = self.client(srv), self.client(srv)
        a = org.request({"t": "arena_create", "name": "Blitz",
                         "clock": CLOCK, "duration_s": 600,
                         "start_in_s": 3600}, "arena_created")["arena"]
        ev = a["event"]
        for t, what in (("arena_start", "start it"),
                        ("arena_terminate", "end it")):
            err = error(other, {"t": t, "event": ev})
            self.assertEqual((err["code"], err["msg"]), (
                "not_organiser", "only the tournament's organiser (its "
                "creator) may " + what))
        ps = [self.client(srv) for _ in range(2)]
        for p in ps:
            p.request({"t": "arena_join", "event": ev}, "arena_joined")
        w = self.client(srv)
        st = w.request({"t": "arena_watch", "event": ev}, "arena_standings")
        self.assertEqual(st["status"], "open")
        before = time.time() * 1000
        org.request({"t": "arena_start", "event": ev}, "arena_started")
        st = self.standings(w, ev, lambda s: s["status"] == "running")
        self.assertLess(abs(st["start_ms"] - before), 5000)
        self.assertEqual(st["end_ms"] - st["start_ms"], 600 * 1000)
        err = error(org, {"t": "arena_start", "event": ev})
        self.assertEqual(err["code"], "event_started")
        gid = ps[0].expect("arena_game", event=ev)["game"]
        ps[1].expect("arena_game", event=ev, game=gid)
        # ended with a game in play: it goes on, but does not count
        org.request({"t": "arena_terminate", "event": ev},
                    "arena_terminated")
        self.standings(w, ev, lambda s: s["status"] == "ending")
        err = error(ps[0], {"t": "arena_join", "event": ev})
        self.assertEqual(err["code"], "event_over")
        ps[0].send({"t": "resign", "game": gid})
        st = self.standings(w, ev, lambda s: s["status"] == "finished")
        self.assertEqual([r["sheet"] for r in st["standings"]], [[], []])
        srv.kill()
        w = self.client(self.server(OPEN))
        st = w.request({"t": "arena_watch", "event": ev}, "arena_standings")
        if st["status"] != "finished":  # (the first tick finishes it)
            st = self.standings(w, ev, lambda s: s["status"] == "finished")
        self.assertLess(st["end_ms"] - st["start_ms"], 600 * 1000)


class ModeratorOrganiserTest(FreshServerTest):
    def test_a_moderator_may(self):
        """A moderator acts as any event's organiser. In a cluster from a
        node that does not direct the events (node 1; node 0 directs):
        the role goes in the command's envelope, the director has not
        read her facts."""
        srv = self.server(OPEN)
        if CLUSTER:
            srv.pin(0)
        org = self.client(srv)
        ev = create(org)
        arena = org.request({"t": "arena_create", "name": "Blitz",
                             "clock": CLOCK, "duration_s": 600},
                            "arena_created")["arena"]["event"]
        if CLUSTER:
            srv.pin(1)
        mona = self.client(srv, name="Mona")
        r = mona.request({"t": "register", "username": "Mona",
                          "password": "correct horse battery"},
                         "registered")
        err = error(mona, {"t": "swiss_pause", "event": ev})
        self.assertEqual(err["code"], "not_organiser")
        rc, _, err = self.mod(srv, "grant", "mona")
        self.assertEqual(rc, 0, err)
        mod = self.client(srv, token=r["token"])  # (the role read at login)
        self.assertIs(mod.player.get("moderator"), True)
        mod.request({"t": "swiss_pause", "event": ev}, "swiss_paused")
        mod.request({"t": "swiss_terminate", "event": ev},
                    "swiss_terminated")
        mod.request({"t": "arena_terminate", "event": arena},
                    "arena_terminated")


DAY_MS = 24 * 3600 * 1000
ARENA = {"t": "arena_create", "name": "Blitz", "clock": CLOCK,
         "duration_s": 600, "start_in_s": 600}
SWISS = {"t": "swiss_create", "name": "Club", "clock": CLOCK, "rounds": 3}


class CreatorsTest(FreshServerTest):
    """Who creates tournaments when arena_create is 1 (accounts): the
    accounts of tourney_account_days or more, or only those that
    tourney_creators names; a moderator either way. In a cluster the
    event is created (and directed) by the creator's node."""

    def account(self, srv, name):
        """A new account's client and its token."""
        c = self.client(srv)
        r = c.request({"t": "register", "username": name,
                       "password": "correct horse battery"}, "registered")
        return c, r["token"]

    def refused(self, c, code, msg=None):
        for create in (ARENA, SWISS):
            err = error(c, create)
            self.assertEqual(err["code"], code, create["t"])
            if msg:
                self.assertEqual(err["msg"], msg, create["t"])

    def creates(self, c):
        c.request(ARENA, "arena_created")
        c.request(SWISS, "swiss_created")

    def test_account_age(self):
        srv = self.server({"arena_create": 1, "tourney_account_days": 2})
        self.refused(self.client(srv), "needs_account")
        young, token = self.account(srv, "young")
        too_new = ("your account is %d days old: one of 2 days or more may "
                   "create a tournament here")
        self.refused(young, "account_too_new", too_new % 0)
        # the account made a day and a half earlier (its facts read again
        # by a new connection): still too young, then 2 days old
        srv.sql("UPDATE accounts SET created_ms = created_ms - ? WHERE "
                "username = ?", DAY_MS * 3 // 2, "young")
        self.refused(self.client(srv, token=token), "account_too_new",
                     too_new % 1)
        srv.sql("UPDATE accounts SET created_ms = created_ms - ? WHERE "
                "username = ?", DAY_MS // 2, "young")
        self.creates(self.client(srv, token=token))
        # a moderator, however young
        mona, token = self.account(srv, "Mona")
        self.refused(mona, "account_too_new", too_new % 0)
        rc, _, err = self.mod(srv, "grant", "mona")
        self.assertEqual(rc, 0, err)
        self.creates(self.client(srv, token=token))

    @not_in_cluster("test time is one process's clock")
    def test_account_ages_while_connected(self):
        """An account registered on this connection ages on it: its
        creation is known from the register (no read of its facts)."""
        srv = self.server({"arena_create": 1, "tourney_account_days": 1},
                          env={"CHESS_TEST_CLOCK_MS": "0"})
        young, _ = self.account(srv, "young")
        self.refused(young, "account_too_new")
        young.request({"t": "test_clock", "advance_s": 24 * 3600}, "pong")
        self.creates(young)

    def test_listed_creators(self):
        srv = self.server({"arena_create": 1,
                           "tourney_creators": "Carol,mona"})
        self.refused(self.client(srv), "needs_account")
        carol, _ = self.account(srv, "carol")  # (any case)
        self.creates(carol)
        bob, token = self.account(srv, "bob")
        self.refused(bob, "not_organiser",
                     "only the accounts the operator names (and moderators) "
                     "may create a tournament here")
        rc, _, err = self.mod(srv, "grant", "bob")
        self.assertEqual(rc, 0, err)
        self.creates(self.client(srv, token=token))

    def test_over_http(self):
        """The HTTP API's creations are held to the same rules. Its call
        is a session of the token's account, whose record (and facts) may
        not be in memory: they are read first, then the call runs."""
        srv = self.server({"arena_create": 1, "tourney_account_days": 1,
                           "http_rate_per_s": 1000, "http_burst": 1000})
        arena = {"name": "Blitz", "clockTime": "1", "clockIncrement": "0",
                 "minutes": "5", "waitMinutes": "5"}
        swiss = {"name": "Club", "clock.limit": "60",
                 "clock.increment": "0", "nbRounds": "3"}
        api = {}
        for name in ("young", "old"):
            c, _ = self.account(srv, name)
            api[name] = c.request({"t": "token_create",
                                   "scopes": ["tournament:write"]},
                                  "token_created")["token"]
            c.close()  # (its record goes: nothing else holds it)
        srv.sql("UPDATE accounts SET created_ms = created_ms - ? WHERE "
                "username = ?", DAY_MS, "old")
        for path, fields in (("/api/tournament", arena),
                             ("/api/swiss/new", swiss)):
            status, err = call(srv, "POST", path, api["young"], fields)
            self.assertEqual((status, err.get("code")),
                             (403, "account_too_new"), (path, err))
            status, ev = call(srv, "POST", path, api["old"], fields)
            self.assertEqual(status, 200, (path, ev))

    def test_arena_players_cap(self):
        srv = self.server(dict(OPEN, arena_players=3))
        ev = self.client(srv).request(ARENA, "arena_created")["arena"]["event"]
        ps = [self.client(srv) for _ in range(4)]
        for p in ps[:3]:
            p.request({"t": "arena_join", "event": ev}, "arena_joined")
        err = error(ps[3], {"t": "arena_join", "event": ev})
        self.assertEqual((err["code"], err["msg"]), (
            "events_full", "the tournament has as many players as it may"))
        # a withdrawn player comes back: no new place taken
        ps[0].request({"t": "arena_withdraw", "event": ev}, "arena_withdrawn")
        self.assertEqual(error(ps[3], {"t": "arena_join", "event": ev})
                         ["code"], "events_full")
        ps[0].request({"t": "arena_join", "event": ev}, "arena_joined")
