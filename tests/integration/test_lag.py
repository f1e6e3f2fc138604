"""Lag compensation (PROTOCOL.md, "Lag compensation"): the server times
each connection's pings and credits a move with half the smoothed round
trip, within a per-player quota (server/lib/tunables.h: LAG_*). One player's
line is made 150 ms long each way in the test client; another holds its
pongs back to look slow. Both delays are the test client's own (on
loopback the kernel sees no delay), so the tests of the quota believe the
pings whatever the kernel says (lag_rtt_margin_ms 100000); the last one
keeps the default and shows that a client holding its pongs back gains
nothing over the kernel's round trip."""
import json
import socket
import struct
import subprocess
import time

from harness import SERVER, FreshServerTest, db_args, write_json
from wsclient import OP_PING, OP_TEXT

# server/lib/tunables.h
QUOTA_START_MS, QUOTA_GAIN_MS, CREDIT_MAX_MS = 300, 100, 500

WHITE = "a2a3 b2b3 c2c3 d2d3 h2h3 g2g3 f2f3 a3a4".split()
BLACK = "a7a6 b7b6 c7c6 d7d6 h7h6 g7g6 f7f6 a6a5".split()


class LagGame(FreshServerTest):
    """A game between two test clients (no tests of its own)."""
    # a ping a second, so that round trips are measured within the test;
    # black, read only when a test lets it, answers its pings up to 9 s
    # late (its node's pings are not in step with white's)
    SETTINGS = {"ping_interval_s": 1, "ping_timeout_s": 30}

    def setUp(self):
        super().setUp()
        self.srv = self.server(self.SETTINGS)

    def pump(self, c, seconds):
        """Reads c's frames for a while, answering its pings and keeping
        its messages (frame by frame: a message read never waits for the
        next one)."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            c.ws.sock.settimeout(left)
            try:
                _, opcode, data = c.ws.recv_frame()
            except socket.timeout:
                return
            if opcode == OP_PING:
                c.ws.pong(data)
            elif opcode == OP_TEXT:
                c.backlog.append(json.loads(data))

    def game(self, delay_s=0.0, pong_hold_s=0.0):
        """A game past both first moves; white's line made delay_s long
        each way and its pongs held back pong_hold_s before its first
        move, which has the server take its first round-trip sample."""
        w, b, gid = self.start_game(self.srv)
        w.ws.delay_s, w.ws.pong_hold_s = delay_s, pong_hold_s
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)
        b.move(gid, "e7e5", 1)
        for c in (w, b):
            c.expect("moved", game=gid, ply=2)
        return w, b, gid

    def white_move(self, w, b, gid, k, think=0.0):
        """White's k-th clocked move after `think` s, black answering at
        once: white's moved as black saw it (black's own credits are not
        looked at: black reads only when the test lets it, so its pongs
        come late too)."""
        if think:
            self.pump(w, think)
        w.move(gid, WHITE[k], 2 + 2 * k)
        m = b.expect("moved", game=gid, ply=3 + 2 * k)
        self.assertEqual(w.expect("moved", game=gid, ply=3 + 2 * k)["lag_ms"],
                         m["lag_ms"])
        self.black_sent = time.monotonic()
        b.move(gid, BLACK[k], 3 + 2 * k)
        for c in (w, b):
            c.expect("moved", game=gid, ply=4 + 2 * k)
        return m


class LagTest(LagGame):
    SETTINGS = dict(LagGame.SETTINGS, lag_rtt_margin_ms=100000)

    def test_latency_is_credited_within_the_quota(self):
        w, b, gid = self.game(delay_s=0.15)
        self.pump(w, 2.5)  # a few pings over the long line
        credits, left = [], 300000
        for k in range(len(WHITE)):
            turn_began = self.black_sent if k else None
            m = self.white_move(w, b, gid, k)
            span_ms = (time.monotonic() - (turn_began or 0)) * 1000
            lag = m["lag_ms"]
            credits.append(lag)
            charged = left - m["clocks"]["white_ms"]
            left = m["clocks"]["white_ms"]
            # the server's own time for the turn is at least the 300 ms
            # the line took both ways, at most what black saw between its
            # move and white's: what it charged is that minus the credit
            self.assertGreaterEqual(charged + lag, 300, m)
            if turn_began:
                self.assertLessEqual(charged + lag, span_ms + 1, m)
            self.assertLessEqual(sum(credits),
                                 QUOTA_START_MS + QUOTA_GAIN_MS * (k + 1))
        # 150 ms one way, credited in full while the quota lasts ...
        for lag in credits[:5]:
            self.assertGreaterEqual(lag, 120, credits)
            self.assertLessEqual(lag, 300, credits)
        # ... then only what the quota gains a move (150 > 100)
        self.assertEqual(credits[-2:], [QUOTA_GAIN_MS] * 2, credits)
        # the round trip behind the credit goes with the move (the signal
        # bar of the game page): at least the 300 ms of the line
        self.assertGreaterEqual(m["rtt_ms"], 300, m)
        self.assertLess(m["rtt_ms"], 1000, m)
        # stored with the move, and in the PGN
        status, _, body = self.srv.http("/api/games/%s/pgn" % gid)
        self.assertEqual(status, 200)
        self.assertIn("[%%lag %d.%03d]" % (credits[0] // 1000,
                                           credits[0] % 1000), body.decode())
        # and in `state`, for a client that comes back (a reload): the
        # credit of every move, white's first (never credited) 0
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertGreaterEqual(st["rtt"]["white"], 300, st["rtt"])
        self.assertEqual(len(st["lags"]), len(st["moves"]))
        self.assertEqual(st["lags"][0::2], [0] + credits, st["lags"])
        b.send({"t": "resign", "game": gid})
        b.expect("game_end", game=gid)
        st = w.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["game"], gid)
        self.assertEqual(st["lags"][0::2], [0] + credits, st["lags"])
        # each side's total, in the PGN and for moderators
        own, theirs = sum(credits), sum(st["lags"][1::2])
        status, _, body = self.srv.http("/api/games/%s/pgn" % gid)
        self.assertIn('[WhiteLagTotal "%s"]\n[BlackLagTotal "%s"]'
                      % (secs(own), secs(theirs)), body.decode())
        self.assert_lag_report(w.pid, gid, own, theirs)

    def test_lag_report_finds_an_account_by_its_name(self):
        """A moderator names the account (in any case) and the database
        through the server's config file."""
        c = self.client(self.srv)
        c.request({"t": "register", "username": "Lagger_it",
                   "password": "correct horse battery"}, "registered")
        flag, where = db_args(self.srv.dir, self.srv.db)
        key = "database" if flag == "--db" else "postgres"
        cfg = write_json(self.path("lag.json"), {key: where})
        r = subprocess.run([SERVER, "lag", "LAGGER_IT", "--config", cfg],
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[0],
                         "player %s name Lagger_it (account): lag credit in "
                         "its last 0 finished games, newest first (seconds)"
                         % c.pid)
        self.assertEqual(r.stdout.splitlines()[-1], "total 0 games: own "
                         "0.000 s (0.000 a game), opponents 0.000 s (0.000 "
                         "a game)")

    def lag(self, player, *flags):
        # ("--" before the player: a PID may begin with "-", 1 in 64)
        return subprocess.run([SERVER, "lag"] + list(flags) +
                              db_args(self.srv.dir, self.srv.db) +
                              ["--", player],
                              capture_output=True, text=True, timeout=20)

    def assert_lag_report(self, pid, gid, own, theirs):
        """`chess-server lag PID`, beside the running server: the game's
        row and the totals, each side's credit in seconds."""
        r = self.lag(pid)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("player %s name Guest-" % pid, lines[0])
        self.assertIn("(guest)", lines[0])
        row = [ln.split() for ln in lines if ln.startswith(gid)]
        self.assertEqual(len(row), 1, r.stdout)
        self.assertEqual(row[0][3:6], ["white", "300+0", "1-0"], row)
        self.assertEqual(row[0][-2:], [secs(own), secs(theirs)], row)
        self.assertEqual(lines[-1], "total 1 games: own %s s (%s a game), "
                         "opponents %s s (%s a game)"
                         % (secs(own), secs(own), secs(theirs),
                            secs(theirs)))
        r = self.lag("no-such-player")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("no account or player named no-such-player", r.stderr)
        # a player id that begins with "-" is no option, even without "--"
        r = subprocess.run([SERVER, "lag", "-No_such"] +
                           db_args(self.srv.dir, self.srv.db),
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("no account or player named -No_such", r.stderr)
        r = self.lag(pid, "--games", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--games takes 1 to 100", r.stderr)

    def test_held_back_pongs_gain_only_the_quota(self):
        w, b, gid = self.game(pong_hold_s=2.0)  # looks like a 2 s round trip
        self.pump(w, 4.5)
        credits = []
        for k in range(5):
            m = self.white_move(w, b, gid, k, think=1.2)
            credits.append(m["lag_ms"])
        # the estimate (about 1 s one way) never gets past the quota
        self.assertEqual(credits, [QUOTA_START_MS + QUOTA_GAIN_MS] +
                         [QUOTA_GAIN_MS] * 4)
        self.assertEqual(sum(credits), QUOTA_START_MS + 5 * QUOTA_GAIN_MS)

    def test_a_first_move_asks_for_a_round_trip(self):
        """A connection younger than ping_interval_s has no round trip;
        its first move has the server ping it at once, so the first
        clocked move is credited (not only moves after the first
        keepalive ping, an hour in here)."""
        self.srv.stop()
        srv = self.server({"ping_interval_s": 3600, "ping_timeout_s": 7200,
                           "lag_rtt_margin_ms": 100000})
        w, b, gid = self.start_game(srv)
        w.ws.delay_s = 0.15
        w.move(gid, "e2e4", 0)  # no clock yet, no credit: asks for a ping
        b.expect("moved", game=gid, ply=1)
        b.move(gid, "e7e5", 1)
        for c in (w, b):  # w answers the ping over its 150 ms line
            c.expect("moved", game=gid, ply=2)
        m = self.white_move(w, b, gid, 0)
        self.assertGreaterEqual(m["lag_ms"], 120, m)
        self.assertLessEqual(m["lag_ms"], QUOTA_START_MS + QUOTA_GAIN_MS, m)


def secs(ms):
    """ms as the PGN's [%lag] and its totals write seconds."""
    return "%d.%03d" % (ms // 1000, ms % 1000)


# struct tcp_info (linux/tcp.h): 8 bytes of u8 fields, then u32s, the
# 16th of which is tcpi_rtt (us)
TCPI_RTT_OFFSET = 8 + 15 * 4
MARGIN_MS = 10  # lag_rtt_margin_ms's default


def kernel_rtt_ms(sock):
    """The kernel's smoothed round trip of sock (TCP_INFO), ms."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return struct.unpack_from("I", info, TCPI_RTT_OFFSET)[0] / 1000.0


class PongCheatTest(LagGame):
    """A client that answers every ping 1 s late, on loopback, with the
    settings' default: its round trip is believed only up to the kernel's
    (from the ACKs of its TCP connection) plus lag_rtt_margin_ms, so it is
    credited about what an honest client on the same line is (nothing),
    not the quota (300 ms and 100 a move before)."""

    def test_held_pongs_gain_no_more_than_the_kernel_round_trip(self):
        w, b, gid = self.game(pong_hold_s=1.0)  # looks like a 1 s round trip
        self.pump(w, 3.5)
        credits, rtts = [], []
        for k in range(len(WHITE)):
            m = self.white_move(w, b, gid, k, think=0.3)
            credits.append(m["lag_ms"])
            rtts.append(kernel_rtt_ms(w.ws.sock))
            # the round trip shown beside the player (its signal bar) is
            # the one believed: about the kernel's plus the margin (a few
            # ms on loopback), not the 1 s of held pongs
            self.assertLess(m["rtt_ms"], 200, m)
        # each move at most half the kernel's round trip (as this end
        # sees it) plus the margin, 1 ms for rounding: 5-6 ms, not 100+
        bound = sum((r + MARGIN_MS) / 2 + 1 for r in rtts)
        self.assertLessEqual(sum(credits), bound, (credits, rtts))
        self.assertLess(sum(credits), len(WHITE) * 10, credits)
