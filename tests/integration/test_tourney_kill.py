"""Tournaments through a kill -9 (issue 31): a 40-player arena over ten
minutes of test time and a 30-player Swiss of 7 rounds, each run twice
on fresh servers with the same seed, once straight and once with a
kill -9 in the middle and a restart on the same database (the clients
coming back with their tokens): every game's players and result (the
journal, by join order), every Swiss round's pairings and the final
standings are the same in both runs. On a cluster of three the same
Swiss and the same arena run straight and with the directing node
killed -9 in the middle (ClusterSwissKillTest, ClusterArenaKillTest):
another node takes the event over from the journal, and the same holds.

The state right after the restart equals the state at the kill, too.
A broken replay fails it (a journal line kind dropped, or a winner
swapped, on replay only).

Determinism: the scripted players' results are a function of the
pairing alone (a draw, a win or a loss, and in the arena the
winner's berserk, all by the two join numbers; an arena's draw is agreed
at once, a quick draw, a Swiss game's is a threefold repetition claimed
at ply 8, since a Swiss game has no draw offers before move 30); the
event's
seed is fixed (CHESS_TEST_EVENT_SEED); the arena's ticks come only from
the test's test_clock steps (CHESS_TEST_TOURNEY_TICK_MS = the step, so
real time never reaches a tick), each step taken once every game of the
last one has ended, so every tick sees all 40 players waiting. A Swiss
round is paired from the results alone."""
import os
import socket
import time
import unittest

from harness import CLUSTER, WAIT, ClusterServer, FreshServerTest, Server, \
    not_in_cluster, pg_drop, write_json

CLOCK = {"type": "fischer", "initial_s": 60, "increment_s": 0}
OPEN = {"arena_create": 2}
SEED = "1234567"
STEP_S = 60  # one arena tick per step of test time


# A Swiss game's draw: no agreement before move 30 (a Swiss rule), so a
# threefold repetition, claimed by Black with the move that makes it.
REPEAT = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1".split()
REPEAT_CLAIM = "f6g8"


def outcome(wi, bi):
    """The scripted result of a game between join numbers wi (white) and
    bi: "draw" (agreed at once in an arena, by repetition in a Swiss) when
    wi + 2 bi is a multiple of 7, else
    the loser's number: the lower number wins unless the sum is a
    multiple of 3."""
    if (wi + 2 * bi) % 7 == 0:
        return "draw"
    lower_wins = (wi + bi) % 3 != 0
    return bi if (wi < bi) == lower_wins else wi


def berserks(wi, bi):
    """Whether the winner berserks first (arenas)."""
    return (wi * bi) % 5 == 1


def arena_rows(st, index):
    """An arena's standings by join number, with each sheet and game."""
    return sorted((index[r["id"]], r["rank"], r["score"], r["fire"],
                   r["performance"], r["withdrawn"], r["game"],
                   [(x["kind"], x["points"], x["flag"], x.get("berserk"))
                    for x in r["sheet"]]) for r in st["standings"])


def swiss_state(st, index):
    """A Swiss event's standings by join number with each sheet, and its
    round's boards with their games and results."""
    rows = sorted((index[r["id"]], r["rank"], r["sn"], r["points"],
                   r["sb"], r["performance"], r["withdrawn"],
                   [(e["opp"], e["colour"], e["result"])
                    for e in r["sheet"]]) for r in st["standings"])
    boards = sorted((b["game"], index[b["white"]], index[b["black"]],
                     b["result"]) for b in st["pairings"])
    return rows, st["round"], boards


@not_in_cluster("test time is one process's clock")
class TourneyKillTest(FreshServerTest):
    def serve(self, run, offset_ms, stepped=True):
        """A server of run's folder at test time offset_ms, with the
        fixed seed; stepped: its tournaments tick at test_clock steps
        only (else every second)."""
        folder = self.path(run)
        self.addCleanup(pg_drop, folder)
        env = {"CHESS_TEST_CLOCK_MS": str(offset_ms),
               "CHESS_TEST_EVENT_SEED": SEED}
        if stepped:
            env["CHESS_TEST_TOURNEY_TICK_MS"] = str(STEP_S * 1000)
        s = Server(datadir=folder, name=run, env=env, extra=[
            "--config", write_json(self.path("open.json"), OPEN)])
        self.servers.append(s)
        return s

    def journal(self, srv, table, ev):
        return [c for (c,) in srv.sql(
            "SELECT call FROM %s WHERE event = ? ORDER BY seq" % table, ev)]

    def enrol(self, srv, kind, n, fields):
        """A new event of kind (arena or swiss) with n players joined one
        after the other and a watcher: (organiser, EID, players, {PID:
        join number}, watcher)."""
        org = self.client(srv)
        ev = org.request(dict({"t": kind + "_create", "name": "Kill",
                               "clock": CLOCK}, **fields),
                         kind + "_created")[kind]["event"]
        ps = [self.client(srv) for _ in range(n)]
        for p in ps:
            p.request({"t": kind + "_join", "event": ev}, kind + "_joined")
        w = self.client(srv)
        w.request({"t": kind + "_watch", "event": ev}, kind + "_standings")
        return org, ev, ps, {p.pid: i for i, p in enumerate(ps)}, w

    # ---- the arena ------------------------------------------------------

    def arena_run(self, kill_step):
        """One arena of 40 over 10 steps of 60 s; kill_step: the step in
        whose middle the server is killed (None: a straight run).
        Returns (the journal's games, the final standings by join
        number)."""
        run = "arena%s" % kill_step
        offset = [0]
        srv = self.serve(run, 0)
        org, ev, ps, index, w = self.enrol(srv, "arena", 40, {
            "duration_s": 600, "start_in_s": 0})

        def advance():
            w.request({"t": "test_clock", "advance_s": STEP_S}, "pong")
            offset[0] += STEP_S * 1000

        for step in range(10):
            advance()
            if step >= 9:  # pairings closed: under 30 s left at 9 steps
                break
            games = {}
            for p in ps:
                gid = p.expect("arena_game", event=ev)["game"]
                games.setdefault(gid, []).append(p)
            boards = []
            for gid, two in games.items():
                start = two[0].expect("game_start", game=gid)
                white = two[0] if start["white"]["id"] == two[0].pid \
                    else two[1]
                black = two[1] if white is two[0] else two[0]
                boards.append((gid, index[white.pid], index[black.pid]))
            self.assertEqual(len(boards), 20)
            boards.sort()
            done = boards
            if step == kill_step:
                done, rest = boards[:10], boards[10:]
            self.play_out(ps, done, berserk=True)
            if step == kill_step:
                live = {gid for gid, _, _ in rest}
                before = self.arena_snapshot(srv, ev, index, live)
                srv.kill()
                srv = self.serve(run, offset[0])
                ps = [self.client(srv, token=p.token) for p in ps]
                w = self.client(srv)
                w.request({"t": "arena_watch", "event": ev},
                          "arena_standings")
                # the state after the restart is the state at the kill
                self.assertEqual(
                    self.arena_snapshot(srv, ev, index, live), before)
                self.play_out(ps, rest, berserk=True)
        st = self.watch_until(w, "arena_standings", ev,
                              lambda s: s["status"] == "finished")
        rows = arena_rows(st, index)
        games, ends, berserked = [], set(), set()
        for call in self.journal(srv, "arena_calls", ev):
            f = call.split()
            if f[0] == "start":  # start GID WHITE BLACK T
                games.append((int(f[2]), int(f[3])))
            elif f[0] == "end":  # end G RESULT PLIES NOSTART T
                ends.add(tuple(int(x) for x in f[1:5]))
            elif f[0] == "berserk":  # berserk G SIDE PLIES T
                berserked.add(tuple(int(x) for x in f[1:4]))
            else:
                self.assertIn(f[0], ("new", "join"), call)
        self.assertEqual(len(games), 9 * 20)
        self.assertEqual(len(ends), len(games))
        self.assertTrue(berserked)
        return games, sorted(ends), sorted(berserked), rows

    def arena_snapshot(self, srv, ev, index, live):
        """The standings (arena_rows) once the games in play are live."""
        for _ in range(100):
            c = self.client(srv)
            st = c.request({"t": "arena_watch", "event": ev},
                           "arena_standings")
            c.close()
            if {r["game"] for r in st["standings"] if r["game"]} == live:
                return arena_rows(st, index)
            time.sleep(0.05)
        self.fail("the games in play are not %r" % live)

    def play_out(self, ps, boards, berserk=False, swiss=False):
        """Ends each board as outcome() says (boards: (gid, white
        number, black number)); berserk: the winner may berserk first;
        swiss: a draw by repetition (no agreement before move 30)."""
        if swiss:
            self.repeat(ps, [b for b in boards if outcome(b[1], b[2]) ==
                             "draw"])
        for gid, wi, bi in boards:
            lo = outcome(wi, bi)
            if lo == "draw":
                if not swiss:
                    ps[wi].send({"t": "draw_offer", "game": gid})
                continue
            if berserk and berserks(wi, bi):
                win = ps[wi + bi - lo]
                win.send({"t": "berserk", "game": gid})
                win.expect("berserk", game=gid)
            ps[lo].send({"t": "resign", "game": gid})
        for gid, wi, bi in boards:
            if outcome(wi, bi) == "draw" and not swiss:
                ps[bi].expect("draw_offered", game=gid)
                ps[bi].send({"t": "draw_accept", "game": gid})
        for gid, wi, bi in boards:
            ps[wi].expect("game_end", game=gid)

    def repeat(self, ps, boards):
        """Plays REPEAT on every board at once, a ply at a time, then
        Black claims the threefold repetition with REPEAT_CLAIM."""
        for ply, uci in enumerate(REPEAT):
            for gid, wi, bi in boards:
                ps[(wi, bi)[ply % 2]].move(gid, uci, ply)
            for gid, wi, bi in boards:
                ps[wi].expect("moved", game=gid, ply=ply + 1)
                ps[bi].expect("moved", game=gid, ply=ply + 1)
        for gid, wi, bi in boards:
            ps[bi].send({"t": "draw_claim", "game": gid,
                         "uci": REPEAT_CLAIM, "ply": len(REPEAT)})

    def watch_until(self, w, t, ev, pred):
        for _ in range(200):
            st = w.expect(t, timeout=20, event=ev)
            if pred(st):
                return st
        self.fail("no standings as expected")

    def test_arena_40_players_kill_in_the_middle(self):
        straight = self.arena_run(None)
        killed = self.arena_run(4)
        self.assertEqual(killed[0], straight[0])  # every game's players
        self.assertEqual(killed[1], straight[1])  # and result
        self.assertEqual(killed[2], straight[2])  # berserks
        self.assertEqual(killed[3], straight[3])  # the standings
        # the scripted results are not all alike: the table moved
        self.assertGreater(len({r[2] for r in straight[3]}), 5)
        kinds = {x[0] for r in straight[3] for x in r[-1]}
        self.assertEqual(kinds, {"win", "loss", "quick_draw"})

    # ---- the Swiss ------------------------------------------------------

    def swiss_run(self, kill_round):
        """A Swiss of 30 over 7 rounds; kill_round: the round in whose
        middle the server is killed (None: straight). Returns (each
        round's boards by join number with their results, the final
        standings by join number)."""
        run = "swiss%s" % kill_round
        srv = self.serve(run, 0, stepped=False)
        org, ev, ps, index, w = self.enrol(srv, "swiss", 30, {
            "rounds": 7, "interval_s": 0})
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        for rnd in range(1, 8):
            st = self.watch_until(w, "swiss_standings", ev,
                                  lambda s: s["round"] == rnd)
            boards = sorted((b["game"], index[b["white"]],
                             index[b["black"]]) for b in st["pairings"])
            self.assertEqual(len(boards), 15)
            done = boards
            if rnd == kill_round:
                done, rest = boards[:7], boards[7:]
            self.play_out(ps, done, swiss=True)
            if rnd == kill_round:
                st = self.watch_until(
                    w, "swiss_standings", ev, lambda s: sum(
                        b["result"] is not None for b in s["pairings"]) == 7)
                before = swiss_state(st, index)
                srv.kill()
                srv = self.serve(run, 0, stepped=False)
                ps = [self.client(srv, token=p.token) for p in ps]
                w = self.client(srv)
                st = w.request({"t": "swiss_watch", "event": ev},
                               "swiss_standings")
                # the state after the restart is the state at the kill
                self.assertEqual(swiss_state(st, index), before)
                open_games = {b["game"] for b in st["pairings"]
                              if b["result"] is None}
                self.assertEqual(open_games, {g for g, _, _ in rest})
                self.play_out(ps, rest, swiss=True)
        st = self.watch_until(w, "swiss_standings", ev,
                              lambda s: s["status"] == "finished")
        return self.swiss_rounds(srv, ev), swiss_state(st, index)[0]

    def swiss_rounds(self, srv, ev):
        """ev's 7 rounds from its journal: each round's pairs (by id, as
        journaled) and its ends (board, result) sorted."""
        rounds = []
        for call in self.journal(srv, "swiss_calls", ev):
            f = call.split()
            if f[0] == "pair":  # pair T W B W B ...
                rounds.append([tuple(f[2:]), set()])
            elif f[0] == "end":  # end K RESULT T
                rounds[-1][1].add((int(f[1]), f[2]))
            else:
                self.assertIn(f[0], ("new", "join", "start", "game",
                                     "finish"), call)
        self.assertEqual(len(rounds), 7)
        return [(b, sorted(e)) for b, e in rounds]

    def test_swiss_30_players_7_rounds_kill_in_the_middle(self):
        straight = self.swiss_run(None)
        killed = self.swiss_run(4)
        self.assertEqual(killed[0], straight[0])  # pairings and results
        self.assertEqual(killed[1], straight[1])  # the standings
        self.assertGreater(len({r[3] for r in straight[1]}), 4)
        results = {e[2] for r in straight[1] for e in r[-1]}
        self.assertEqual(results, {"1", "0", "="})



@unittest.skipUnless(CLUSTER, "a cluster's Swiss")
class ClusterSwissKillTest(FreshServerTest):
    """The same Swiss of 30 over 7 rounds on a cluster of three nodes:
    the organiser on node 0, which directs it (its lease), the players
    and the watcher on nodes 1 and 2; run straight, then with node 0
    killed (kill -9) in the middle of round 4: another node takes the
    event over from the journal, the round's games (hosted on node 0)
    are adopted by nodes 1 and 2, keep no draw offers before move 30,
    and end there; the new director reads their ends from the store.
    Pairings, results and standings equal the straight run's."""
    play_out = TourneyKillTest.play_out
    watch_until = TourneyKillTest.watch_until
    journal = TourneyKillTest.journal
    swiss_rounds = TourneyKillTest.swiss_rounds

    @staticmethod
    def reached(c, gid, ply, timeout=WAIT):
        """Waits until c knows gid's ply: its `moved`, or a `state` at that
        ply or later. A connection whose node follows an adopted game
        again gets its `state` (docs/cluster.md): a move made before
        that comes in the state, not as a `moved` (CI once)."""
        def moved(m):
            return m.get("t") == "moved" and m.get("game") == gid and \
                m.get("ply") == ply

        def state(m):  # (kept: it may answer later plies too)
            return m.get("t") == "state" and m.get("game") == gid and \
                m.get("ply", 0) >= ply
        for i, m in enumerate(c.backlog):
            if moved(m):
                c.backlog.pop(i)
                return
            if state(m):
                return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                m = c._next(max(0.01, deadline - time.monotonic()))
            except socket.timeout:
                continue
            if moved(m):
                return
            c.backlog.append(m)
            if state(m):
                return
        raise AssertionError("%s: ply %d not reached" % (gid, ply))

    def repeat(self, ps, boards):
        """TourneyKillTest.repeat, each ply awaited by reached()."""
        for ply, uci in enumerate(REPEAT):
            for gid, wi, bi in boards:
                ps[(wi, bi)[ply % 2]].move(gid, uci, ply)
            for gid, wi, bi in boards:
                self.reached(ps[wi], gid, ply + 1)
                self.reached(ps[bi], gid, ply + 1)
        for gid, wi, bi in boards:
            ps[bi].send({"t": "draw_claim", "game": gid,
                         "uci": REPEAT_CLAIM, "ply": len(REPEAT)})

    def sync_adopted(self, c, gid):
        """c's sync of gid, whose host was killed: asked again while the
        cluster answers busy (its adoption), until its state comes."""
        deadline = time.monotonic() + 20
        while True:
            try:
                return c.request({"t": "sync", "game": gid}, "state")
            except AssertionError:  # (busy while it is adopted)
                self.assertLess(time.monotonic(), deadline, "not adopted")
                time.sleep(0.3)

    def swiss_run(self, kill_round):
        srv = self.server(OPEN, nodes=3, env={
            "CHESS_TEST_CLOCK_MS": "0", "CHESS_TEST_EVENT_SEED": SEED,
            "CHESS_TEST_TOURNEY_TICK_MS": "200"})
        srv.pin(0)
        org = self.client(srv)
        ev = org.request({"t": "swiss_create", "name": "Kill",
                          "clock": CLOCK, "rounds": 7, "interval_s": 0},
                         "swiss_created")["swiss"]["event"]
        ps = []
        for i in range(30):
            srv.pin(1 + i % 2)
            ps.append(self.client(srv))
            # (sent on to node 0: joined in this order)
            ps[-1].request({"t": "swiss_join", "event": ev}, "swiss_joined")
        index = {p.pid: i for i, p in enumerate(ps)}
        srv.pin(1)
        w = self.client(srv)
        org.request({"t": "swiss_start", "event": ev}, "swiss_started")
        w.request({"t": "swiss_watch", "event": ev}, "swiss_standings")
        for rnd in range(1, 8):
            st = self.watch_until(w, "swiss_standings", ev,
                                  lambda s: s["round"] == rnd)
            boards = sorted((b["game"], index[b["white"]],
                             index[b["black"]]) for b in st["pairings"])
            self.assertEqual(len(boards), 15)
            for gid, wi, bi in boards:
                for c in (ps[wi], ps[bi]):
                    c.expect("swiss_game", event=ev, game=gid)
                    c.expect("game_start", game=gid)
            done = boards
            if rnd == kill_round:
                done, rest = boards[:7], boards[7:]
            self.play_out(ps, done, swiss=True)
            if rnd != kill_round:
                continue
            st = self.watch_until(w, "swiss_standings", ev, lambda s: sum(
                b["result"] is not None for b in s["pairings"]) == 7)
            before = swiss_state(st, index)
            srv.nodes[0].kill()
            gid, wi, bi = rest[0]
            for g, x, _ in rest:
                self.sync_adopted(ps[x], g)
            # an adopted Swiss game: no draw offer before move 30
            ps[wi].send({"t": "draw_offer", "game": gid})
            ps[wi].expect_error("draw_too_early")
            self.play_out(ps, rest, swiss=True)
            st = self.watch_until(w, "swiss_standings", ev, lambda s: all(
                b["result"] is not None for b in s["pairings"]))
            self.assertIn("event=tourney_taken_over event=" + ev,
                          srv.nodes[1].log_text() +
                          srv.nodes[2].log_text())
            # the state at the kill, and the round's other results
            rows, at, played = swiss_state(st, index)
            self.assertEqual(at, before[1])
            self.assertEqual([b[:3] for b in played],
                             [b[:3] for b in before[2]])
        st = self.watch_until(w, "swiss_standings", ev,
                              lambda s: s["status"] == "finished")
        return self.swiss_rounds(srv, ev), swiss_state(st, index)[0]

    def test_swiss_30_players_7_rounds_director_killed(self):
        straight = self.swiss_run(None)
        killed = self.swiss_run(4)
        self.assertEqual(killed[0], straight[0])  # pairings and results
        self.assertEqual(killed[1], straight[1])  # the standings
        self.assertGreater(len({r[3] for r in straight[1]}), 4)


@unittest.skipUnless(CLUSTER, "a cluster's arena")
class ClusterArenaKillTest(FreshServerTest):
    """An arena of 40 over 11 minutes of test time (nine steps of 60 s,
    then one of 120 s past the end) on a cluster of three nodes: the
    organiser on node 0, which directs it, the players on nodes 1 and 2;
    run straight, then with node 0 killed (kill -9) in
    the middle of the fifth step: another node takes the event over from
    the journal, the step's games left (hosted on node 0) are adopted by
    nodes 1 and 2 and end there, and the new director reads their ends
    from the store (or scores those it adopted). Every game's players
    and result, the berserks and the standings equal the straight run's.

    Determinism, as TourneyKillTest's: the event ticks only at the
    test's steps (CHESS_TEST_TOURNEY_TICK_MS = the step), each node's
    test clock stepped alike (the director's last), once every game of
    the step before has ended and the director has scored it; the
    cluster's upkeep (the lease, the relay, the takeover) ticks apart on
    real time (docs/cluster.md, "Tournaments in a cluster"). A player's
    presence is asked at his join and at the takeover, so the next tick
    knows it; the balance is off (balance_games_per_s 0: a berserk goes
    to the game's host, which must direct the event), and every berserk
    of the step of the kill comes before it."""
    journal = TourneyKillTest.journal
    sync_adopted = ClusterSwissKillTest.sync_adopted

    def serve(self, run):
        folder = self.path(run)
        os.makedirs(folder, exist_ok=True)
        self.addCleanup(pg_drop, folder)
        srv = ClusterServer(datadir=folder, nodes=3, env={
            "CHESS_TEST_CLOCK_MS": "0", "CHESS_TEST_EVENT_SEED": SEED,
            "CHESS_TEST_TOURNEY_TICK_MS": str(STEP_S * 1000)}, extra=[
            "--config", write_json(self.path("arena.json"), dict(
                OPEN, balance_games_per_s=0))])
        self.servers.append(srv)
        return srv

    def standings(self, c, ev, pred, timeout=60):
        """ev's standings as its director answers c's watch (sent on by
        c's node), once pred holds (a watch answered busy while the
        event changes director is asked again)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                st = c.request({"t": "arena_watch", "event": ev},
                               "arena_standings")
            except AssertionError:
                st = None
            if st is not None and pred(st):
                return st
            time.sleep(0.1)
        self.fail("no standings as expected: %r" % (st,))

    @staticmethod
    def playing(st):
        return {r["game"] for r in st["standings"] if r["game"]}

    def play(self, ps, boards, berserk):
        """Ends each board as outcome() says; berserk: the winner
        berserks first where berserks() says (else done already)."""
        for gid, wi, bi in boards:
            lo = outcome(wi, bi)
            if berserk and lo != "draw" and berserks(wi, bi):
                win = ps[wi + bi - lo]
                win.send({"t": "berserk", "game": gid})
                win.expect("berserk", game=gid)
        for gid, wi, bi in boards:
            lo = outcome(wi, bi)
            if lo == "draw":
                ps[wi].send({"t": "draw_offer", "game": gid})
            else:
                ps[lo].send({"t": "resign", "game": gid})
        for gid, wi, bi in boards:
            if outcome(wi, bi) == "draw":
                ps[bi].expect("draw_offered", game=gid)
                ps[bi].send({"t": "draw_accept", "game": gid})
        for gid, wi, bi in boards:
            ps[wi].expect("game_end", game=gid)
            ps[bi].expect("game_end", game=gid)

    def arena_run(self, kill_step):
        """The arena on a fresh cluster; kill_step: the step in whose
        middle node 0 is killed (None: straight). Returns (the journal's
        games, ends, berserks, the final standings by join number)."""
        run = "carena%s" % kill_step
        srv = self.serve(run)
        clocks = []
        for i in range(3):
            srv.pin(i)
            clocks.append(self.client(srv))
        org = clocks[0]
        ev = org.request({"t": "arena_create", "name": "Kill",
                          "clock": CLOCK, "duration_s": 660,
                          "start_in_s": 0}, "arena_created")["arena"]["event"]
        ps = []
        for i in range(40):
            srv.pin(1 + i % 2)
            ps.append(self.client(srv))
            # (sent on to node 0: joined in this order)
            ps[-1].request({"t": "arena_join", "event": ev}, "arena_joined")
        index = {p.pid: i for i, p in enumerate(ps)}
        srv.pin(1)
        w = self.client(srv)
        director, live = 0, [0, 1, 2]
        for step in range(10):
            # (the last step of 120 s, past the end: 60 s of real time
            # may pass before the ninth step's pairings close, at 630 s)
            for i in sorted(live, key=lambda i: i == director):
                clocks[i].request({"t": "test_clock", "advance_s": STEP_S
                                   if step < 9 else 2 * STEP_S}, "pong")
            if step >= 9:
                break
            games = {}
            for p in ps:
                gid = p.expect("arena_game", event=ev)["game"]
                games.setdefault(gid, []).append(p)
            boards = []
            for gid, two in games.items():
                start = two[0].expect("game_start", game=gid)
                two[1].expect("game_start", game=gid)
                white = two[0] if start["white"]["id"] == two[0].pid \
                    else two[1]
                black = two[1] if white is two[0] else two[0]
                boards.append((gid, index[white.pid], index[black.pid]))
            self.assertEqual(len(boards), 20)
            boards.sort()
            if step != kill_step:
                self.play(ps, boards, berserk=True)
                continue
            # every berserk first (a berserk goes to the game's host, and
            # only the director takes it), then half the games
            for gid, wi, bi in boards:
                lo = outcome(wi, bi)
                if lo != "draw" and berserks(wi, bi):
                    win = ps[wi + bi - lo]
                    win.send({"t": "berserk", "game": gid})
                    win.expect("berserk", game=gid)
            done, rest = boards[:10], boards[10:]
            self.play(ps, done, berserk=False)
            # (the director's answer: released once its calls are
            # committed, the berserks and the ends)
            left = {g for g, _, _ in rest}
            self.standings(org, ev, lambda s: self.playing(s) == left)
            srv.nodes[0].kill()
            live, director = [1, 2], None
            for gid, wi, bi in rest:
                self.sync_adopted(ps[wi], gid)
                self.sync_adopted(ps[bi], gid)
            self.play(ps, rest, berserk=False)
            # the new director scored them all (its own, or read)
            self.standings(w, ev, lambda s: not self.playing(s))
            for i in live:
                if "event=tourney_taken_over event=" + ev in \
                        srv.nodes[i].log_text():
                    director = i
            self.assertIsNotNone(director, "not taken over")
        st = self.standings(w, ev, lambda s: s["status"] == "finished")
        rows = arena_rows(st, index)
        games, ends, berserked = [], set(), set()
        for call in self.journal(srv, "arena_calls", ev):
            f = call.split()
            if f[0] == "start":  # start GID WHITE BLACK T
                games.append((int(f[2]), int(f[3])))
            elif f[0] == "end":  # end G RESULT PLIES NOSTART T
                ends.add(tuple(int(x) for x in f[1:5]))
            elif f[0] == "berserk":  # berserk G SIDE PLIES T
                berserked.add(tuple(int(x) for x in f[1:4]))
            else:
                self.assertIn(f[0], ("new", "join"), call)
        self.assertEqual(len(games), 9 * 20)
        self.assertEqual(len(ends), len(games))
        self.assertTrue(berserked)
        return games, sorted(ends), sorted(berserked), rows

    def test_arena_40_players_director_killed(self):
        straight = self.arena_run(None)
        killed = self.arena_run(4)
        self.assertEqual(killed[0], straight[0])  # every game's players
        self.assertEqual(killed[1], straight[1])  # and result
        self.assertEqual(killed[2], straight[2])  # berserks
        self.assertEqual(killed[3], straight[3])  # the standings
        self.assertGreater(len({r[2] for r in straight[3]}), 5)
        kinds = {x[0] for r in straight[3] for x in r[-1]}
        self.assertEqual(kinds, {"win", "loss", "quick_draw"})
