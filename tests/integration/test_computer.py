"""Playing the computer over the real server (PROTOCOL.md, "Playing the
computer"): with Debian's Stockfish, a game against each level played to
its end, the colour asked for, a game from a FEN, one computer game at a
time (and so many per address), the errors, the PGN and the player's
history, a restart in the middle of a game; with the fake engine (tests/unit/fake_uci.c), an engine
that crashes once, answers an illegal move once or hangs once is
replaced and the game goes on, one that always crashes resigns, and a
full queue refuses a new game with `busy`.
"""
import os
import random
import threading
import time
import urllib.request

from harness import (CLUSTER, WAIT, Client, FreshServerTest, ServerTest,
                     not_in_cluster, one_node, wait_until)

FAKE = os.environ.get("CHESS_FAKE_UCI", "")
# A fast clock: a whole game of the strongest level fits in seconds
# (its move time is cut to a thirtieth of what it has left).
FAST = {"type": "fischer", "initial_s": 10, "increment_s": 0}
BLITZ = {"type": "fischer", "initial_s": 180, "increment_s": 2}
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# White to move mates at once (Qh8#): what any level of Stockfish finds.
MATE_IN_ONE = "k7/8/1K6/8/8/8/7Q/8 w - - 0 1"


def computer(c, level, clock=FAST, color="white", fen=None):
    """Starts a computer game for c; returns (gid, game_start, state)."""
    msg = {"t": "computer", "level": level, "clock": clock, "color": color}
    if fen:
        msg["fen"] = fen
    c.send(msg)
    start = c.expect("game_start")
    return start["game"], start, c.expect("state", game=start["game"])


def play_out(c, gid, you, state, rng, timeout=60):
    """Plays random legal moves as `you` until the game ends; returns
    (game_end, the computer's moved messages)."""
    ply0, side0 = state["ply"], state["to_move"]
    ply, legal, to_move = ply0, state["legal"], side0
    other = {"white": "black", "black": "white"}
    theirs = []
    deadline = time.monotonic() + timeout
    while True:
        if to_move == you and legal:
            c.move(gid, rng.choice(legal), ply)
            legal = []  # (until its moved)
        m = c.next(timeout=max(0.1, deadline - time.monotonic()))
        if m.get("game") != gid:
            continue
        if m["t"] == "game_end":
            return m, theirs
        if m["t"] == "moved":
            mover = side0 if (m["ply"] - 1 - ply0) % 2 == 0 else other[side0]
            ply, legal, to_move = m["ply"], m["legal"], other[mover]
            if mover != you:
                theirs.append(m)
        elif m["t"] == "error":
            raise AssertionError("error while playing: %r" % m)


class ComputerTest(ServerTest):
    def start(self, c, level, **kw):
        return computer(c, level, **kw)

    def test_every_level_plays_to_the_end(self):
        """A game against each level, all at once (a thread per player,
        playing random moves at once), runs to its end: the computer's
        moves come on their own, with no lag credit, and each ending is
        one of the protocol's; its seat is the level's."""
        players, ends, errors = [], {}, []
        for level in range(1, 9):
            c = self.client()
            color = "white" if level % 2 else "black"
            gid, start, st = self.start(c, level, color=color)
            ai = start["black" if color == "white" else "white"]
            self.assertEqual(ai, {"id": "stockfish-%d" % level,
                                  "name": "Stockfish level %d" % level,
                                  "account": False, "ai": level})
            self.assertEqual(start["you"], color)
            self.assertFalse(start["rated"])
            players.append((level, c, gid, color, st))

        def run(level, c, gid, color, st):
            try:
                ends[level] = play_out(c, gid, color, st,
                                       random.Random(level))
            except Exception as e:  # (reported below, on the test's thread)
                errors.append((level, e))
        t0 = time.monotonic()
        threads = [threading.Thread(target=run, args=p) for p in players]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for level in range(1, 9):
            end, theirs = ends[level]
            self.assertIn(end["reason"], (
                "checkmate", "stalemate", "dead_position", "fivefold",
                "seventy_five_moves", "timeout", "timeout_vs_insufficient"))
            self.assertTrue(theirs, level)
            for m in theirs:
                self.assertEqual(m["lag_ms"], 0)
        # (on this machine: about 6 s for the eight together)
        self.assertLess(time.monotonic() - t0, 60)

    def test_colour_fen_pgn_and_history(self):
        rng = random.Random(5)
        # black: the computer moves first, on its own
        c = self.client()
        gid, start, st = self.start(c, 3, color="black", clock=BLITZ)
        self.assertEqual(start["you"], "black")
        self.assertEqual(start["white"]["id"], "stockfish-3")
        m = c.expect("moved", game=gid, ply=1)
        self.assertEqual(m["lag_ms"], 0)
        c.send({"t": "resign", "game": gid})
        self.assertEqual(c.expect("game_end", game=gid)["result"], "1-0")
        # random: either colour; from a FEN: the computer mates at once
        d = self.client()
        gid, start, st = self.start(d, 8, color="random", fen=MATE_IN_ONE,
                                    clock=BLITZ)
        self.assertEqual(st["initial_fen"], MATE_IN_ONE)
        if start["you"] == "white":  # (its mate needs white's queen)
            d.send({"t": "resign", "game": gid})
            d.expect("game_end", game=gid)
            gid, start, st = self.start(d, 8, color="black",
                                        fen=MATE_IN_ONE, clock=BLITZ)
        m = d.expect("moved", game=gid, ply=1)
        self.assertEqual(m["uci"], "h2h8")
        end = d.expect("game_end", game=gid)
        self.assertEqual((end["result"], end["reason"]), ("1-0", "checkmate"))
        # the PGN names the computer, and the game is in d's history
        pgn = self.server.http("/api/games/%s/pgn" % gid)[2].decode()
        self.assertIn('[White "Stockfish level 8"]', pgn)
        self.assertIn('[Black "%s"]' % d.player["name"], pgn)
        self.assertIn("1. Qh8#", pgn)
        status, hist = self.server.http_json(
            "/api/players/%s/games" % d.pid)
        self.assertEqual(status, 200)
        self.assertIn(gid, [g["game"] for g in hist["games"]])
        g = [g for g in hist["games"] if g["game"] == gid][0]
        self.assertEqual(g["white"]["ai"], 8)
        self.assertFalse(g["rated"])
        del rng

    def test_one_game_at_a_time_and_errors(self):
        c = self.client()
        gid, _, _ = self.start(c, 1, clock=BLITZ)
        c.send({"t": "computer", "level": 2, "clock": BLITZ, "id": "x"})
        e = c.expect_error("too_many_games")
        self.assertEqual(e["id"], "x")
        self.assertIn("computer", e["msg"])
        # games against people do not count
        c.send({"t": "resign", "game": gid})
        c.expect("game_end", game=gid)
        gid2, _, _ = self.start(c, 2, clock=BLITZ)
        self.assertNotEqual(gid2, gid)
        c.send({"t": "abort", "game": gid2})
        c.expect("game_end", game=gid2)
        for bad, why in (
                ({"level": 0}, "level"), ({"level": 9}, "level"),
                ({"level": "5"}, "level"), ({"level": 5, "rated": True},
                                            "rated"),
                ({"clock": BLITZ}, "level"),
                ({"level": 5, "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "fen")):
            msg = dict({"t": "computer", "clock": BLITZ}, **bad)
            c.send(msg)
            self.assertIn(why, c.expect_error("bad_field")["msg"])
        c.send({"t": "computer", "level": 5})
        self.assertIn("clock", c.expect_error("bad_field")["msg"])
        c.send({"t": "computer", "level": 5, "clock": {"type": "x"}})
        c.expect_error("bad_clock")
        # a rematch is for people
        c.send({"t": "rematch", "game": gid})
        self.assertIn("computer", c.expect_error("no_rematch")["msg"])

    def test_no_takeback_nor_time_given(self):
        c = self.client()
        gid, _, st = self.start(c, 1, clock=BLITZ)
        c.move(gid, "e2e4", st["ply"])
        c.expect("moved", game=gid, ply=st["ply"] + 2)  # the computer's
        for t, code in (("takeback", "takeback_not_allowed"),
                        ("give_time", "give_time_not_allowed")):
            c.send({"t": t, "game": gid, "id": t})
            e = c.expect_error(code)
            self.assertEqual(e["id"], t)
            self.assertIn("computer", e["msg"])
        c.send({"t": "resign", "game": gid})
        c.expect("game_end", game=gid)

    @one_node
    def test_metrics(self):
        c = self.client()
        gid, _, _ = self.start(c, 1, color="black", clock=BLITZ)
        c.expect("moved", game=gid, ply=1)
        text = self.server.http("/metrics")[2].decode()
        for name in ("chess_engines ", "chess_engines_running ",
                     "chess_engine_queue ",
                     'chess_engine_restarts_total{reason="crash"} 0',
                     'chess_engine_requests_total{outcome="ok"}',
                     "chess_engine_think_seconds_count"):
            self.assertIn(name, text)
        c.send({"t": "resign", "game": gid})


@not_in_cluster("a restart of one process (test_cluster: a host killed)")
class ComputerRestartTest(FreshServerTest):
    def test_restart_mid_game_resumes(self):
        """kill -9 while the computer thinks: after the restart its move
        is asked again once its player is back, and the game goes on."""
        srv = self.server()
        c = self.client(srv)
        token = c.token
        c.send({"t": "computer", "level": 8, "clock": BLITZ,
                "color": "white"})
        gid = c.expect("game_start")["game"]
        c.expect("state", game=gid)
        c.move(gid, "e2e4", 0)
        c.expect("moved", game=gid, ply=1)
        reply = c.expect("moved", game=gid, ply=2)
        c.move(gid, "d2d4", 2)
        c.expect("moved", game=gid, ply=3)
        srv.kill()  # (its answer to ply 3 takes up to a second)
        srv.start()
        d = self.client(srv, token=token)
        self.assertIn(gid, d.games)
        m = d.expect("moved", game=gid, ply=4, timeout=WAIT * 2)
        self.assertEqual(m["lag_ms"], 0)
        st = d.request({"t": "sync", "game": gid}, "state")
        self.assertEqual((st["status"], st["ply"]), ("started", 4))
        self.assertEqual(st["moves"][:3], ["e2e4", reply["uci"], "d2d4"])


def _metric(server, name):
    text = server.http("/metrics")[2].decode()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError("no metric " + name)


@not_in_cluster("the fake engine's environment is one process's")
class FakeEngineTest(FreshServerTest):
    """The computer's games over the fake engine: every failure recovers
    or ends the game, none hangs."""

    def fake(self, mode, once=True, extra=(), **env):
        if not FAKE:
            self.skipTest("CHESS_FAKE_UCI not set")
        env = dict(env, FAKE_UCI_MODE=mode)
        if once:
            env["FAKE_UCI_ONCE"] = self.path("once")
        return self.server(extra=["--engine-path", FAKE] + list(extra),
                           env=env)

    def computer_moves_first(self, srv, level=1, clock=BLITZ):
        c = self.client(srv)
        c.send({"t": "computer", "level": level, "clock": clock,
                "color": "black"})
        gid = c.expect("game_start")["game"]
        c.expect("state", game=gid)
        return c, gid

    def assert_recovers(self, mode, reason):
        srv = self.fake(mode)
        c, gid = self.computer_moves_first(srv)
        m = c.expect("moved", game=gid, ply=1, timeout=WAIT * 2)
        self.assertEqual(m["uci"], "a2a3")  # (the fake's first move)
        c.move(gid, "e7e5", 1)
        c.expect("moved", game=gid, ply=2)
        c.expect("moved", game=gid, ply=3)
        self.assertEqual(_metric(
            srv, 'chess_engine_restarts_total{reason="%s"}' % reason), 1)
        self.assertIn("event=engine_restart reason=%s" % reason,
                      srv.log_text())

    def test_crash_once(self):
        self.assert_recovers("crash", "crash")

    def test_illegal_once(self):
        self.assert_recovers("illegal", "illegal")

    def test_garbage_once(self):
        self.assert_recovers("garbage", "garbage")

    def test_hang_once(self):
        self.assert_recovers("hang", "hang")

    def test_always_crashing_resigns(self):
        srv = self.fake("crash", once=False)
        c, gid = self.computer_moves_first(srv)
        end = c.expect("game_end", game=gid, timeout=WAIT * 2)
        self.assertEqual((end["result"], end["reason"]), ("0-1", "resignation"))
        self.assertEqual(_metric(
            srv, 'chess_engine_restarts_total{reason="crash"}'), 6)
        self.assertIn("event=computer_resigned", srv.log_text())

    def test_full_queue_is_busy(self):
        """One engine, a queue of two: one move thinking, one waiting,
        and the next new game is refused; the others go on."""
        srv = self.fake("slow", once=False,
                        extra=["--engines", "1",
                               "--config", self.path("q.json")],
                        FAKE_UCI_DELAY_MS="60000")
        a, ga = self.computer_moves_first(srv)
        wait_until(lambda: _metric(srv, "chess_engines_running") == 1,
                   "the engine thinking")
        b, gb = self.computer_moves_first(srv)
        wait_until(lambda: _metric(srv, "chess_engine_queue") == 1,
                   "a move waiting")
        c = self.client(srv)
        c.send({"t": "computer", "level": 1, "clock": BLITZ, "id": 3})
        e = c.expect_error("busy")
        self.assertEqual(e["id"], 3)
        # (the slow engine is stopped at its move time and answers)
        a.expect("moved", game=ga, ply=1, timeout=WAIT * 2)
        b.expect("moved", game=gb, ply=1, timeout=WAIT * 2)

    def test_full_queue_asks_again(self):
        """Four players move at once on one engine and a queue of two:
        the fourth move's request is refused by the full queue, asked
        again, and answered."""
        srv = self.fake("slow", once=False,
                        extra=["--engines", "1",
                               "--config", self.path("q.json")],
                        FAKE_UCI_DELAY_MS="300")
        players = []
        for _ in range(4):
            c = self.client(srv)
            c.send({"t": "computer", "level": 1, "clock": BLITZ,
                    "color": "white"})
            gid = c.expect("game_start")["game"]
            c.expect("state", game=gid)
            players.append((c, gid))
        for c, gid in players:
            c.move(gid, "e2e4", 0)
        for c, gid in players:
            c.expect("moved", game=gid, ply=2, timeout=WAIT * 2)
        self.assertIn("event=computer_queue_full", srv.log_text())

    def setUp(self):
        super().setUp()
        with open(self.path("q.json"), "w") as f:
            f.write('{"engine_queue": 2}')


@not_in_cluster("an address's computer games are counted per node")
class AddressCapTest(FreshServerTest):
    def test_an_address_plays_so_many_at_once(self):
        srv = self.server({"max_computer_games_per_ip": 2})
        games = []
        for _ in range(2):
            c = self.client(srv)
            gid, _, _ = computer(c, 1, clock=BLITZ)
            games.append((c, gid))
        third = self.client(srv)
        third.send({"t": "computer", "level": 1, "clock": BLITZ, "id": 9})
        e = third.expect_error("too_many_games")
        self.assertEqual(e["id"], 9)
        self.assertIn("your address plays 2 games", e["msg"])
        # a game that ends frees its place at once
        c, gid = games[0]
        c.send({"t": "resign", "game": gid})
        c.expect("game_end", game=gid)
        computer(third, 1, clock=BLITZ)


@not_in_cluster("one process's settings")
class NoEngineTest(FreshServerTest):
    def test_no_engine(self):
        srv = self.server(extra=["--engine-path", ""])
        c = self.client(srv)
        c.send({"t": "computer", "level": 1, "clock": BLITZ})
        c.expect_error("no_engine")
        self.assertIn("event=engines_off", srv.log_text())
