"""The lobby feed and accept over the real server (PROTOCOL.md section 5,
"Watching the lobby" and "Accepting a seek"): lobby_watch answers a
snapshot of the open seeks and live games at once and a fresh one after
a seek, a cancel, a pairing, a move and a game's end; many changes
within a second make at most two snapshots; lobby_unwatch and a closed
connection end the watch (the chess_lobby_watchers gauge); the caps (100
seeks, newest first; 30 games, newest first after rated ones); accept
pairs with that very seek, and each of its errors in the documented
order; a watcher that stops reading is cut at the output cap while its
queue never grows beyond it, and the server's kernel holds a bounded
share for it (send_buffer_bytes, counted in the cap); a repeated
lobby_watch answers nothing new."""
import json
import re
import time

from harness import FreshServerTest, WAIT, WebSocket, wait_until, one_node

CLOCK_5_0 = {"type": "fischer", "initial_s": 300, "increment_s": 0}
CLOCK_3_2 = {"type": "fischer", "initial_s": 180, "increment_s": 2}
PASSWORD = "correct horse"
QUEUE_CAP = 256 * 1024  # LIMIT_OUT_QUEUE_BYTES in server/lib/tunables.h
TICK_S = 1.0            # LOBBY_TICK_MS
SNDBUF = 64 * 1024      # send_buffer_bytes' default
SEGMENT = 64 * 1024     # KERNEL_SEGMENT_MAX in server/net/conn.c


def kernel_queues(port, client_ports):
    """{client port: bytes the server's kernel holds unsent or unacknowledged
    (tx_queue, SIOCOUTQ's count)} of the server's sockets (local port port)
    to those client ports, from /proc/net/tcp and tcp6."""
    out = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            for line in f.read().splitlines()[1:]:
                p = line.split()
                local = int(p[1].rsplit(":", 1)[1], 16)
                remote = int(p[2].rsplit(":", 1)[1], 16)
                if local == port and remote in client_ports:
                    out[remote] = int(p[4].split(":")[0], 16)
    return out


def metric(server, name):
    body = server.http("/metrics")[2].decode()
    m = re.search(r"^%s (\S+)$" % re.escape(name), body, re.M)
    if not m:
        raise AssertionError("no %s in /metrics" % name)
    return float(m.group(1))


class LobbyFeedTest(FreshServerTest):
    def snapshot(self, c, pred=lambda m: True, timeout=WAIT):
        """The first lobby snapshot c gets (backlog first) for which pred
        holds; earlier ones are dropped."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no such lobby snapshot")
            m = c.expect("lobby", timeout=left)
            self.assertNotIn("id", m)
            if pred(m):
                return m

    def watcher(self, srv):
        c = self.client(srv)
        c.send({"t": "lobby_watch", "id": 5})
        return c

    def account(self, srv, username):
        c = self.client(srv, name=username)
        c.request({"t": "register", "username": username,
                   "password": PASSWORD}, "registered")
        return c

    @staticmethod
    def sids(m):
        return [s["seek"] for s in m["seeks"]]

    @staticmethod
    def gids(m):
        return [g["game"] for g in m["games"]]

    # ---- contents and updates -------------------------------------------

    @one_node

    def test_snapshot_and_updates(self):
        srv = self.server()
        w = self.watcher(srv)
        first = self.snapshot(w)
        self.assertEqual(first, {"t": "lobby", "seeks": [], "games": []})
        self.assertEqual(metric(srv, "chess_lobby_watchers"), 1)

        a = self.client(srv, name="alice")
        sid = a.request({"t": "seek", "clock": CLOCK_3_2, "color": "white"},
                        "seeking")["seek"]
        m = self.snapshot(w, lambda m: m["seeks"])
        self.assertEqual(m["seeks"], [{
            "seek": sid, "player": {"id": a.pid, "name": "alice",
                                    "account": False},
            "clock": CLOCK_3_2, "color": "white", "rated": False}])
        self.assertEqual(m["games"], [])

        # a second watcher gets the current snapshot at once
        w2 = self.watcher(srv)
        self.assertEqual(self.sids(self.snapshot(w2)), [sid])

        a.request({"t": "cancel_seek"}, "seek_cancelled")
        self.snapshot(w, lambda m: not m["seeks"])

        # a pairing: the seeks go, the game comes
        a.request({"t": "seek", "clock": CLOCK_5_0, "color": "white"},
                  "seeking")
        b = self.client(srv, name="bob")
        b.request({"t": "seek", "clock": CLOCK_5_0}, "seeking")
        gid = a.expect("game_start")["game"]
        b.expect("game_start", game=gid)
        m = self.snapshot(w, lambda m: m["games"])
        self.assertEqual(m["seeks"], [])
        self.assertEqual(m["games"], [{
            "game": gid,
            "white": {"id": a.pid, "name": "alice", "account": False},
            "black": {"id": b.pid, "name": "bob", "account": False},
            "clock": CLOCK_5_0,
            "rated": False, "ply": 0}])

        # a move changes the ply count
        a.move(gid, "e2e4", 0)
        m = self.snapshot(w, lambda m: m["games"] and
                          m["games"][0]["ply"] == 1)

        # the end takes the game off
        b.send({"t": "resign", "game": gid})
        a.expect("game_end", game=gid)
        self.snapshot(w, lambda m: not m["games"])

        # unwatch: no more snapshots; the gauge counts the watchers
        self.assertEqual(metric(srv, "chess_lobby_watchers"), 2)
        w.send({"t": "lobby_unwatch"})
        w.request({"t": "ping"}, "pong")
        self.assertEqual(metric(srv, "chess_lobby_watchers"), 1)
        a.request({"t": "seek", "clock": CLOCK_5_0}, "seeking")
        self.snapshot(w2, lambda m: m["seeks"])  # a tick has passed
        w.backlog = [x for x in w.backlog if x["t"] != "lobby"]
        w.quiet(1.5 * TICK_S)
        w2.close()
        wait_until(lambda: metric(srv, "chess_lobby_watchers") == 0,
                   "the closed watcher to go")

    def test_many_changes_make_at_most_two_snapshots(self):
        srv = self.server()
        w = self.watcher(srv)
        self.snapshot(w)
        a = self.client(srv)
        start = time.monotonic()
        for i in range(20):  # within the message budget's burst
            a.send({"t": "seek", "clock": CLOCK_5_0})
            a.send({"t": "cancel_seek"})
        a.send({"t": "seek", "clock": CLOCK_3_2, "id": "last"})
        last = a.expect("seeking", id="last")["seek"]
        burst = time.monotonic() - start
        self.assertLess(burst, 0.5, "the burst took %.2f s" % burst)
        got = []
        deadline = time.monotonic() + 2.5 * TICK_S
        while time.monotonic() < deadline:
            try:
                got.append((time.monotonic(),
                            w.expect("lobby",
                                     timeout=deadline - time.monotonic())))
            except AssertionError:
                break
        self.assertGreaterEqual(len(got), 1)
        self.assertLessEqual(len(got), 2, [m for _, m in got])
        self.assertEqual(self.sids(got[-1][1]), [last])
        if len(got) == 2:
            self.assertGreater(got[1][0] - got[0][0], 0.8 * TICK_S)

    def test_caps(self):
        """101 seeks: the snapshot shows the newest 100, newest first (the
        oldest never hide a new one)."""
        srv = self.server({"max_seeks_per_ip": 1000})
        seekers = []
        for i in range(101):
            c = self.client(srv)
            # white with white never pairs: all stay open
            c.request({"t": "seek", "clock": CLOCK_5_0, "color": "white"},
                      "seeking")
            seekers.append(c)
        games = []
        for i in range(31):
            x, y = self.client(srv), self.client(srv)
            gid = x.request({"t": "invite", "clock": CLOCK_3_2,
                             "color": "white"}, "invited")["game"]
            y.send({"t": "join", "game": gid})
            x.expect("game_start", game=gid)
            games.append(gid)
            time.sleep(0.003)  # distinct creation times: a strict order
        w = self.watcher(srv)
        m = self.snapshot(w)
        self.assertEqual(len(m["seeks"]), 100)
        self.assertEqual([s["player"]["id"] for s in m["seeks"]],
                         [c.pid for c in reversed(seekers[1:])])
        # one more: it is first, the oldest shown goes
        new = self.client(srv)
        new.request({"t": "seek", "clock": CLOCK_3_2}, "seeking")
        m = self.snapshot(w, lambda m: m["seeks"][0]["player"]["id"] ==
                          new.pid)
        self.assertEqual(len(m["seeks"]), 100)
        self.assertEqual(m["seeks"][-1]["player"]["id"], seekers[2].pid)
        self.assertEqual(self.gids(m), list(reversed(games[1:])))
        self.assertLess(len(srv.http("/metrics")[2]), 10 ** 6)

    def test_rated_games_first_and_rated_seeks_show_ratings(self):
        srv = self.server()
        x, y = self.client(srv), self.client(srv)
        casual = x.request({"t": "invite", "clock": CLOCK_3_2},
                           "invited")["game"]
        y.send({"t": "join", "game": casual})
        x.expect("game_start", game=casual)
        time.sleep(0.003)
        r1, r2 = self.account(srv, "anna"), self.account(srv, "bert")
        sid = r1.request({"t": "seek", "clock": CLOCK_5_0, "rated": True,
                          "rating_range": [1400, 1600]}, "seeking")["seek"]
        w = self.watcher(srv)
        m = self.snapshot(w, lambda m: m["seeks"])
        self.assertEqual(m["seeks"], [{
            "seek": sid, "player": {"id": r1.pid, "name": "anna",
                                    "rating": 1500, "provisional": True,
                                    "account": True},
            "clock": CLOCK_5_0, "color": "random", "rated": True,
            "rating_range": [1400, 1600]}])
        r2.send({"t": "accept", "seek": sid})
        rated = r2.expect("game_start")["game"]
        m = self.snapshot(w, lambda m: len(m["games"]) == 2)
        # the rated game first, though the casual one is newer... older
        self.assertEqual(self.gids(m), [rated, casual])
        self.assertEqual(m["games"][0]["white"]["rating"], 1500)
        self.assertTrue(m["games"][0]["rated"])

    # ---- an address's seeks, an idle seek ---------------------------------

    def test_seeks_per_address(self):
        """max_seeks_per_ip: the players of one address hold at most that
        many open seeks; one more is refused too_many_games (a seek
        replacing the player's own is not one more); another address is
        not held back; a cancelled seek frees its place."""
        srv = self.server({"max_seeks_per_ip": 3})
        here = [self.client(srv, source="127.0.0.2") for _ in range(4)]
        seek = {"t": "seek", "clock": CLOCK_5_0, "color": "white"}
        for c in here[:3]:
            c.request(seek, "seeking")
        e = here[3].request(seek, "error")
        self.assertEqual(e["code"], "too_many_games")
        self.assertIn("3 open seeks", e["msg"])
        here[0].request(dict(seek, clock=CLOCK_3_2), "seeking")
        other = self.client(srv, source="127.0.0.3")
        other.request(seek, "seeking")
        here[1].request({"t": "cancel_seek"}, "seek_cancelled")
        last = here[3].request(seek, "seeking")["seek"]
        w = self.watcher(srv)
        m = self.snapshot(w)
        self.assertEqual(sorted(s["player"]["id"] for s in m["seeks"]),
                         sorted(c.pid for c in (here[0], here[2], here[3],
                                                other)))
        self.assertEqual(self.sids(m)[0], last)

    def test_idle_seek_expires(self):
        """seek_idle_s: the seek of a connection that sent nothing but
        pings for that long goes (within the hub's sweep, 10 s), its
        seeker told seek_cancelled with reason idle; a seek whose
        connection keeps talking stays."""
        srv = self.server({"seek_idle_s": 1})
        idle, busy = self.client(srv), self.client(srv)
        seek = {"t": "seek", "clock": CLOCK_5_0, "color": "white"}
        start = time.monotonic()
        idle.request(seek, "seeking")
        kept = busy.request(seek, "seeking")["seek"]
        deadline = start + 1 + 10 + WAIT
        got = None
        while got is None:
            self.assertLess(time.monotonic(), deadline, "never expired")
            busy.send({"t": "lobby_unwatch"})  # a message: not idle
            idle.request({"t": "ping"}, "pong")  # a ping: no sign of life
            if any(m["t"] == "seek_cancelled" for m in idle.backlog):
                got = idle.expect("seek_cancelled")
            else:
                try:
                    got = idle.expect("seek_cancelled", timeout=0.3)
                except AssertionError:
                    pass
        self.assertGreaterEqual(time.monotonic() - start, 1.0)
        self.assertEqual(got, {"t": "seek_cancelled", "reason": "idle"})
        self.assertEqual(idle.request({"t": "cancel_seek"}, "error")["code"],
                         "no_seek")
        w = self.watcher(srv)
        self.assertEqual(self.sids(self.snapshot(w)), [kept])
        busy.request({"t": "cancel_seek"}, "seek_cancelled")

    # ---- accept -----------------------------------------------------------

    def test_accept_pairs_with_that_seek(self):
        srv = self.server()
        a = self.client(srv, name="alice")
        a2 = self.client(srv, token=a.token)  # another connection of alice
        old = a.request({"t": "seek", "clock": CLOCK_5_0, "color": "black"},
                        "seeking")["seek"]
        new = self.client(srv).request(
            {"t": "seek", "clock": CLOCK_5_0, "color": "black"},
            "seeking")["seek"]
        b = self.client(srv, name="bob")
        own = b.request({"t": "seek", "clock": CLOCK_3_2}, "seeking")["seek"]
        # not the oldest compatible seek: the one named
        b.send({"t": "accept", "seek": new, "id": 9})
        gs = b.expect("game_start")
        self.assertEqual(gs["white"]["id"], b.pid)
        self.assertEqual(gs["you"], "white")
        self.assertNotIn("id", gs)
        b.expect("state", game=gs["game"])
        # alice's seek is still open; bob's own seek was withdrawn
        w = self.watcher(srv)
        m = self.snapshot(w)
        self.assertEqual(self.sids(m), [old])
        self.assertNotIn(own, self.sids(m))
        self.assertEqual(b.request({"t": "cancel_seek"}, "error")["code"],
                         "no_seek")
        # alice's (she wants black): both her connections see the start
        b.send({"t": "accept", "seek": old})
        starts = [c.expect("game_start") for c in (a, a2)]
        gid = starts[0]["game"]
        self.assertEqual(starts[1]["game"], gid)
        self.assertEqual(starts[0]["black"]["id"], a.pid)
        self.assertEqual(starts[0]["you"], "black")
        gb = b.expect("game_start", game=gid)
        self.assertEqual(gb["you"], "white")
        for c in (a, b):
            c.expect("state", game=gid)
        self.snapshot(w, lambda m: not m["seeks"] and len(m["games"]) == 2)
        b.send({"t": "accept", "seek": old})
        b.expect_error("no_such_seek")

    def test_accept_errors_in_order(self):
        srv = self.server({"max_games_per_player": 2})
        a = self.client(srv)
        for bad in ({"t": "accept"}, {"t": "accept", "seek": "bad sid"},
                    {"t": "accept", "seek": 7},
                    {"t": "accept", "seek": "x" * 33},
                    {"t": "accept", "seek": "abc", "game": "x"}):
            self.assertEqual(a.request(bad, "error")["code"], "bad_field")
        self.assertEqual(a.request({"t": "accept", "seek": "nosuchsk"},
                                   "error")["code"], "no_such_seek")
        # own seek: before rated_needs_account and the range
        r = self.account(srv, "ranged")
        rs = r.request({"t": "seek", "clock": CLOCK_5_0, "rated": True,
                        "rating_range": [1600, 2000]}, "seeking")["seek"]
        e = r.request({"t": "accept", "seek": rs}, "error")
        self.assertEqual(e["code"], "own_game")
        # a guest: rated_needs_account before the range
        e = a.request({"t": "accept", "seek": rs}, "error")
        self.assertEqual(e["code"], "rated_needs_account")
        # an account of 1500 outside [1600, 2000]
        o = self.account(srv, "other")
        e = o.request({"t": "accept", "seek": rs}, "error")
        self.assertEqual(e["code"], "rating_out_of_range")
        # full (two invitations, the most): too_many_games, last
        for _ in range(2):
            o.request({"t": "invite", "clock": CLOCK_5_0}, "invited")
        e = o.request({"t": "accept", "seek": rs}, "error")
        self.assertEqual(e["code"], "rating_out_of_range")
        cs = self.client(srv).request({"t": "seek", "clock": CLOCK_5_0},
                                      "seeking")["seek"]
        e = o.request({"t": "accept", "seek": cs}, "error")
        self.assertEqual(e["code"], "too_many_games")
        # the seeks are still open after every refusal
        w = self.watcher(srv)
        self.assertEqual(sorted(self.sids(self.snapshot(w))),
                         sorted([rs, cs]))

    # ---- a watcher that does not read --------------------------------------

    def big_lobby(self, srv):
        """99 open seeks: snapshots of some 20 KB. Returns a snapshot's
        size."""
        for i in range(99):
            self.client(srv).request(
                {"t": "seek", "clock": CLOCK_5_0, "color": "white"},
                "seeking")
        reader = self.watcher(srv)
        size = len(json.dumps(self.snapshot(reader)))
        self.assertGreater(size, 10000)
        reader.send({"t": "lobby_unwatch"})
        reader.request({"t": "ping"}, "pong")
        return size

    def test_repeated_watch_answers_nothing_new(self):
        """lobby_watch again on a connection that watches: nothing (each
        used to queue the whole snapshot again, 19 bytes in for 20 KB
        out); a change still comes."""
        srv = self.server({"msg_rate_per_s": 1000, "msg_burst": 1000,
                           "max_seeks_per_ip": 1000})
        self.big_lobby(srv)
        w = self.watcher(srv)
        self.snapshot(w)
        for _ in range(50):
            w.send({"t": "lobby_watch"})
        w.request({"t": "ping"}, "pong")
        self.assertEqual([m for m in w.backlog if m.get("t") == "lobby"], [])
        self.client(srv).request({"t": "seek", "clock": CLOCK_3_2},
                                 "seeking")
        self.assertEqual(len(self.snapshot(w)["seeks"]), 100)

    def test_non_readers_are_cut_with_the_kernel_share_bounded(self):
        """20 watchers that never read (default receive buffers) make the
        server send a 20 KB snapshot with every lobby_unwatch and
        lobby_watch pair. The server's kernel holds at most the doubled
        send_buffer_bytes and a segment for each (it grew to tcp_wmem's 4
        MiB and nothing was cut before), the cap counts that share (the
        cut's log line: queued plus kernel bytes within the cap), and
        every one is cut and closed."""
        n = 20
        srv = self.server({"msg_rate_per_s": 100000, "msg_burst": 100000,
                           "max_seeks_per_ip": 1000})
        size = self.big_lobby(srv)
        before = srv.http_json("/healthz")[1]["connections"]
        silent = [WebSocket("127.0.0.1", srv.port) for _ in range(n)]
        try:
            for ws in silent:
                ws.send({"t": "hello"})
            ports = {ws.sock.getsockname()[1] for ws in silent}
            held_max, cut = 0, 0
            deadline = time.monotonic() + 30
            while cut < n:
                self.assertLess(time.monotonic(), deadline,
                                "%d of %d cut" % (cut, n))
                for ws in silent:
                    try:
                        ws.send({"t": "lobby_unwatch"})
                        ws.send({"t": "lobby_watch"})
                    except OSError:
                        pass  # cut
                held = kernel_queues(srv.port, ports)
                held_max = max([held_max] + list(held.values()))
                cut = metric(
                    srv, 'chess_connections_cut_total{why="slow_reader"}')
                time.sleep(0.01)
            self.assertEqual(cut, n)
            wait_until(lambda: srv.http_json("/healthz")[1]["connections"]
                       == before, "the cut connections to close")
            wait_until(lambda: not kernel_queues(srv.port, ports),
                       "their sockets to go")
            self.assertGreater(held_max, SNDBUF)  # the kernel's share...
            self.assertLessEqual(held_max, 2 * SNDBUF + SEGMENT)  # bounded
            cuts = re.findall(r"event=conn_cut why=slow_reader ip=\S+ "
                              r"queued_bytes=(\d+) kernel_bytes=(\d+)",
                              srv.log_text())
            # (identical warnings within a second are written once)
            self.assertGreaterEqual(len(cuts), 1)
            for queued, kernel in cuts:
                # counted: cut when its queue and the kernel's share
                # reached the cap (lws may hold a frame between them)
                self.assertGreater(int(kernel), SNDBUF)
                self.assertLessEqual(int(queued) + int(kernel),
                                     QUEUE_CAP + size)
        finally:
            for ws in silent:
                ws.sock.close()

    def test_slow_watcher_is_cut_at_the_output_cap(self):
        """A watcher that never reads, with a tiny receive buffer, asks for
        the snapshot over and over (a repeated lobby_watch answers
        nothing; the changes do) while the seeks change every tick: its
        queue reaches the output cap and it is cut, and the server never
        holds more than the cap for it."""
        srv = self.server({"max_seeks_per_ip": 1000})
        for i in range(99):  # big snapshots: 99 seeks and the toggler's
            self.client(srv).request(
                {"t": "seek", "clock": CLOCK_5_0, "color": "white"},
                "seeking")
        reader = self.watcher(srv)
        size = len(json.dumps(self.snapshot(reader)))
        self.assertGreater(size, 10000)
        reader.send({"t": "lobby_unwatch"})
        reader.request({"t": "ping"}, "pong")
        ws = WebSocket("127.0.0.1", srv.port, rcvbuf=4096)
        try:
            ws.send({"t": "hello"})
            toggler = self.client(srv)
            cut, queued_max, seeking, sent = 0, 0, False, 0
            deadline = time.monotonic() + 90
            reset = False
            while not cut and not reset:
                self.assertLess(time.monotonic(), deadline,
                                "never cut after %d lobby_watch" % sent)
                for _ in range(3):  # 15 a second: within the budget
                    try:
                        ws.send({"t": "lobby_watch"})
                    except OSError:  # cut: the server reset it
                        reset = True
                        break
                    sent += 1
                    time.sleep(0.066)
                toggler.send({"t": "cancel_seek"} if seeking else
                              {"t": "seek", "clock": CLOCK_3_2})
                seeking = not seeking
                queued_max = max(queued_max,
                                 metric(srv, "chess_out_queue_bytes"))
                cut = metric(
                    srv, 'chess_connections_cut_total{why="slow_reader"}')
            wait_until(lambda: metric(
                srv, 'chess_connections_cut_total{why="slow_reader"}') == 1,
                "the slow watcher to be cut")
            # never more than the cap queued for it (the toggler's own
            # replies are a few bytes)
            self.assertLessEqual(queued_max, QUEUE_CAP + 1024)
            wait_until(lambda: metric(srv, "chess_lobby_watchers") == 0,
                       "the cut watcher to go")
        finally:
            ws.sock.close()
