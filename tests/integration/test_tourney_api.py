"""The tournaments over HTTP (PROTOCOL.md section 9, "Tournaments over
HTTP"), on lichess's paths, in raw HTTP: an organiser's token creates an
arena, two bot accounts join it with theirs, are paired while their event
streams are open (an API bot counts as waiting), play, and the results
say who won; bots join only an event that admits them; withdraw,
terminate and the organiser's rule; a Swiss event created, joined,
started and read; the errors. In a cluster every call works through any
node: one that does not direct the event relays it to the director."""
import json
import threading
import time
import unittest

from harness import CLUSTER, FreshServerTest, wait_until
from test_botapi import Stream
import test_lichessapi
from test_lichessapi import call, exchange, raw

WRITE = "tournament:write"
ARENA = {"name": "Bots", "clockTime": "1", "clockIncrement": "0",
         "minutes": "5", "waitMinutes": "0"}


def results(server, path):
    status, ctype, body = raw(server, "GET", path)
    assert status == 200, (status, body)
    assert ctype.startswith("application/x-ndjson"), ctype
    return [json.loads(x) for x in body.decode().splitlines() if x.strip()]


class TourneyApiTest(FreshServerTest):
    CONFIG = {"http_rate_per_s": 1000, "http_burst": 1000}

    def server(self, config=None, **kw):
        cfg = dict(self.CONFIG, **(config or {}))
        return super().server(cfg, extra=["--registers-per-ip-per-min",
                                          "1000"], **kw)

    def account(self, srv, username, scopes=(WRITE,)):
        """A registered page of username's and a token of its (c.api)."""
        return test_lichessapi.LichessApiTest.account(self, srv, username,
                                                      scopes)

    def bot(self, srv, username):
        c = self.account(srv, username, ("bot:play", WRITE))
        self.assertEqual(call(srv, "POST", "/api/bot/account/upgrade",
                              c.api), (200, {"ok": True}))
        return c

    def arena(self, srv, org, **fields):
        status, ev = call(srv, "POST", "/api/tournament", org.api,
                          dict(ARENA, **fields))
        self.assertEqual(status, 200, ev)
        return ev

    def test_bots_join_an_arena_are_paired_and_scored(self):
        srv = self.server()
        org = self.account(srv, "organiser")
        ev = self.arena(srv, org, **{"conditions.bots": "true"})
        self.assertEqual((ev["system"], ev["fullName"], ev["clock"],
                          ev["minutes"], ev["nbPlayers"], ev["isStarted"],
                          ev["isFinished"], ev["berserkable"], ev["rated"],
                          ev["streakable"]),
                         ("arena", "Bots", {"limit": 60, "increment": 0}, 5,
                          0, True, False, True, False, True))
        self.assertTrue(ev["startsAt"].endswith("Z"))
        eid = ev["id"]
        a, b = self.bot(srv, "robo_a"), self.bot(srv, "robo_b")
        ea = Stream(srv.port, "/api/stream/event", a.api)
        eb = Stream(srv.port, "/api/stream/event", b.api)
        for x in (a, b):
            self.assertEqual(call(srv, "POST", "/api/tournament/%s/join"
                                  % eid, x.api), (200, {"ok": True}))
        # joined twice: the command's own error
        status, err = call(srv, "POST", "/api/tournament/%s/join" % eid,
                           a.api)
        self.assertEqual((status, err["code"]), (400, "already_joined"))
        # both bots wait (their event streams open): paired
        gid = ea.until("gameStart")["game"]["gameId"]
        self.assertEqual(eb.until("gameStart")["game"]["gameId"], gid)
        self.assertEqual(call(srv, "POST", "/api/bot/game/%s/resign" % gid,
                              b.api), (200, {"ok": True}))
        rows = []

        def scored():
            rows[:] = results(srv, "/api/tournament/%s/results" % eid)
            return rows and rows[0]["score"] == 2

        wait_until(scored, "the win scored")
        self.assertEqual([(r["rank"], r["username"], r["score"])
                          for r in rows],
                         [(1, "robo_a", 2), (2, "robo_b", 0)])
        self.assertEqual(len(results(srv, "/api/tournament/%s/results?nb=1"
                                     % eid)), 1)
        # the game's PGN, as GET /game/export/GID has it
        status, ctype, pgn = raw(srv, "GET", "/api/tournament/%s/games" % eid)
        self.assertEqual((status, ctype), (200, "application/x-chess-pgn"))
        self.assertEqual(pgn, raw(srv, "GET", "/game/export/" + gid)[2]
                         .rstrip(b"\n") + b"\n\n")
        self.assertIn(b'[White "robo_', pgn)
        self.assertEqual(call(srv, "GET", "/api/tournament/%s/games?max=0"
                              % eid), (400, {"error": "max: 1-300"}))
        status, got = call(srv, "GET", "/api/tournament/" + eid)
        self.assertEqual((status, got["nbPlayers"]), (200, 2))
        self.assertEqual([p["username"] for p in got["standing"]["players"]],
                         ["robo_a", "robo_b"])
        status, listed = call(srv, "GET", "/api/tournament")
        self.assertIn(eid, [e["id"] for e in listed["started"]])
        # withdraw, and the organiser's rule for terminate
        self.assertEqual(call(srv, "POST", "/api/tournament/%s/withdraw"
                              % eid, b.api), (200, {"ok": True}))
        status, err = call(srv, "POST", "/api/tournament/%s/withdraw" % eid,
                           b.api)
        self.assertEqual((status, err["code"]), (400, "not_joined"))
        status, err = call(srv, "POST", "/api/tournament/%s/terminate" % eid,
                           a.api)
        self.assertEqual((status, err["code"]), (403, "not_organiser"))
        self.assertEqual(call(srv, "POST", "/api/tournament/%s/terminate"
                              % eid, org.api), (200, {"ok": True}))
        wait_until(lambda: call(srv, "GET", "/api/tournament/" + eid)[1]
                   ["isFinished"], "the arena over")
        ea.close()
        eb.close()

    def test_bots_only_where_the_organiser_admits_them(self):
        srv = self.server()
        org = self.account(srv, "organiser")
        eid = self.arena(srv, org)["id"]
        robo, human = self.bot(srv, "robo_c"), self.account(srv, "human")
        calm = self.arena(srv, org, name="Calm", streakable="false")
        self.assertIs(calm["streakable"], False)
        status, err = call(srv, "POST", "/api/tournament/%s/join" % eid,
                           robo.api)
        self.assertEqual((status, err["code"], err["error"]),
                         (400, "condition_not_met",
                          "bots: this tournament does not admit bot "
                          "accounts"))
        self.assertEqual(call(srv, "POST", "/api/tournament/%s/join" % eid,
                              human.api), (200, {"ok": True}))
        status, got = call(srv, "GET", "/api/tournament/" + eid)
        self.assertEqual(got["nbPlayers"], 1)

    def test_a_moderator_organises_over_http(self):
        """A moderator's token starts and ends anyone's event (her role
        read with her facts: her record is not in memory)."""
        srv = self.server({"arena_create": 2})
        org = self.account(srv, "organiser")
        eid = self.arena(srv, org, waitMinutes="60")["id"]
        mona, other = self.account(srv, "Mona"), self.account(srv, "other")
        mona.close()  # (her record goes: nothing else holds it)
        start = "/api/tournament/%s/start" % eid
        status, err = call(srv, "POST", start, other.api)
        self.assertEqual((status, err["code"]), (403, "not_organiser"))
        rc, _, err = self.mod(srv, "grant", "mona")
        self.assertEqual(rc, 0, err)
        self.assertEqual(call(srv, "POST", start, mona.api),
                         (200, {"ok": True}))
        self.assertEqual(call(srv, "POST", "/api/tournament/%s/terminate"
                                           % eid, mona.api),
                         (200, {"ok": True}))

    def test_bad_requests_change_nothing(self):
        srv = self.server()
        org = self.account(srv, "organiser")
        play = self.account(srv, "player", ("board:play",))
        cases = [
            (dict(ARENA, description="x"), 400,
             "unknown field 'description'"),
            (dict(ARENA, rated="true"), 400,
             "rated: this server's tournament games are casual (false)"),
            (dict(ARENA, clockTime="0.33"), 400,
             "clockTime: minutes, 0 to 180 in whole seconds"),
            (dict(ARENA, streakable="no"), 400,
             "streakable: true or false"),
            (dict(ARENA, name="no spaces here"), 400, None),
        ]
        for form, want, words in cases:
            status, err = call(srv, "POST", "/api/tournament", org.api, form)
            self.assertEqual(status, want, (form, err))
            if words:
                self.assertEqual(err["error"], words)
        self.assertEqual(call(srv, "POST", "/api/tournament", "lip_" +
                              "x" * 20, ARENA)[0], 401)
        self.assertEqual(call(srv, "POST", "/api/tournament", play.api,
                              ARENA),
                         (403, {"error": "Missing scope: tournament:write"}))
        status, listed = call(srv, "GET", "/api/tournament")
        self.assertEqual(listed, {"created": [], "started": [],
                                  "finished": []})
        # the WebSocket commands the results come from
        for kind in ("arena", "swiss"):
            err = org.request({"t": kind + "_results"}, "error")
            self.assertEqual((err["code"], err["msg"]),
                             ("bad_field", "event: missing"))
            err = org.request({"t": kind + "_results", "event": "nosuch"},
                              "error")
            self.assertEqual(err["code"], "no_such_event")
        status, err = call(srv, "GET", "/api/tournament/nosuchevent")
        self.assertEqual((status, err["code"]), (404, "no_such_event"))
        status, err = call(srv, "POST", "/api/tournament/nosuchevent/join",
                           org.api)
        self.assertEqual((status, err["code"]), (404, "no_such_event"))
        for path in ("/api/tournament/x/nothing", "/api/tournament/a.b",
                     "/api/tournament/x/results/y", "/api/tournament/"):
            self.assertEqual(call(srv, "GET", path),
                             (404, {"error": "not_found"}), path)
        self.assertEqual(call(srv, "POST", "/api/tournament/x/results",
                              org.api), (404, {"error": "not_found"}))

    def test_a_swiss_created_joined_started_and_read(self):
        srv = self.server()
        org = self.account(srv, "organiser")
        later = int(time.time() * 1000) + 3600 * 1000
        status, sw = call(srv, "POST", "/api/swiss/new/someteam", org.api,
                          {"name": "Club", "clock.limit": "60",
                           "clock.increment": "1", "nbRounds": "3",
                           "startsAt": str(later),
                           "conditions.minRating.rating": "1000"})
        self.assertEqual(status, 200, sw)
        self.assertEqual((sw["name"], sw["status"], sw["nbRounds"],
                          sw["clock"], sw["round"]),
                         ("Club", "created", 3, {"limit": 60,
                                                 "increment": 1}, 0))
        sid = sw["id"]
        a, b = self.account(srv, "swiss_a"), self.account(srv, "swiss_b")
        for x in (a, b):
            self.assertEqual(call(srv, "POST", "/api/swiss/%s/join" % sid,
                                  x.api), (200, {"ok": True}))
        status, err = call(srv, "POST", "/api/swiss/%s/start" % sid, a.api)
        self.assertEqual((status, err["code"]), (403, "not_organiser"))
        self.assertEqual(call(srv, "POST", "/api/swiss/%s/start" % sid,
                              org.api), (200, {"ok": True}))
        wait_until(lambda: call(srv, "GET", "/api/swiss/" + sid)[1]
                   ["round"] == 1, "round 1 paired")
        self.assertEqual(call(srv, "GET", "/api/swiss/" + sid)[1]["status"],
                         "started")
        rows = results(srv, "/api/swiss/%s/results" % sid)
        self.assertEqual(sorted(r["username"] for r in rows),
                         ["swiss_a", "swiss_b"])
        self.assertEqual({r["points"] for r in rows}, {0})
        status, ctype, trf = raw(srv, "GET", "/api/swiss/%s.trf" % sid)
        self.assertEqual(status, 200)
        self.assertIn(b"012 Club", trf)
        self.assertEqual(call(srv, "POST", "/api/swiss/%s/terminate" % sid,
                              org.api), (200, {"ok": True}))

    @unittest.skipUnless(CLUSTER, "a cluster's nodes")
    def test_every_call_through_a_node_that_does_not_direct(self):
        """An arena created on node 0 (its director): joined, read and
        ended through nodes 1 and 2, relayed to node 0."""
        srv = self.server()
        n = srv.nodes
        org = self.account(srv, "organiser")
        status, ev = call(n[0], "POST", "/api/tournament", org.api, ARENA)
        self.assertEqual(status, 200, ev)
        eid = ev["id"]
        a, b = self.account(srv, "node_a"), self.account(srv, "node_b")
        self.assertEqual(call(n[1], "POST", "/api/tournament/%s/join" % eid,
                              a.api), (200, {"ok": True}))
        self.assertEqual(call(n[2], "POST", "/api/tournament/%s/join" % eid,
                              b.api), (200, {"ok": True}))
        status, err = call(n[2], "POST", "/api/tournament/%s/join" % eid,
                           a.api)
        self.assertEqual((status, err["code"]), (400, "already_joined"))
        self.assertEqual(sorted(r["username"] for r in results(
            n[1], "/api/tournament/%s/results" % eid)), ["node_a", "node_b"])
        status, got = call(n[2], "GET", "/api/tournament/" + eid)
        self.assertEqual((status, got["nbPlayers"]), (200, 2))
        status, err = call(n[1], "GET", "/api/tournament/nosuchevent")
        self.assertEqual((status, err["code"]), (404, "no_such_event"))
        self.assertEqual(call(n[1], "POST", "/api/tournament/%s/terminate"
                              % eid, org.api), (200, {"ok": True}))
        self.assertIn("event=tourney_api_relayed", n[1].log_text())

    @unittest.skipUnless(CLUSTER, "a cluster's nodes")
    def test_a_node_holds_256_calls(self):
        """A call for an event no node knows waits 2 s for a director:
        of 260 at once on one node, from 20 addresses (13 each: under the
        16 connections an address may hold), 256 wait (404 then) and 4
        are 503."""
        srv = self.server()
        got = []

        def ask(i):
            status, _, body = exchange(
                srv.nodes[1], ["GET /api/tournament/nosuch%d HTTP/1.1" % i],
                source="127.0.0.%d" % (10 + i % 20), timeout=20)
            got.append((status, json.loads(body)))

        threads = [threading.Thread(target=ask, args=(i,))
                   for i in range(260)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(status for status, _ in got),
                         [404] * 256 + [503] * 4)
        self.assertEqual({body["code"] for status, body in got},
                         {"no_such_event", "busy"})

if __name__ == "__main__":
    unittest.main()
