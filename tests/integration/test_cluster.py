"""A cluster of nodes (docs/cluster.md): what
happens to a game when its host dies (kill -9), stops (SIGTERM), pauses
past its lease (SIGSTOP), or when Redis restarts; and the lobby's seeks
placed at once on every node. The players of each game are on
different nodes. Runs only as a cluster (CHESS_TEST_CLUSTER=3)."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import unittest

import fixture
import harness
from harness import CLUSTER, FISCHER_5_0, FreshServerTest, WAIT, wait_until
from test_http import parse_prometheus

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "bench"))
import acked  # noqa: E402

LEASE_S = 3.0  # server/cluster/cluster.h: CLUSTER_LEASE_MS
CHALLENGE_LAPSE_S = 2  # ClusterTest's challenge_lapse_s
TICK_S = 1.0   # CLUSTER_TICK_MS
# the balance moves balance_games_per_s (10) a tick: 200 games over
# three nodes, one of them empty, are within the ratio in a few ticks
BALANCE_WAIT_S = 15


class OnNodes:
    """A test's clients on chosen nodes of its cluster, self.srv; self.keep
    (a list, the test's setUp makes it) holds clients kept open (their
    invitations with them)."""

    def client_on(self, i, **kw):
        self.srv.pin(i)
        try:
            return self.client(self.srv, **kw)
        finally:
            self.srv.pin(None)

    def game_on(self, host, other, clock=FISCHER_5_0):
        """White on node host (the game's host: its invitation was made
        there), black on node other, both past their first moves;
        returns (white, black, gid)."""
        w, b = self.client_on(host), self.client_on(other)
        gid = w.request({"t": "invite", "clock": clock,
                         "color": "white"}, "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (w, b):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
        self.assertEqual(self.srv.host_of(gid), host)
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)
        b.move(gid, "e7e5", 1)
        for c in (w, b):
            c.expect("moved", game=gid, ply=2)
        return w, b, gid

    def sees_ply(self, c, gid, ply, timeout=WAIT):
        """Waits until c has seen the game at ply: its `moved`, or a
        `state` at ply or later (a connection that attached to a new host
        just after the move gets the move in its resync). Returns the
        clocks it saw."""
        deadline = time.monotonic() + timeout
        while True:
            m = c.expect_any(deadline)
            if m.get("game") != gid:
                continue
            if m["t"] == "moved" and m["ply"] == ply:
                return m["clocks"]
            if m["t"] == "state" and m["ply"] >= ply:
                return m["clocks"]

    def game_to_black(self, host, other):
        """game_on, then white's third move: black (on node other, not the
        host) to move at ply 3; returns (white, black, gid)."""
        w, b, gid = self.game_on(host, other)
        w.move(gid, "g1f3", 2)
        for c in (w, b):
            c.expect("moved", game=gid, ply=3)
        return w, b, gid

    def invitation_on(self, host, other):
        """An open invitation made on node host and a client on node other
        that will join it; returns (joiner, gid)."""
        m = self.client_on(host)
        gid = m.request({"t": "invite", "clock": FISCHER_5_0,
                         "color": "white"}, "invited")["game"]
        self.keep.append(m)
        return self.client_on(other), gid

    @staticmethod
    def command(c, msg):
        """Sends msg on c with a fresh id; returns what was sent."""
        harness.Client._ids = getattr(harness.Client, "_ids", 0) + 1
        msg = dict(msg, id="cmd%d" % harness.Client._ids)
        c.send(msg)
        return msg

    @staticmethod
    def answer(c, sent, deadline):
        """The answer to command `sent` on c: an error with its id, or its
        outcome (a move's `moved`, a join's `game_start`, or a `state`
        that shows it: a resync's). Fails when none comes by deadline."""
        def ok(m):
            if m.get("id") == sent["id"]:
                return True
            if m.get("game") != sent["game"]:
                return False
            if sent["t"] == "move":
                return ((m["t"] == "moved" and m["ply"] == sent["ply"] + 1)
                        or (m["t"] == "state" and m["ply"] > sent["ply"]))
            return m["t"] == "game_start" or (
                m["t"] == "state" and m.get("black") is not None)
        for i, m in enumerate(c.backlog):
            if ok(m):
                return c.backlog.pop(i)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("unanswered: %r; backlog %r" % (
                    sent, c.backlog[-6:]))
            try:
                m = c._next(left)
            except socket.timeout:
                continue
            if ok(m):
                return m
            c.backlog.append(m)

    def until_done(self, c, msg, within=WAIT):
        """Sends msg again (a client's next try) while it is answered
        busy; returns its outcome. No game hangs: it comes."""
        deadline = time.monotonic() + within
        while True:
            a = self.answer(c, self.command(c, msg), deadline)
            if a["t"] != "error":
                return a
            self.assertEqual(a["code"], "rate_limited", a)
            time.sleep(0.2)

    def every_command_answered(self, sent, within):
        """Each (client, command) of sent is answered within `within`
        seconds: its outcome, an error with its id (busy), or the close
        of a connection whose game moved to another node (1012: its
        client reconnects and resyncs). Returns the answers' counts."""
        deadline = time.monotonic() + within
        got = {"done": 0, "busy": 0, "moved": 0}
        for c, msg in sent:
            try:
                a = self.answer(c, msg, deadline)
            except harness.Closed as e:
                self.assertEqual(e.code, 1012)
                got["moved"] += 1
                continue
            if a["t"] == "error":
                self.assertEqual(a["code"], "rate_limited", a)
                got["busy"] += 1
            else:
                got["done"] += 1
        return got

    def plays_on(self, player, node, msg):
        """player's token on node `node` again: the game of msg (a move or
        a join) is synced, msg sent again until done unless the sync shows
        it done already; returns the new client."""
        c = self.client_on(node, token=player.token)
        gid = msg["game"]
        st = self.until_done(c, {"t": "sync", "game": gid})
        if msg["t"] == "move" and st["ply"] <= msg["ply"]:
            self.until_done(c, {k: msg[k] for k in ("t", "game", "uci",
                                                     "ply")})
        elif msg["t"] == "join" and st.get("black") is None:
            self.until_done(c, {"t": "join", "game": gid})
        return c

    def figures(self, i):
        """Node i's /metrics, strictly parsed: {name: value} for a sample
        without labels, {name: {label value: value}} for one label."""
        status, _, body = self.srv.nodes[i].http("/metrics")
        self.assertEqual(status, 200)
        out = {}
        for fam in parse_prometheus(self, body.decode()).values():
            for name, labels, v in fam["samples"]:
                if not labels:
                    out[name] = v
                elif len(labels) == 1:
                    out.setdefault(name, {})[next(iter(labels.values()))] = v
                else:
                    out.setdefault(name, {})[tuple(labels.values())] = v
        return out

    def summed(self, name, key=None, nodes=None):
        """name (its sample of label value key) summed over the live
        nodes (or those given)."""
        total = 0
        for i in nodes if nodes is not None else range(len(self.srv.nodes)):
            if self.srv.nodes[i].proc.poll() is None:
                f = self.figures(i)[name]
                total += f[key] if key is not None else f
        return total

    def hosted(self):
        """The games each node hosts (chess_cluster_hosted_games)."""
        return [self.figures(i)["chess_cluster_hosted_games"]
                for i in range(len(self.srv.nodes))]

    def wait_balanced(self, timeout):
        """Waits until the most loaded node hosts at most 125 % of the
        mean plus 8 games (docs/cluster.md, "Balance"); returns the
        seconds it took, or None."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            h = self.hosted()
            if sum(h) and max(h) <= 1.25 * sum(h) / len(h) + 8:
                return max(time.monotonic() - start, 0.001)
            time.sleep(0.2)
        return None

    def reconnect(self, c, node):
        """c's player on node `node` again, with its token."""
        c.close()
        return self.client_on(node, token=c.token)

    def starts_once(self, clients, host):
        """A new game of clients (its players) starts: each gets its
        game_start once and its first state once, nothing of either
        doubled within a second; the game is hosted on node host.
        Returns its GID."""
        gid = clients[0].expect("game_start")["game"]
        self.assertEqual(self.srv.host_of(gid), host)
        for i, c in enumerate(clients):
            got, c.backlog = c.backlog, []
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                try:
                    got.append(c._next(deadline - time.monotonic()))
                except socket.timeout:
                    break
            kinds = [m["t"] for m in got if m.get("game") == gid and
                     m["t"] in ("game_start", "state")]
            self.assertEqual(kinds, ["state"] if i == 0 else
                             ["game_start", "state"],
                             (c.pid, [(m["t"], m.get("game")) for m in got]))
        return gid

    def ended(self, clients, gid):
        """The last of clients resigns gid: each is told its end."""
        clients[-1].send({"t": "resign", "game": gid})
        for c in clients:
            self.assertEqual(c.expect("game_end", game=gid)["reason"],
                             "resignation")


@unittest.skipUnless(CLUSTER >= 3, "a cluster of 3 nodes (CHESS_TEST_CLUSTER)")
class ClusterTest(OnNodes, FreshServerTest):
    """A cluster of its own per test (nodes die in them)."""

    def setUp(self):
        super().setUp()
        self.srv = self.server({"max_connections_per_ip": 5000,
                                "max_invites_per_ip": 5000,
                                "chat_guests": 1,
                                "challenge_lapse_s": CHALLENGE_LAPSE_S})
        self.keep = []  # clients kept open (their invitations with them)

    def test_chat_across_nodes_and_after_a_kill_of_the_host(self):
        """Chat lines go to the game's host and back to every connection
        of the room, on any node, in order; the rooms stay apart; after
        kill -9 of the host, the node that adopts the game reads its
        lines and replays them (PROTOCOL.md "Chat")."""
        w, b, gid = self.game_on(0, 1)
        s = self.client_on(2)
        s.request({"t": "watch", "game": gid}, "state")
        for i in range(4):
            (w, b)[i % 2].send({"t": "chat", "game": gid, "room": "player",
                                "text": "line %d" % i})
        # each connection of the room in the order the host took them
        # (white's on the host and black's through Redis may cross), each
        # sender's own in the order sent
        order = []
        for c in (w, b):
            got = [c.expect("chat", game=gid)["text"] for _ in range(4)]
            self.assertEqual(sorted(got), ["line %d" % i for i in range(4)])
            for mine in (["line 0", "line 2"], ["line 1", "line 3"]):
                self.assertEqual([t for t in got if t in mine], mine)
            order.append(got)
        self.assertEqual(order[0], order[1])
        s.send({"t": "chat", "game": gid, "room": "spectator",
                "text": "from node 2"})
        line = s.expect("chat", game=gid)
        self.assertEqual((line["room"], line["text"]),
                         ("spectator", "from node 2"))
        for c in (w, b, s):  # nobody got a line of the other room
            self.assertEqual([m for m in c.backlog if m["t"] == "chat"], [])
        self.srv.nodes[0].kill()
        w2 = self.reconnect(w, 2)
        w2.send({"t": "sync", "game": gid})
        hist = w2.expect("chat_history", game=gid, room="player",
                         timeout=LEASE_S + 5)
        self.assertEqual([x["text"] for x in hist["lines"]], order[0])
        s2 = self.client_on(1)
        s2.send({"t": "watch", "game": gid})
        hist = s2.expect("chat_history", game=gid, room="spectator")
        self.assertEqual([x["text"] for x in hist["lines"]], ["from node 2"])
        b.send({"t": "chat", "game": gid, "room": "player",
                "text": "still here"})
        w2.expect("chat", game=gid, text="still here")

    def test_a_challenge_of_a_dead_node_expires_and_frees_its_caps(self):
        """kill -9 of the node that holds two challenges: the node whose
        sweep finds it dead takes them over (challenge.lua's node) and
        runs their lapse (docs/cluster.md, "Challenges across nodes").
        One challenger had its only page on the dead node: its challenge
        expires a lapse after the death, its players on the other nodes
        told, and the caps it held are free again. The other keeps a
        page open on another node: its challenge stays open past the
        lapse and is accepted."""
        a, b = self.client_on(0), self.client_on(1)
        k = self.client_on(0)
        k2 = self.client_on(2, token=k.token)  # (k's page elsewhere)
        blitz = {"type": "fischer", "initial_s": 180, "increment_s": 2}
        cid = a.request({"t": "challenge", "to": b.pid, "clock": blitz},
                        "challenge")["challenge"]["id"]
        self.assertEqual(b.expect("challenge")["challenge"]["id"], cid)
        kid = k.request({"t": "challenge", "to": b.pid, "clock": blitz},
                        "challenge")["challenge"]["id"]
        self.assertEqual(b.expect("challenge")["challenge"]["id"], kid)
        self.srv.nodes[0].kill()
        t0 = time.monotonic()
        got = b.expect("challenge",
                       timeout=LEASE_S + CHALLENGE_LAPSE_S + 5)["challenge"]
        self.assertEqual((got["id"], got["status"]), (cid, "expired"))
        print("\nchallenge of a dead node expired after %.2f s"
              % (time.monotonic() - t0))
        self.assertGreater(time.monotonic() - t0, CHALLENGE_LAPSE_S)
        # kept: its challenger is on node 2 (a lapse more, to be sure)
        time.sleep(CHALLENGE_LAPSE_S + 0.5)
        self.assertEqual([c["id"] for c in b.request(
            {"t": "challenges"}, "challenges")["in"]], [kid])
        b.send({"t": "challenge_accept", "challenge": kid})
        game = b.expect("challenge")["challenge"]
        self.assertEqual((game["id"], game["status"]), (kid, "accepted"))
        self.assertEqual(k2.expect("game_start")["game"], game["game"])
        # the challenger, back on another node, may challenge again
        a2 = self.reconnect(a, 2)
        a2.request({"t": "challenge", "to": b.pid, "clock": blitz},
                   "challenge")
        b.expect("challenge")

    def test_players_on_two_nodes_spectator_on_the_third(self):
        w, b, gid = self.game_on(0, 1)
        s = self.client_on(2)
        st = s.request({"t": "watch", "game": gid}, "state")
        self.assertEqual(st["ply"], 2)
        w.move(gid, "g1f3", 2)
        for c in (w, b, s):
            self.assertEqual(c.expect("moved", game=gid, ply=3)["san"], "Nf3")
        # the cluster's figures while the game is on: node 0 hosts it,
        # mirroring black's and the spectator's connections, which follow
        # it from nodes 1 and 2, whose commands went there
        f = [self.figures(i) for i in range(3)]
        self.assertEqual(f[0]["chess_cluster_hosted_games"], 1)
        self.assertEqual(f[0]["chess_cluster_remote_sessions"], 2)
        self.assertEqual(f[0]["chess_cluster_followed_games"], 0)
        for i in (1, 2):
            self.assertEqual(f[i]["chess_cluster_hosted_games"], 0)
            self.assertEqual(f[i]["chess_cluster_followed_games"], 1)
        self.assertEqual(f[0]["chess_cluster_commands_forwarded_total"], 0)
        # black's join and move, the spectator's watch
        self.assertEqual(f[1]["chess_cluster_commands_forwarded_total"], 2)
        self.assertEqual(f[2]["chess_cluster_commands_forwarded_total"], 1)
        for i in range(3):
            node, = f[i]["chess_cluster_node_info"]
            self.assertEqual(node[0], self.srv.nodes[i].name)
            self.assertRegex(node[1], "^[0-9a-zA-Z_-]+$")
            self.assertEqual(f[i]["chess_cluster_leased"], 1)
            self.assertLess(f[i]["chess_cluster_lease_age_seconds"], LEASE_S)
            self.assertEqual(f[i]["chess_redis_up"], 1)
            self.assertEqual(f[i]["chess_redis_reconnects_total"], 0)
            self.assertEqual(f[i]["chess_redis_queue_depth"], 0)
            self.assertGreater(f[i]["chess_redis_round_trip_seconds_count"],
                               0)  # (its renewals at least)
            self.assertEqual(f[i]["chess_cluster_fences_total"], 0)
        self.assertGreater(f[0]["chess_redis_publish_seconds_count"], 0)
        b.send({"t": "resign", "game": gid})
        for c in (w, b, s):
            self.assertEqual(c.expect("game_end", game=gid)["reason"],
                             "resignation")

    def test_a_new_game_after_an_ended_one_starts_once(self):
        """Two players on nodes 0 and 1 play again at once, while their
        ended games stay in their host's memory (5 minutes): a
        connection mirrored on the new game's host (it followed the old
        game there) gets the new game's game_start and first state once,
        not also through its edge's START. So do the other orders: the
        new game on the other node (no mirror there yet), and a
        reconnect in between (a new connection, not mirrored)."""
        w, b, gid = self.game_on(0, 1)
        self.ended((w, b), gid)
        # a rematch: hosted on node 0, where b's connection is mirrored
        b.send({"t": "rematch", "game": gid})
        w.expect("rematch_offered", game=gid)
        w.send({"t": "rematch", "game": gid})
        g2 = self.starts_once((w, b), 0)
        self.ended((w, b), g2)
        # a challenge accepted on node 0: hosted there again
        blitz = {"type": "fischer", "initial_s": 180, "increment_s": 2}
        cid = b.request({"t": "challenge", "to": w.pid, "clock": blitz},
                        "challenge")["challenge"]["id"]
        self.assertEqual(w.expect("challenge")["challenge"]["id"], cid)
        w.send({"t": "challenge_accept", "challenge": cid})
        g3 = self.starts_once((w, b), 0)
        self.ended((w, b), g3)
        # one accepted on node 1: hosted there, w's connection not
        # mirrored there yet (its START gives it the start)
        cid = w.request({"t": "challenge", "to": b.pid, "clock": blitz},
                        "challenge")["challenge"]["id"]
        self.assertEqual(b.expect("challenge")["challenge"]["id"], cid)
        b.send({"t": "challenge_accept", "challenge": cid})
        g4 = self.starts_once((b, w), 1)
        self.ended((w, b), g4)
        # b's page reloaded on node 2 in between: its rematch offer
        # mirrors its new connection on node 1, as w's (node 0) is
        b = self.reconnect(b, 2)
        b.send({"t": "rematch", "game": g4})
        w.expect("rematch_offered", game=g4)
        w.send({"t": "rematch", "game": g4})
        self.starts_once((w, b), 1)

    def test_kill_of_the_host_resumes_elsewhere(self):
        """kill -9 of a game's host mid-game: the player who was on it
        reconnects through another node; the game resumes with every
        acknowledged move and the clocks as they were (the outage is
        charged to nobody), within the lease and the restore."""
        w, b, gid = self.game_on(0, 1)
        w.move(gid, "g1f3", 2)
        moved = b.expect("moved", game=gid, ply=3)
        w.expect("moved", game=gid, ply=3)
        before = moved["clocks"]
        killed = time.monotonic()
        self.srv.nodes[0].kill()
        w2 = self.reconnect(w, 2)
        self.assertEqual(w2.games, [gid])
        # black's move waits for the adoption: it is answered at once
        # after (forwarded again), never lost
        b.move(gid, "b8c6", 3)
        m = b.expect("moved", game=gid, ply=4, timeout=LEASE_S + 5)
        resumed = time.monotonic() - killed
        self.sees_ply(w2, gid, 4)  # (its moved, or its resync's state)
        self.assertLess(resumed, LEASE_S + TICK_S + 2.0)
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5", "g1f3", "b8c6"])
        # white's clock is as it was; black thought while the host was
        # gone (its clock ran from white's move until the host's last
        # sign of life, at most a lease tick before the kill, and not
        # during the outage)
        self.assertEqual(m["clocks"]["white_ms"], before["white_ms"])
        lost = before["black_ms"] - m["clocks"]["black_ms"]
        self.assertGreaterEqual(lost, 0)
        self.assertLess(lost, 1000 * (TICK_S + 0.5), (before, m["clocks"]))
        self.assertEqual(self.srv.host_of(gid) in (1, 2), True)
        # one adoption in the cluster, a takeover; the dead node removed
        # from the cluster by one node's sweep once its game was taken
        self.assertEqual(self.summed("chess_cluster_adoptions_total",
                                     "takeover"), 1)
        self.assertEqual(self.summed("chess_cluster_adoptions_total",
                                     "handover"), 0)
        harness.wait_until(
            lambda: self.summed("chess_cluster_dead_nodes_total") == 1,
            "the dead node swept", timeout=LEASE_S + 2)
        print("\nkill -9 of the host: moves again after %.2f s" % resumed)

    def test_sigterm_hands_the_game_over_at_once(self):
        w, b, gid = self.game_on(0, 1)
        stopped = time.monotonic()
        self.srv.nodes[0].proc.send_signal(signal.SIGTERM)
        w2 = self.reconnect(w, 2)
        st = w2.request({"t": "sync", "game": gid}, "state", )
        self.assertEqual(st["ply"], 2)
        w2.move(gid, "g1f3", 2)
        clocks = self.sees_ply(b, gid, 3)
        took = time.monotonic() - stopped
        self.assertLess(took, LEASE_S)  # handed over, not adopted
        self.assertEqual(self.srv.nodes[0].proc.wait(timeout=WAIT), 0)
        self.assertIn("event=cluster_handed_over game=" + gid,
                      self.srv.nodes[0].log_text())
        # the node it went to counts a handover adoption (the stopped
        # node's own count went with it)
        self.assertEqual(self.summed("chess_cluster_adoptions_total",
                                     "handover"), 1)
        self.assertEqual(self.summed("chess_cluster_adoptions_total",
                                     "takeover"), 0)
        # no pause: white's clock ran only while white thought
        self.assertGreater(clocks["white_ms"], 300000 - 1000 * took - 500)
        print("\nSIGTERM of the host: moves again after %.2f s" % took)

    def computer_game_on(self, host):
        """A game against the computer (level 8: up to a second a move)
        hosted on node host, its player there, white; the player's
        second move played, the computer thinking on it. Returns
        (player, gid, the computer's first reply)."""
        c = self.client_on(host)
        c.send({"t": "computer", "level": 8, "color": "white",
                "clock": FISCHER_5_0})
        gid = c.expect("game_start")["game"]
        # (the lease is taken in Redis after the game starts: CI once
        # read none right after game_start)
        wait_until(lambda: self.srv.host_of(gid) is not None, "a host")
        self.assertEqual(self.srv.host_of(gid), host)
        c.move(gid, "e2e4", 0)
        reply = c.expect("moved", game=gid, ply=2, timeout=WAIT * 2)
        c.move(gid, "d2d4", 2)
        c.expect("moved", game=gid, ply=3)
        return c, gid, reply

    def test_correspondence_game_adopted_runs_at_once(self):
        """kill -9 of a correspondence game's host while both players are
        away: another node adopts it, not paused (it waits for nobody),
        black's clock charged up to the host's last sign of life, and
        nobody abandoned it (issue 29: nothing in adoption assumes a
        short game)."""
        w, b, gid = self.game_on(0, 1, clock={"type": "per_move",
                                              "per_move_s": 86400})
        w.close()
        b.close()
        self.srv.nodes[0].kill()
        o = self.client_on(2)  # a spectator makes a node adopt it
        o.send({"t": "watch", "game": gid})
        st = o.expect("state", game=gid, timeout=LEASE_S + 10)
        if st["clocks"]["running"] is None:  # (the restore's instant)
            st = o.expect("state", game=gid)
        self.assertEqual((st["status"], st["clocks"]["running"]),
                         ("started", "white"))
        self.assertGreater(st["clocks"]["white_ms"], 86400000 - 30000)
        self.assertEqual(st["gone"], {"white": None, "black": None})
        self.assertIn(self.srv.host_of(gid), (1, 2))

    def test_computer_game_adopted_after_its_host_died(self):
        """kill -9 of the host while its engine thinks: another node
        adopts the game and its engine is asked the move again."""
        c, gid, reply = self.computer_game_on(0)
        self.srv.nodes[0].kill()
        c2 = self.reconnect(c, 2)
        self.assertEqual(c2.games, [gid])
        c2.send({"t": "sync", "game": gid})
        self.sees_ply(c2, gid, 4, timeout=LEASE_S + 10)
        st = c2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"][:3], ["e2e4", reply["uci"], "d2d4"])
        self.assertIn(self.srv.host_of(gid), (1, 2))
        host = self.srv.nodes[self.srv.host_of(gid)]
        self.assertIn("event=cluster_adopted game=" + gid, host.log_text())

    def test_computer_game_handed_over_on_sigterm(self):
        c, gid, reply = self.computer_game_on(0)
        self.srv.nodes[0].proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.srv.nodes[0].proc.wait(timeout=WAIT), 0)
        self.assertIn("event=cluster_handed_over game=" + gid,
                      self.srv.nodes[0].log_text())
        c2 = self.reconnect(c, 1)
        c2.send({"t": "sync", "game": gid})
        self.sees_ply(c2, gid, 4, timeout=WAIT * 2)
        st = c2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"][:3], ["e2e4", reply["uci"], "d2d4"])

    def test_rolling_restart_under_load_loses_no_game_and_no_move(self):
        """chess-loadgen plays 200 games with each game's players on two
        nodes (--ports) and reconnects a cut connection through the next
        node with its token (--resume), as a browser does; meanwhile each
        node in turn is stopped (SIGTERM: its games handed over) and
        started again on its port. No acknowledged move is missing from
        any resync, no game is given up or abandoned, and play goes on.
        The last node restarted comes back empty: the balance hands it
        games until the nodes are within the stated ratio."""
        loadgen = os.environ.get("CHESS_LOADGEN")
        if not loadgen:
            self.fail("CHESS_LOADGEN not set (tests/cluster/meson.build)")
        ports = [n.port for n in self.srv.nodes]
        out = self.path("loadgen.out")
        with open(out, "w") as f, open(self.path("loadgen.err"), "w") as e:
            lg = subprocess.Popen(
                [loadgen, "--url", "ws://127.0.0.1:%d/ws" % ports[0],
                 "--ports", ",".join(map(str, ports)), "--resume",
                 "--acked", self.path("acked.txt"),
                 "--games", "200", "--move-interval-ms", "1000",
                 "--duration-s", "40", "--ramp-timeout-s", "60"],
                stdout=f, stderr=e)
        self.procs.append(lg)

        def live():
            return sum(n.http_json("/healthz")[1]["live_games"]
                       for n in self.srv.nodes if n.proc.poll() is None)
        harness.wait_until(lambda: live() >= 200, "200 games in play",
                           timeout=60)
        time.sleep(3)  # inside the window (it opens when all have begun)
        for i in range(len(self.srv.nodes)):
            if i:
                time.sleep(4)
            self.assertEqual(self.srv.nodes[i].terminate(), 0)
            self.srv.restart_node(i, same_port=True)
        # the last node restarted hosts nothing; the others hand it games
        # (the balance, docs/cluster.md) until within the stated ratio
        joined = self.hosted()
        balanced = self.wait_balanced(BALANCE_WAIT_S)
        self.assertTrue(balanced, "not balanced after %d s: %s" % (
            BALANCE_WAIT_S, self.hosted()))
        self.assertGreater(self.summed("chess_cluster_handovers_total"), 0)
        print("\nbalanced: %s when the last node joined, %s %.1f s later"
              % (joined, self.hosted(), balanced))
        time.sleep(4)  # (play goes on after)
        self.assertEqual(lg.wait(timeout=120), 0)
        with open(out) as f:
            line = f.read().strip()
        got = dict(kv.split("=", 1) for kv in line.split())
        print("\nrolling restart: " + " ".join(
            "%s=%s" % (k, got.get(k)) for k in (
                "moves", "moves_per_s", "opp_p99_us", "opp_max_us",
                "reconnects", "resumes", "resyncs", "lost_moves",
                "ended_away", "abandoned", "resets", "errors_by_code")))
        for k in ("lost_moves", "abandoned", "resets", "stalls",
                  "failed_procs"):
            self.assertEqual(got[k], "0", k + ": " + line)
        # every move a player was shown is in the store
        want = acked.read(self.path("acked.txt"))
        self.assertGreaterEqual(len(want), 200)
        self.assertEqual(acked.lost(want, self.srv.sql(acked.STORED_SQL)),
                         [])
        # every node's connections came back through the others
        self.assertGreaterEqual(int(got["reconnects"]), 200, line)
        self.assertGreaterEqual(int(got["resumes"]),
                                int(got["reconnects"]), line)
        self.assertGreater(int(got["moves"]), 200 * 20, line)
        # and the database agrees: no game ended abandoned
        self.assertEqual(self.srv.sql(
            "SELECT count(*) FROM games WHERE reason = 'abandoned'"),
            [(0,)])

    def test_redis_restart_loses_no_move(self):
        w, b, gid = self.game_on(0, 1)
        self.srv.redis.stop()
        for c in (w, b):
            c.expect("cluster_lost")
        for i in range(3):
            self.assertEqual(self.figures(i)["chess_redis_up"], 0)
        # the host (node 0) still takes white's move: its journal is
        # PostgreSQL's, and white's connection is its own
        w.move(gid, "g1f3", 2)
        w.expect("moved", game=gid, ply=3)
        self.srv.redis.start()
        for c in (w, b):
            c.expect("cluster_back", timeout=10)
        # black resyncs and sees the move it missed
        st = b.expect("state", game=gid, ply=3, timeout=10)
        self.assertEqual(st["moves"][-1], "g1f3")
        b.move(gid, "b8c6", 3)
        for c in (w, b):
            c.expect("moved", game=gid, ply=4, timeout=10)
        for i in range(3):
            f = self.figures(i)
            self.assertEqual(f["chess_redis_up"], 1)
            self.assertGreaterEqual(f["chess_redis_reconnects_total"], 1)

    def test_redis_restart_answers_every_command(self):
        """Redis restarted (its leases gone until the nodes join again)
        while moves and joins are on their way from players on other
        nodes than their games' hosts: every command is answered (run,
        refused busy with its id, or its connection closed 1012 where its
        game moved), and every game plays on."""
        games = [self.game_to_black(k % 3, (k + 1) % 3) for k in range(6)]
        invites = [self.invitation_on(k % 3, (k + 2) % 3) for k in range(6)]
        sent = []
        self.srv.redis.stop(signal.SIGKILL)
        for _, b, gid in games[:3]:  # during the outage
            sent.append((b, self.command(b, {"t": "move", "game": gid,
                                             "uci": "b8c6", "ply": 3})))
        for j, gid in invites[:3]:
            sent.append((j, self.command(j, {"t": "join", "game": gid})))
        time.sleep(LEASE_S + 0.5)  # every lease lapses meanwhile
        self.srv.redis.start()
        for _, b, gid in games[3:]:  # as the nodes join again
            b.expect("cluster_back", timeout=WAIT)
            sent.append((b, self.command(b, {"t": "move", "game": gid,
                                             "uci": "b8c6", "ply": 3})))
        for j, gid in invites[3:]:
            j.expect("cluster_back", timeout=WAIT)
            sent.append((j, self.command(j, {"t": "join", "game": gid})))
        got = self.every_command_answered(sent, LEASE_S + 2 * TICK_S + 4)
        for (c, msg), k in zip(sent, range(len(sent))):  # none hangs
            self.plays_on(c, (k + 1) % 3, msg)
        for k, (w, b, gid) in enumerate(games):
            w2 = self.client_on(k % 3, token=w.token)
            m = self.until_done(w2, {"t": "move", "game": gid,
                                     "uci": "f1c4", "ply": 4})
            self.assertEqual(m.get("ply"), 5, m)
        print("\nRedis restarted: %d commands answered: %r"
              % (len(sent), got))

    def test_a_paused_host_answers_every_command(self):
        """A host paused (SIGSTOP) past its lease while moves and joins of
        players on other nodes are on their way to it: the other nodes
        adopt its games; resumed, it finds them taken and answers each
        command it had been sent busy (not run: the new host runs the
        client's next try); no game hangs."""
        games = [self.game_to_black(0, 1 + k % 2) for k in range(4)]
        invites = [self.invitation_on(0, 1 + k % 2) for k in range(4)]
        paused = self.srv.nodes[0]
        paused.proc.send_signal(signal.SIGSTOP)
        try:
            sent = [(b, self.command(b, {"t": "move", "game": gid,
                                         "uci": "b8c6", "ply": 3}))
                    for _, b, gid in games]
            sent += [(j, self.command(j, {"t": "join", "game": gid}))
                     for j, gid in invites]
            deadline = time.monotonic() + LEASE_S + 2 * TICK_S + 5
            for _, _, gid in games:
                while self.srv.host_of(gid) in (0, None):
                    self.assertLess(time.monotonic(), deadline,
                                    "not adopted")
                    time.sleep(0.05)
        finally:
            paused.proc.send_signal(signal.SIGCONT)
        got = self.every_command_answered(sent, LEASE_S + 2 * TICK_S + 4)
        self.assertEqual(got["busy"], len(sent), got)  # none run twice
        for k, (c, msg) in enumerate(sent):  # none hangs
            self.plays_on(c, 1 + k % 2, msg)
        print("\npaused host: %d commands answered: %r" % (len(sent), got))

    def test_thousand_seeks_pair_each_seeker_once(self):
        n = 300 if os.environ.get("CHESS_SERVER_WRAPPER") else 1000
        clients = [self.client(self.srv) for _ in range(n)]
        for c in clients:
            c.send({"t": "seek", "clock": FISCHER_5_0, "color": "random"})
        starts = {}
        for c in clients:
            c.expect("seeking")
        for c in clients:
            g = c.expect("game_start", timeout=WAIT * 2)
            c.expect("state", game=g["game"])
            starts.setdefault(g["game"], []).append(c.pid)
        self.assertEqual(len(starts), n // 2)
        seated = [p for ps in starts.values() for p in ps]
        self.assertEqual(len(seated), n)
        self.assertEqual(len(set(seated)), n)  # each seeker exactly once
        self.assertTrue(all(len(ps) == 2 for ps in starts.values()))
        for c in clients[:20]:  # and no second game
            c.quiet(0.05)

    def test_whole_cluster_restart_resumes_every_game(self):
        """Every node stopped and started again (Redis restarted empty
        too): each live game is adopted by a node (the store's live games,
        scanned at start), resumes with its moves and its clocks as at the
        stop, and the downtime is charged to nobody."""
        w, b, gid = self.game_on(0, 1)
        before = w.request({"t": "sync", "game": gid}, "state")["clocks"]
        self.srv.stop_nodes()
        self.srv.redis.restart()
        time.sleep(1.0)  # downtime that must be charged to no one
        for i in range(len(self.srv.nodes)):
            self.srv.restart_node(i)
        w2, b2 = self.reconnect(w, 2), self.reconnect(b, 0)
        st = w2.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5"])
        b2.expect("state", game=gid, timeout=LEASE_S + 2)
        w2.move(gid, "g1f3", 2)
        m = b2.expect("moved", game=gid, ply=3, timeout=LEASE_S + 2)
        self.assertEqual(m["clocks"]["black_ms"], before["black_ms"])
        # white was to move at the stop: charged its thinking, not the
        # second of downtime
        self.assertGreater(m["clocks"]["white_ms"],
                           before["white_ms"] - 900)

    def test_a_paused_host_is_fenced_and_its_clients_resynced(self):
        """Two nodes both believing they host a game: the host is paused
        (SIGSTOP) past its lease, another node adopts the game and it goes
        on there; resumed (SIGCONT), the stale host plays a move it had
        been sent meanwhile: PostgreSQL refuses its write (the game's
        epoch moved on), so the move is never shown to anyone, and the
        stale host's client is closed (1012) and resyncs from the true
        host."""
        w, b, gid = self.game_on(0, 1)
        stale = self.srv.nodes[0]
        (inc_before,) = self.figures(0)["chess_cluster_node_info"]
        stale.proc.send_signal(signal.SIGSTOP)
        try:
            w.move(gid, "g1f3", 2)  # waits in the paused node's socket
            deadline = time.monotonic() + LEASE_S + TICK_S + 5
            while self.srv.host_of(gid) in (0, None):
                self.assertLess(time.monotonic(), deadline, "not adopted")
                time.sleep(0.05)
            # the game goes on at its new host: white plays there
            w2 = self.client_on(2, token=w.token)
            w2.move(gid, "d2d4", 2)
            self.sees_ply(b, gid, 3)
        finally:
            stale.proc.send_signal(signal.SIGCONT)
        # the stale host's move is refused and its client cut
        with self.assertRaises(harness.Closed) as cm:
            while True:
                m = w.next(timeout=LEASE_S + 5)
                self.assertFalse(m.get("t") == "moved" and
                                 m.get("uci") == "g1f3", m)
        self.assertEqual(cm.exception.code, 1012)
        w3 = self.client_on(1, token=w.token)
        st = w3.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["moves"], ["e2e4", "e7e5", "d2d4"])
        b.move(gid, "g8f6", 3)
        for c in (w2, w3):
            self.sees_ply(c, gid, 4)
        rows = self.srv.sql("SELECT uci FROM journal WHERE gid = ? "
                            "ORDER BY ply", gid)
        self.assertEqual([r[0] for r in rows],
                         ["e2e4", "e7e5", "d2d4", "g8f6"])
        log = stale.log_text()
        self.assertTrue("event=cluster_fenced game=" + gid in log or
                        "event=cluster_lease_lost" in log, log[-3000:])
        # the metrics tell what the log does: the stale node's lapse and
        # fence, its new incarnation, and the other node's takeover
        # (the log writes a warning repeated within a second once: a
        # counter may be ahead of its lines, never behind, never 0 with
        # a line)
        f = self.figures(0)
        for name, event in (
                ("chess_cluster_fences_total", "cluster_fenced"),
                ("chess_cluster_leases_lost_total", "cluster_lease_lost"),
                ("chess_cluster_commands_held_total",
                 "cluster_commands_held")):
            lines = log.count("event=%s " % event)
            self.assertGreaterEqual(f[name], lines, name)
            self.assertEqual(f[name] > 0, lines > 0, name)
        self.assertGreaterEqual(f["chess_cluster_fences_total"] +
                                f["chess_cluster_leases_lost_total"], 1)
        if f["chess_cluster_leases_lost_total"]:
            (inc_after,) = f["chess_cluster_node_info"]
            self.assertNotEqual(inc_after[1], inc_before[1])
        self.assertEqual(f["chess_cluster_leased"], 1)
        self.assertEqual(self.summed("chess_cluster_adoptions_total",
                                     "takeover", nodes=(1, 2)), 1)


    # ---- who may act for a player (docs/cluster.md, "Who can do what") --

    def refused(self, i, why):
        """Node i's chess_cluster_messages_refused_total{why}."""
        text = self.srv.nodes[i].http("/metrics")[2].decode()
        m = re.search(r'(?m)^chess_cluster_messages_refused_total'
                      r'\{why="%s"\} (\d+)$' % why, text)
        self.assertIsNotNone(m, text[-2000:])
        return int(m.group(1))

    def test_forged_and_replayed_messages_are_refused(self):
        """A PUBLISH without the cluster's key (`redis-cli PUBLISH cmd:GID
        'M evil x1 1 0 0 PID bob\\n{"t":"resign",...}'` resigned bob's game
        before) changes nothing and is counted; a node's signed message
        captured on Redis and published again is refused as replayed. The
        same on limits:all: forged tokens of a shared limit spend no
        node's bucket."""
        self.srv.forgeries_expected = True
        w, b, gid = self.game_on(0, 1)
        forged = ("M evil x1 1 0 1 %s bob\n"
                  '{"t":"resign","game":"%s"}' % (b.pid, gid))
        self.assertEqual(self.srv.redis_of(gid).call("PUBLISH", "cmd:" + gid,
                                                     forged),
                         1)  # the host got it ...
        self.srv.redis.call("PUBLISH", "node:n2",
                            "T 1\n" + json.dumps({"t": "game_end"}))
        wait_until(lambda: self.refused(0, "forged") >= 1,
                   "the host counting the forged command")
        wait_until(lambda: self.refused(1, "forged") >= 1,
                   "node 2 counting the forged delivery")
        # ... and the game goes on: nobody resigned
        w.move(gid, "g1f3", 2)
        for c in (w, b):
            c.expect("moved", game=gid, ply=3)
        self.assertEqual(self.srv.sql("SELECT status FROM games WHERE "
                                      "gid = ?", gid), [("started",)])
        # black's draw offer as it crossed Redis, published again
        tap = Subscriber(self.srv.redis_of(gid).socket, "cmd:" + gid)
        try:
            b.send({"t": "draw_offer", "game": gid})
            w.expect("draw_offered", game=gid)
            offer = tap.message()
        finally:
            tap.close()
        self.assertTrue(offer.startswith("S1 "), offer)
        self.assertIn('"draw_offer"', offer)
        w.send({"t": "draw_decline", "game": gid})
        b.expect("draw_declined", game=gid)
        self.srv.redis_of(gid).call("PUBLISH", "cmd:" + gid, offer)
        wait_until(lambda: self.refused(0, "replayed") >= 1,
                   "the host counting the replay")
        b.move(gid, "b8c6", 3)
        for c in (w, b):
            c.expect("moved", game=gid, ply=4)
        # no second offer reached white meanwhile
        self.assertFalse([m for m in w.backlog
                          if m["t"] == "draw_offered"], w.backlog)
        log = self.srv.nodes[0].log_text()
        self.assertIn("event=cluster_message_refused why=forged "
                      "channel=cmd:*", log)
        self.assertIn("why=replayed", log)

        # a new guest's token as node 3 told it the others, signed ...
        tap = Subscriber(self.srv.redis.socket, "limits:all")
        try:
            self.client_on(2).close()
            taken = tap.message()
        finally:
            tap.close()
        head, body = taken.split("\n", 1)
        self.assertTrue(head.startswith("S1 "), taken)
        self.assertTrue(body.startswith("L guests n3\n"), taken)
        addr = body.split("\n", 1)[1]
        # ... published again, and tokens of the address's logins forged
        # as a node n9's, more than logins_per_ip_per_min (30): refused
        # and counted by every node, and no bucket of the address spent
        before = [(self.refused(i, "forged"), self.refused(i, "replayed"))
                  for i in range(3)]
        self.srv.redis.call("PUBLISH", "limits:all", taken)
        for _ in range(40):
            self.srv.redis.call("PUBLISH", "limits:all",
                                "L logins_ip n9\n" + addr)
        for i, (f, r) in enumerate(before):
            wait_until(lambda: self.refused(i, "forged") >= f + 40 and
                       self.refused(i, "replayed") >= r + 1,
                       "node %d counting the forged tokens" % (i + 1))
        for i in range(3):
            c = self.client_on(i, hello=False)
            c.send({"t": "login", "username": "nobody_here",
                    "password": "not-a-password"})
            m = c.next()
            self.assertEqual((m["t"], m.get("code")),
                             ("error", "bad_credentials"), m)
            c.close()
        self.assertIn("event=cluster_message_refused why=forged "
                      "channel=limits:*", self.srv.nodes[0].log_text())


class Subscriber:
    """A SUBSCRIBE of one channel on the test's Redis (its default user,
    over its unix socket): what the nodes publish, as Redis carries it."""

    def __init__(self, path, channel):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(WAIT)
        self.sock.connect(path)
        self.sock.sendall(("*2\r\n$9\r\nSUBSCRIBE\r\n$%d\r\n%s\r\n"
                           % (len(channel), channel)).encode())
        self.f = self.sock.makefile("rb")
        self._reply()  # the confirmation

    def _reply(self):
        line = self.f.readline().rstrip(b"\r\n")
        if line[:1] == b"*":
            return [self._reply() for _ in range(int(line[1:]))]
        if line[:1] == b"$":
            return self.f.read(int(line[1:]) + 2)[:-2].decode()
        return line[1:].decode()

    def message(self):
        """The next message's text."""
        kind, _, text = self._reply()
        assert kind == "message", kind
        return text

    def close(self):
        self.f.close()
        self.sock.close()


@unittest.skipUnless(CLUSTER >= 3, "a cluster of 3 nodes (CHESS_TEST_CLUSTER)")
@unittest.skipUnless(CLUSTER >= 3, "a cluster of 3 nodes (CHESS_TEST_CLUSTER)")
class ShardTest(OnNodes, FreshServerTest):
    """The games spread over two Redis instances (docs/cluster.md,
    "Shards"), whatever CHESS_TEST_REDIS_SHARDS says."""

    def game_on_shard(self, shard, host, other):
        """game_on's game, one whose keys and commands are on shard."""
        for _ in range(40):
            w, b, gid = self.game_on(host, other)
            if harness.shard_of(gid, 2) == shard:
                return w, b, gid
        self.fail("no game of 40 on shard %d" % shard)

    def test_a_shard_restart_resyncs_and_loses_no_move(self):
        """The second Redis restarts empty (kill -9): every client is told
        (cluster_lost, cluster_back) and resynced, the host takes its
        games of that shard again, and no move is lost, on that shard's
        games or the first's."""
        srv = self.srv = self.server({"max_invites_per_ip": 500}, shards=2)
        w, b, gid = self.game_on_shard(1, 0, 1)
        w0, b0, gid0 = self.game_on_shard(0, 1, 2)
        self.assertEqual(srv.redises[1].call("GET", "game:{%s}:host" % gid),
                         "n1")
        srv.redises[1].stop(signal.SIGKILL)
        for c in (w, b, w0, b0):
            c.expect("cluster_lost")
        # each host still takes its own connections' moves: the journal
        # is PostgreSQL's
        w.move(gid, "g1f3", 2)
        w.expect("moved", game=gid, ply=3)
        srv.redises[1].start()
        for c in (w, b, w0, b0):
            c.expect("cluster_back", timeout=10)
        wait_until(lambda: srv.host_of(gid) == 0,
                   "the host taking its game again on the new shard")
        self.assertIn("event=cluster_shard_restarted shard=1",
                      srv.nodes[0].log_text())
        # black resyncs (or got the move) and plays on
        self.sees_ply(b, gid, 3, timeout=10)
        b.move(gid, "b8c6", 3)
        for c in (w, b):
            self.sees_ply(c, gid, 4, timeout=10)
        # the first shard's game was never cut off
        w0.move(gid0, "g1f3", 2)
        for c in (w0, b0):
            self.sees_ply(c, gid0, 3, timeout=10)
        moves = srv.sql("SELECT count(*) FROM journal WHERE gid = ?", gid)
        self.assertEqual(moves, [(4,)])


class ClusterTlsTest(OnNodes, FreshServerTest):
    """Nodes that reach Redis over TLS with a client certificate, and
    nodes that Redis or its certificate refuse."""

    def node(self, srv, settings):
        """A node started by hand with srv's Redis and settings over
        them: (exit status, stderr) once it exits, or the process."""
        obj = dict(srv.redis.node_settings(), postgres=harness.POSTGRES,
                   node_id="n9", listen_address="127.0.0.1",
                   port=harness.free_port(), web_root=self.dir)
        obj.update(settings)
        cfg = harness.write_json(self.path("n9.json"), obj)
        check = subprocess.run([harness.SERVER, "--check-config", cfg],
                               capture_output=True, text=True, timeout=WAIT)
        run = subprocess.run([harness.SERVER, "--config", cfg],
                             capture_output=True, text=True, timeout=WAIT)
        return check, run

    def test_tls_cluster_plays_across_a_redis_restart(self):
        srv = self.srv = self.server(nodes=2, tls=True)
        w, b, gid = self.game_on(0, 1)
        srv.redis.restart()
        for c in (w, b):
            c.expect("cluster_back", timeout=10)
        # both nodes joined again (over TLS: authenticated, scripts
        # loaded, channels followed again); a new game between them is
        # created, joined through Redis, and played across it. (The games
        # in play across a restart, their commands held or answered busy
        # while the host's lease is in doubt: test_redis_restart_*.)
        for n in srv.nodes:
            wait_until(lambda: n.log_text().count("event=cluster_joined")
                       >= 2, "joined again", timeout=10)
        w2, b2, gid2 = self.game_on(0, 1)
        w2.move(gid2, "g1f3", 2)  # its moved to black's node over TLS
        b2.expect("moved", game=gid2, ply=3)
        b2.move(gid2, "b8c6", 3)  # forwarded to the host over TLS
        for c in (w2, b2):
            c.expect("moved", game=gid2, ply=4)

        # a wrong password, an untrusted certificate, a client
        # certificate Redis does not trust, plain TCP to the TLS port:
        # the node refuses to start, saying why (exit 2: its settings; no
        # use restarting it)
        with open(self.path("wrong"), "w") as f:
            f.write("not-the-password\n")
        fixture.make_certs(self.dir, "rogue-")
        for settings, words in (
                ({"redis_password_file": self.path("wrong")},
                 ["refused this node", "WRONGPASS"]),
                ({"redis_tls_ca_file": self.path("rogue-ca.crt")},
                 ["refused this node", "certificate"]),
                ({"redis_tls_cert_file": self.path("rogue-client.crt"),
                  "redis_tls_key_file": self.path("rogue-client.key")},
                 # (the alert, or the reset that may beat it)
                 ["refused this node",
                  ("client certificate", "alert unknown ca")]),
                ({"redis_tls_ca_file": "", "redis_tls_cert_file": "",
                  "redis_tls_key_file": ""},
                 ["refused this node", "TLS port"])):
            check, run = self.node(srv, settings)
            for r in (check, run):
                self.assertEqual(r.returncode, 2, (settings, r.stderr))
                for word in words:
                    self.assertTrue(any(w in r.stderr for w in (
                        word if isinstance(word, tuple) else (word,))),
                        (word, r.stderr))
            self.assertIn("event=start_failed", run.stderr)


@unittest.skipUnless(CLUSTER >= 3, "a cluster of 3 nodes (CHESS_TEST_CLUSTER)")
class SharedLimitsTest(FreshServerTest):
    """The limits per address that the nodes share (docs/cluster.md, "The
    lobby, presence and the limits per address"): one address whose
    connections go round robin over three nodes gets each limit once,
    not three times."""

    def takes(self, srv):
        """The shared limits' tokens (told, heard) summed over the nodes."""
        told = heard = 0
        for node in srv.nodes:
            status, _, body = node.http("/metrics")
            self.assertEqual(status, 200)
            fam = parse_prometheus(self, body.decode())
            for _, labels, v in fam["chess_cluster_limit_takes_total"][
                    "samples"]:
                if labels["way"] == "told":
                    told += v
                else:
                    heard += v
        return told, heard

    def answers(self, srv, msg, n):
        """msg sent on n new connections, one after another, spread over
        the nodes (no hello): the `t` or error code of each answer. The
        cluster's limits count another node's take a Redis round trip
        late (docs/cluster.md): after each answer, every token taken is
        awaited on every other node (heard = (N-1) x told), so that the
        next attempt is not one in flight (CI once gave a 5th welcome)."""
        out = []
        for _ in range(n):
            c = self.client(srv, hello=False)
            c.send(dict(msg))
            m = c.next(timeout=WAIT)
            out.append(m["code"] if m["t"] == "error" else m["t"])
            c.close()
            wait_until(lambda: (lambda t: t[1] == (len(srv.nodes) - 1) *
                                t[0])(self.takes(srv)),
                       "every node to hear the limits' tokens")
        return out

    def test_an_address_spread_over_the_nodes_gets_each_limit_once(self):
        srv = self.server({"logins_per_ip_per_min": 4},
                          guests_per_ip_per_min=4)
        ports = [srv.client_port() for _ in range(3)]
        self.assertEqual(len(set(ports)), 3)  # (round robin)
        self.assertEqual(self.answers(srv, {"t": "hello"}, 6),
                         ["welcome"] * 4 + ["rate_limited"] * 2)
        self.assertEqual(self.takes(srv), (4, 8))  # (a token a guest)
        got = self.answers(srv, {"t": "login", "username": "nobody_here",
                                 "password": "not-a-password"}, 6)
        self.assertEqual(got, ["bad_credentials"] * 4 +
                         ["rate_limited"] * 2)
