"""Rated games over the real server (PROTOCOL.md, "Rated games"): rated
games in each category change both players' ratings exactly as Glicko-2
says, computed here independently from Glickman's paper ("Example of the
Glicko-2 system", with the RD's growth for the days since a player's last
rated game); game_end's ratings, the PGN's tags, the rating history, the
profile, the games list and the leaderboard; a restart changes nothing;
rated_needs_account for guests at seek, invite and join; rating_range
pairing; rematch keeps the rated flag; an aborted game changes nothing."""
import math

from harness import FreshServerTest

SCALE = 173.7178
TAU = 0.5
DAY_MS = 86400000
PASSWORD = "correct horse"

BULLET = {"type": "fischer", "initial_s": 60, "increment_s": 0}
BLITZ = {"type": "fischer", "initial_s": 180, "increment_s": 2}
RAPID = {"type": "fischer", "initial_s": 600, "increment_s": 5}
CLASSICAL = {"type": "fischer", "initial_s": 1800, "increment_s": 0}
PER_MOVE = {"type": "per_move", "per_move_s": 60}


# ---- Glicko-2, from the paper ----------------------------------------------

def glicko2(r, rd, vol, opp_r, opp_rd, score):
    """One rating period with one game (steps 2-8 of the paper)."""
    mu, phi = (r - 1500) / SCALE, rd / SCALE
    mu_j, phi_j = (opp_r - 1500) / SCALE, opp_rd / SCALE
    g = 1 / math.sqrt(1 + 3 * phi_j ** 2 / math.pi ** 2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g ** 2 * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(vol ** 2)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi ** 2 - v - ex) /
                (2 * (phi ** 2 + v + ex) ** 2) - (x - a) / TAU ** 2)
    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        big_b = a - k * TAU
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(c)
        if f_c * f_b < 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = c, f_c
    sigma = math.exp(big_a / 2)
    phi_star = math.sqrt(phi ** 2 + sigma ** 2)
    phi_new = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu_new = mu + phi_new ** 2 * g * (score - e)
    return (SCALE * mu_new + 1500,
            min(max(SCALE * phi_new, 45.0), 350.0), sigma)


def aged(rd, vol, days):
    """The RD grown for `days` without a rated game (at most 350)."""
    phi = rd / SCALE
    return min(math.sqrt(phi ** 2 + vol ** 2 * days) * SCALE, 350.0)


def half_up(x):
    return math.floor(x + 0.5)


class Book:
    """The ratings this test expects: (pid, category) -> [r, rd, vol,
    last_ms, games, wins, draws, losses]."""

    def __init__(self):
        self.rows = {}

    def get(self, pid, cat):
        return self.rows.get((pid, cat), [1500.0, 350.0, 0.06, 0, 0, 0, 0,
                                          0])

    def game(self, white, black, cat, white_score, ended_ms):
        """Both players after a rated game that ended at ended_ms: the
        (before, after) of each, full precision."""
        w, b = self.get(white, cat), self.get(black, cat)
        pre = []
        for row in (w, b):
            days = (ended_ms - row[3]) / DAY_MS if row[3] else 0.0
            pre.append((row[0], aged(row[1], row[2], days), row[2]))
        (wr, wrd, wv), (br, brd, bv) = pre
        nw = glicko2(wr, wrd, wv, br, brd, white_score)
        nb = glicko2(br, brd, bv, wr, wrd, 1 - white_score)
        out = {}
        for pid, row, new, score in ((white, w, nw, white_score),
                                     (black, b, nb, 1 - white_score)):
            self.rows[(pid, cat)] = [new[0], new[1], new[2], ended_ms,
                                     row[4] + 1, row[5] + (score == 1),
                                     row[6] + (score == 0.5),
                                     row[7] + (score == 0)]
            out[pid] = (row[0], new[0])
        return out


# ---- the test -------------------------------------------------------------

class RatedGames(FreshServerTest):
    """The helpers of the rated games' tests: accounts, games, moves."""

    def account(self, srv, username):
        c = self.client(srv, name=username)
        r = c.request({"t": "register", "username": username,
                       "password": PASSWORD}, "registered")
        c.token = r["token"]
        self.assertEqual(r["player"]["ratings"], {})
        return c

    def rated_game(self, w, b, clock):
        gid = w.request({"t": "invite", "clock": clock, "color": "white",
                         "rated": True}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        starts = [c.expect("game_start", game=gid) for c in (w, b)]
        for c in (w, b):
            c.expect("state", game=gid)
        self.assertTrue(starts[0]["rated"])
        return gid, starts[0]

    def play(self, w, b, gid, moves):
        players, ply = [w, b], 0
        for uci in moves.split():
            players[ply % 2].move(gid, uci, ply)
            ply += 1
            for c in players:
                c.expect("moved", game=gid, ply=ply)

    def end(self, w, b, gid, how):
        """Ends gid `how`; white's score and both game_end messages."""
        if how == "white_resigns":
            self.play(w, b, gid, "e2e4 e7e5")
            w.send({"t": "resign", "game": gid})
            score = 0.0
        elif how == "black_resigns":
            self.play(w, b, gid, "e2e4 e7e5")
            b.send({"t": "resign", "game": gid})
            score = 1.0
        elif how == "agreement":
            self.play(w, b, gid, "d2d4 d7d5")
            w.send({"t": "draw_offer", "game": gid})
            b.expect("draw_offered", game=gid)
            b.send({"t": "draw_accept", "game": gid})
            score = 0.5
        elif how == "fools_mate":
            self.play(w, b, gid, "f2f3 e7e5 g2g4 d8h4")
            score = 0.0
        ends = [c.expect("game_end", game=gid) for c in (w, b)]
        self.assertEqual(ends[0], ends[1])
        return score, ends[0]

    def check_row(self, srv, pid, cat, want):
        rows = srv.sql("SELECT rating, rd, volatility, last_ms, games, "
                       "wins, draws, losses FROM ratings WHERE pid = ? "
                       "AND category = ?", pid, cat)
        self.assertEqual(len(rows), 1, (pid, cat))
        row = rows[0]
        for got, exp in zip(row[:3], want[:3]):
            self.assertAlmostEqual(got, exp, delta=1e-6)
        self.assertEqual(list(row[3:]), want[3:])


class RatingsTest(RatedGames):
    def test_rated_games_in_every_category(self):
        srv = self.server(extra=["--logins-per-ip-per-min", "10000"])
        a, b = self.account(srv, "alice_r"), self.account(srv, "bob_r")
        book = Book()
        games = [(BULLET, "bullet", a, b, "white_resigns"),
                 (BLITZ, "blitz", b, a, "agreement"),
                 (RAPID, "rapid", a, b, "fools_mate"),
                 (CLASSICAL, "classical", b, a, "black_resigns"),
                 (PER_MOVE, "per_move", a, b, "agreement"),
                 # a second blitz game: the RD grows for the time since
                 # the first, and the ratings start from its result
                 (BLITZ, "blitz", a, b, "black_resigns")]
        gids = []
        for clock, cat, w, k, how in games:
            gid, start = self.rated_game(w, k, clock)
            for color, c in (("white", w), ("black", k)):
                shown = book.get(c.pid, cat)
                self.assertEqual(start[color]["rating"], half_up(shown[0]))
                self.assertEqual(start[color]["provisional"],
                                 shown[1] > 110)
            score, end = self.end(w, k, gid, how)
            hist = srv.http_json("/api/players/%s/ratings/%s"
                                 % (w.pid, cat))[1]["points"]
            want = book.game(w.pid, k.pid, cat, score, hist[-1]["ms"])
            for color, c in (("white", w), ("black", k)):
                before, after = want[c.pid]
                self.assertEqual(end["ratings"][color],
                                 {"before": half_up(before),
                                  "after": half_up(after)}, (cat, color))
            gids.append((gid, cat, w, k, end))

        # every row as computed here, to the full precision stored
        for (pid, cat), want in book.rows.items():
            self.check_row(srv, pid, cat, want)
        self.assertEqual(srv.sql("SELECT count(*) FROM rating_history"),
                         [(12,)])
        blitz = book.get(a.pid, "blitz")
        self.assertEqual(blitz[4:], [2, 1, 1, 0])
        self.assertLess(blitz[1], 350)

        # the PGN of a rated game
        gid, cat, w, k, end = gids[0]
        status, _, pgn = srv.http("/api/games/%s/pgn" % gid)
        pgn = pgn.decode()
        self.assertIn('[Event "Rated bullet game"]', pgn)
        self.assertIn('[WhiteElo "1500"]\n[BlackElo "1500"]\n', pgn)
        diff = end["ratings"]["white"]["after"] - 1500
        self.assertLess(diff, 0)
        self.assertIn('[WhiteRatingDiff "%d"]\n[BlackRatingDiff "+%d"]\n'
                      % (diff, -diff), pgn)
        # the history, the profile and the games list
        hist = srv.http_json("/api/players/%s/ratings/blitz" % a.pid)[1]
        self.assertEqual([p["rating"] for p in hist["points"]],
                         [gids[1][4]["ratings"]["black"]["after"],
                          gids[5][4]["ratings"]["white"]["after"]])
        self.assertLess(hist["points"][0]["ms"], hist["points"][1]["ms"])
        prof = srv.http_json("/api/players/%s" % a.pid)[1]
        self.assertTrue(prof["account"])
        self.assertEqual(set(prof["ratings"]), {"bullet", "blitz", "rapid",
                                                "classical", "per_move"})
        self.assertEqual(prof["ratings"]["blitz"]["rating"],
                         half_up(blitz[0]))
        self.assertEqual(prof["ratings"]["blitz"]["rd"], half_up(blitz[1]))
        self.assertEqual((prof["wins"], prof["draws"], prof["losses"]),
                         tuple(sum(book.get(a.pid, c)[i] for c in
                                   ("bullet", "blitz", "rapid", "classical",
                                    "per_move")) for i in (5, 6, 7)))
        listed = srv.http_json("/api/players/%s/games" % a.pid)[1]["games"]
        self.assertEqual(len(listed), 6)
        self.assertTrue(all(g["rated"] for g in listed))
        self.assertEqual(listed[0]["ratings"], gids[5][4]["ratings"])
        self.assertEqual(srv.http_json("/api/leaderboard/blitz")[1],
                         {"category": "blitz", "players": []})
        status, body = srv.http_json("/api/leaderboard/atomic")
        self.assertEqual((status, body), (404,
                                          {"error": "no_such_category"}))

        # a restart changes nothing; a non-provisional rating (set behind
        # the server's back) puts alice on the leaderboard
        srv.stop()
        srv.sql("UPDATE ratings SET rd = 60 WHERE pid = ? AND "
                "category = 'blitz'", a.pid)
        srv = self.server(extra=["--logins-per-ip-per-min", "10000"])
        back = self.client(srv, token=a.token)
        ratings = back.player["ratings"]
        for cat in ("bullet", "rapid", "classical", "per_move"):
            row = book.get(a.pid, cat)
            self.assertEqual(ratings[cat], {
                "rating": half_up(row[0]), "rd": half_up(row[1]),
                "games": 1, "provisional": True})
        self.assertEqual(ratings["blitz"]["rd"], 60)
        self.assertFalse(ratings["blitz"]["provisional"])
        board = srv.http_json("/api/leaderboard/blitz")[1]["players"]
        self.assertEqual(board, [{"id": a.pid, "name": "alice_r",
                                  "rating": half_up(blitz[0]), "rd": 60,
                                  "games": 2}])
        for (pid, cat), want in book.rows.items():
            if (pid, cat) != (a.pid, "blitz"):
                self.check_row(srv, pid, cat, want)

    def test_guests_ranges_rematch_and_abort(self):
        srv = self.server(extra=["--logins-per-ip-per-min", "10000"])
        a, b = self.account(srv, "ann_r"), self.account(srv, "ben_r")
        g = self.client(srv)
        # guests: at seek, invite and join (after join's own checks)
        for msg in ({"t": "seek", "clock": BLITZ, "rated": True},
                    {"t": "invite", "clock": BLITZ, "rated": True}):
            g.send(dict(msg, id="x"))
            self.assertEqual(g.expect_error("rated_needs_account")["id"],
                             "x")
        gid = a.request({"t": "invite", "clock": BLITZ, "rated": True},
                        "invited")["game"]
        g.send({"t": "join", "game": gid})
        g.expect_error("rated_needs_account")
        a.send({"t": "abort", "game": gid})
        a.expect("game_end", game=gid)
        g.send({"t": "join", "game": gid})
        g.expect_error("game_over")

        # rating_range: ann's range leaves ben (1500) out; casual seeks
        # never pair with rated ones
        a.request({"t": "seek", "clock": BLITZ, "rated": True,
                   "rating_range": [1550, 1700]}, "seeking")
        b.request({"t": "seek", "clock": BLITZ, "rated": True}, "seeking")
        g.request({"t": "seek", "clock": BLITZ}, "seeking")
        a.quiet(0.3)
        b.quiet(0.1)
        g.send({"t": "cancel_seek"})
        g.expect("seek_cancelled")
        a.send({"t": "seek", "clock": BLITZ, "rated": True,
                "rating_range": [0, 4001]})
        a.expect_error("bad_field")
        a.request({"t": "seek", "clock": BLITZ, "rated": True,
                   "rating_range": [1450, 1500]}, "seeking")
        starts = [c.expect("game_start") for c in (a, b)]
        gid = starts[0]["game"]
        self.assertTrue(starts[0]["rated"])
        self.assertEqual(starts[1]["white"]["rating"], 1500)
        w, k = (a, b) if starts[0]["you"] == "white" else (b, a)
        for c in (w, k):
            c.expect("state", game=gid)

        # abort changes nothing
        w.move(gid, "e2e4", 0)
        k.expect("moved", game=gid, ply=1)
        k.send({"t": "abort", "game": gid})
        end = w.expect("game_end", game=gid)
        self.assertEqual(end["reason"], "aborted")
        self.assertNotIn("ratings", end)
        prof = srv.http_json("/api/players/%s" % w.pid)[1]
        self.assertEqual(prof["ratings"], {})

        # rematch keeps rated (the colours swapped)
        w.send({"t": "rematch", "game": gid})
        k.expect("rematch_offered", game=gid)
        k.send({"t": "rematch", "game": gid})
        s = [c.expect("game_start") for c in (w, k)]
        self.assertTrue(s[0]["rated"])
        self.assertEqual(s[0]["white"]["id"], k.pid)
        new = s[0]["game"]
        self.play(k, w, new, "e2e4 e7e5")
        k.send({"t": "resign", "game": new})
        end = w.expect("game_end", game=new)
        self.assertEqual(end["ratings"]["black"]["before"], 1500)
        self.assertGreater(end["ratings"]["black"]["after"], 1500)
        st = w.request({"t": "sync", "game": new}, "state")
        self.assertTrue(st["rated"])
        self.assertEqual(st["ratings"], end["ratings"])
        # a guest's casual games are as before
        status, body = srv.http_json("/api/players/%s" % g.pid)
        self.assertEqual((status, body["account"], body["ratings"]),
                         (200, False, {}))


class FarmingTest(RatedGames):
    """Rating farming with a puppet account (issue 25, item 3: 300 rated
    games in 35 s, 1500 -> 2104). A rated game resigned before both sides
    moved ends aborted and changes nothing; only the first
    rated_games_per_pair_per_day (10) rated games of a pair in 24 h are
    rated, later ones start casual."""

    def test_a_puppet_gives_ten_rated_wins_a_day(self):
        # (the puppet's quick resigns are sandbagging: lichess's playban,
        # not this test's subject, would ban it after six)
        srv = self.server({"playban": 0},
                          extra=["--logins-per-ip-per-min", "10000"])
        farmer, puppet = (self.account(srv, "farmer"),
                          self.account(srv, "puppet"))
        # a resignation at ply 0: aborted, no rating change
        gid, _ = self.rated_game(farmer, puppet, BULLET)
        puppet.send({"t": "resign", "game": gid})
        end = farmer.expect("game_end", game=gid)
        self.assertEqual(end["reason"], "aborted")
        self.assertNotIn("ratings", end)
        rated = []
        for _ in range(12):
            gid = farmer.request({"t": "invite", "clock": BULLET,
                                  "color": "white", "rated": True},
                                 "invited")["game"]
            puppet.send({"t": "join", "game": gid})
            start = farmer.expect("game_start", game=gid)
            for c in (farmer, puppet):
                c.expect("state", game=gid)
            self.play(farmer, puppet, gid, "e2e4 e7e5")
            puppet.send({"t": "resign", "game": gid})
            end = farmer.expect("game_end", game=gid)
            puppet.expect("game_end", game=gid)
            self.assertEqual(start["rated"], "ratings" in end)
            rated.append(start["rated"])
        self.assertEqual(rated, [True] * 10 + [False] * 2)
        rows = srv.sql("SELECT games, wins FROM ratings WHERE pid = ?",
                       farmer.pid)
        self.assertEqual([tuple(r) for r in rows], [(10, 10)])
        self.assertIn("event=rated_pair_limit", srv.log_text())
