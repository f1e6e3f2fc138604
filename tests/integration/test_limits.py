"""Limits on what one client can make the server hold or do (issue 11):
live games, invitations and seeks per player, open invitations and new
guests per address, and the cost of one player's many connections to
everyone else. Clients on 127.0.0.2 play the attacker: another address on
loopback, counted apart from the other clients on 127.0.0.1."""

from harness import FISCHER_5_0, WAIT, FreshServerTest, one_node

ATTACKER = "127.0.0.2"
FAST = {"msg_rate_per_s": 100000, "msg_burst": 100000}


def db_count(server, sql, *args):
    """One number from the server's database (read beside the server:
    WAL, or PostgreSQL, lets a reader in while it writes)."""
    return server.sql(sql, *args)[0][0]


def invite(client, color="white"):
    return client.request({"t": "invite", "clock": FISCHER_5_0,
                           "color": color}, "invited")["game"]


def refused(client, msg, code):
    err = client.request(msg, "error")
    assert err["code"] == code, err
    return err


class GamesPerPlayerTest(FreshServerTest):
    def test_the_101st_invitation_seek_or_game_is_refused(self):
        srv = self.server(FAST)  # max_games_per_player: the default, 100
        a, other = self.client(srv), self.client(srv)
        gids = [invite(a) for _ in range(100)]
        theirs = invite(other)
        refused(a, {"t": "invite", "clock": FISCHER_5_0},
                "too_many_games")
        refused(a, {"t": "seek", "clock": FISCHER_5_0}, "too_many_games")
        refused(a, {"t": "join", "game": theirs}, "too_many_games")
        # nothing stored or changed: 100 games of a's, theirs still open
        self.assertEqual(db_count(srv, "SELECT count(*) FROM games WHERE "
                                  "creator_pid = ?", a.pid), 100)
        self.assertEqual(srv.http_json("/api/games/" + theirs)[1]["status"],
                         "waiting")
        back = self.client(srv, token=a.token)
        self.assertEqual(sorted(back.games), sorted(gids))
        # the order of checks: a game that cannot be joined says why
        refused(a, {"t": "join", "game": gids[0]}, "own_game")

        # one invitation cancelled: room for one game (here, theirs) ...
        a.send({"t": "abort", "game": gids.pop()})
        a.expect("game_end")
        a.send({"t": "join", "game": theirs})
        a.expect("game_start", game=theirs)
        refused(a, {"t": "seek", "clock": FISCHER_5_0}, "too_many_games")
        # ... and the seek counts: 99 games and a seek are 100
        a.send({"t": "resign", "game": theirs})
        a.expect("game_end", game=theirs)
        a.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        refused(a, {"t": "invite", "clock": FISCHER_5_0}, "too_many_games")
        a.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")  # replaces
        a.request({"t": "cancel_seek"}, "seek_cancelled")
        invite(a)

    @one_node

    def test_invitations_from_one_address_are_capped(self):
        srv = self.server(dict(FAST, max_invites_per_ip=20,
                               max_games_per_player=8))
        guests = [self.client(srv, source=ATTACKER) for _ in range(5)]
        made = [invite(g) for g in guests[:4] for _ in range(5)]
        self.assertEqual(len(made), 20)
        err = refused(guests[4], {"t": "invite", "clock": FISCHER_5_0},
                      "too_many_games")
        self.assertIn("address", err["msg"])
        self.assertEqual(db_count(srv, "SELECT count(*) FROM games"), 20)
        # another address is not affected
        local = self.client(srv)
        invite(local)
        # an invitation joined or cancelled is no longer open
        local.send({"t": "join", "game": made[0]})
        local.expect("game_start", game=made[0])
        invite(guests[4])
        refused(guests[4], {"t": "invite", "clock": FISCHER_5_0},
                "too_many_games")
        guests[1].send({"t": "abort", "game": made[5]})  # its first
        guests[1].expect("game_end", game=made[5])
        invite(guests[4])


class GuestRateTest(FreshServerTest):
    @one_node
    def test_new_guests_per_address_are_metered(self):
        srv = self.server(guests_per_ip_per_min=5)
        made = [self.client(srv, source=ATTACKER) for _ in range(5)]
        late = self.client(srv, hello=False, source=ATTACKER)
        err = late.request({"t": "hello"}, "error")
        self.assertEqual(err["code"], "rate_limited")
        self.assertIn("address", err["msg"])
        # still unauthenticated; nothing was stored
        self.assertEqual(late.request({"t": "sync", "game": "x"},
                                      "error")["code"], "unauthenticated")
        self.assertEqual(db_count(srv, "SELECT count(*) FROM players"), 5)
        # a returning player is not a new guest; another address is apart
        self.client(srv, token=made[0].token, source=ATTACKER)
        self.client(srv)
        self.assertEqual(db_count(srv, "SELECT count(*) FROM players"), 6)


class FanOutTest(FreshServerTest):
    """A player's connections get its games' messages through one
    subscription of the player (not one per connection): every connection,
    also one opened after the game started, gets each message once; a
    connection that watched an invitation before joining it is not served
    twice."""

    def count(self, client, t, **fields):
        client.request({"t": "ping"}, "pong")  # behind anything queued
        n = [m for m in client.backlog if m.get("t") == t and all(
            m.get(k) == v for k, v in fields.items())]
        client.backlog = [m for m in client.backlog if m not in n]
        return len(n)

    def test_every_connection_of_a_player_gets_each_message_once(self):
        srv = self.server(FAST)
        host = self.client(srv)
        gid = invite(host, "white")
        c1 = self.client(srv, source=ATTACKER)
        c2 = self.client(srv, token=c1.token, source=ATTACKER)
        c3 = self.client(srv, token=c1.token, source=ATTACKER)
        c3.request({"t": "watch", "game": gid}, "state")
        c1.send({"t": "join", "game": gid})
        for c in (c1, c2, c3):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
            self.assertEqual(self.count(c, "game_start"), 0)
            self.assertEqual(self.count(c, "state", game=gid), 0)
        c4 = self.client(srv, token=c1.token, source=ATTACKER)
        self.assertEqual(c4.games, [gid])
        c3.send({"t": "unwatch", "game": gid})  # a player's: no effect
        host.move(gid, "e2e4", 0)
        for c in (c1, c2, c3, c4):
            c.expect("moved", game=gid, ply=1)
            self.assertEqual(self.count(c, "moved"), 0)
        c2.close()
        c4.move(gid, "e7e5", 1)
        for c in (host, c1, c3, c4):
            c.expect("moved", game=gid, ply=2)
        c1.send({"t": "resign", "game": gid})
        for c in (host, c1, c3, c4):
            c.expect("game_end", game=gid)


def metric(server, name):
    """One unlabelled sample of /metrics."""
    status, _, body = server.http("/metrics")
    assert status == 200, status
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError("no %s in /metrics" % name)


class FanOutCostTest(FreshServerTest):
    """One player with 256 connections starts 100 games: each game is
    subscribed once per player (its fan), not once per connection, so
    starting a game costs no subscription work per connection. What each
    start still costs per connection is queueing and writing game_start
    and state to it (one shared buffer per message); an unrelated
    client's round trip then depends on how busy the machine is, so the
    test asserts the subscriptions (chess_game_subscriptions), not a
    time."""
    CONNS, GAMES = 256, 100

    @one_node

    def test_a_players_connections_are_one_subscription_per_game(self):
        srv = self.server(dict(FAST, max_connections_per_ip=1000,
                               max_games_per_player=1000,
                               max_invites_per_ip=1000))
        a = self.client(srv, source=ATTACKER)
        conns = [a] + [self.client(srv, token=a.token, source=ATTACKER)
                       for _ in range(self.CONNS - 1)]
        b, other = self.client(srv), self.client(srv)
        gids = []
        for _ in range(self.GAMES):
            gid = invite(a)
            b.send({"t": "join", "game": gid})
            b.expect("game_start", game=gid)
            b.expect("state", game=gid)
            a.backlog = []
            # the unrelated client is answered all along
            other.request({"t": "ping"}, "pong")
            gids.append(gid)
        # two per game (the two players), whatever their connections
        self.assertEqual(metric(srv, "chess_game_subscriptions"),
                         2 * self.GAMES)
        # every connection got every start (one of them checked whole)
        for c in (conns[1], conns[self.CONNS // 2], conns[-1]):
            c.request({"t": "ping"}, "pong")  # behind what was queued
            starts = [m["game"] for m in c.backlog
                      if m["t"] == "game_start"]
            states = [m["game"] for m in c.backlog if m["t"] == "state"]
            self.assertEqual((starts, states), (gids, gids))
            c.backlog = []
        # another connection of the player: its games from its hello, and
        # no subscription more; a spectator's connection is one more
        late = self.client(srv, token=a.token, source=ATTACKER)
        self.assertEqual(sorted(late.games), sorted(gids))
        other.request({"t": "watch", "game": gids[0]}, "state")
        self.assertEqual(metric(srv, "chess_game_subscriptions"),
                         2 * self.GAMES + 1)
        conns[7].move(gids[0], "e2e4", 0)  # white: the player's
        for c in (late, conns[7], b, other):
            c.expect("moved", game=gids[0], ply=1)


def pair_game(a, b):
    """a invites, b joins: the GID once both saw game_start."""
    gid = invite(a)
    b.send({"t": "join", "game": gid})
    for c in (a, b):
        c.expect("game_start", game=gid)
    return gid


class LiveGamesTest(FreshServerTest):
    """Issue 25: one address made 1,500 started games in 18 s with fresh
    guests, all live with nobody connected."""

    @one_node
    def test_started_games_per_address_are_capped(self):
        srv = self.server(dict(FAST, max_games_per_ip=5))
        # five games between guests of the attacker's address: each
        # counts once against it
        guests = [self.client(srv, source=ATTACKER) for _ in range(12)]
        gids = [pair_game(guests[2 * i], guests[2 * i + 1])
                for i in range(5)]
        late, late2 = guests[10], guests[11]
        err = refused(late, {"t": "invite", "clock": FISCHER_5_0},
                      "address_full")
        self.assertIn("your address", err["msg"])
        refused(late, {"t": "seek", "clock": FISCHER_5_0}, "address_full")
        # a game with another address counts against both: refused too
        local, local2 = self.client(srv), self.client(srv)
        theirs = invite(local)
        refused(late, {"t": "join", "game": theirs}, "address_full")
        # nothing was created: five started games, one open invitation
        self.assertEqual(db_count(srv, "SELECT count(*) FROM games WHERE "
                                  "status = 'started'"), 5)
        # another address still plays
        local2.send({"t": "join", "game": theirs})
        local2.expect("game_start", game=theirs)
        # a game's end gives its place back
        guests[0].send({"t": "resign", "game": gids[0]})
        guests[0].expect("game_end", game=gids[0])
        pair_game(late, late2)
        refused(late, {"t": "seek", "clock": FISCHER_5_0}, "address_full")

    @one_node
    def test_live_games_in_all_are_capped(self):
        srv = self.server(dict(FAST, max_live_games=3))
        clients = [self.client(srv, source="127.0.0.%d" % (3 + i))
                   for i in range(4)]
        made = [invite(c) for c in clients[:3]]
        refused(clients[3], {"t": "invite", "clock": FISCHER_5_0},
                "server_full")
        refused(clients[3], {"t": "seek", "clock": FISCHER_5_0},
                "server_full")
        self.assertEqual(db_count(srv, "SELECT count(*) FROM games"), 3)
        # a join adds no game; an end makes room
        clients[3].send({"t": "join", "game": made[0]})
        clients[3].expect("game_start", game=made[0])
        clients[1].send({"t": "abort", "game": made[1]})
        clients[1].expect("game_end", game=made[1])
        invite(clients[3])


class DesertedGameTest(FreshServerTest):
    def test_a_game_both_players_left_ends(self):
        # grace 1 s: the bound is the grace period, from the later
        # departure; a spectator sees the end
        srv = self.server(FAST, grace_s=1)
        w, b, gid = self.start_game(srv)
        w.move(gid, "e2e4", 0)
        b.expect("moved", game=gid, ply=1)
        b.move(gid, "e7e5", 1)
        w.expect("moved", game=gid, ply=2)
        w2, b2, gid2 = self.start_game(srv)
        w2.move(gid2, "e2e4", 0)
        b2.expect("moved", game=gid2, ply=1)
        spectator = self.client(srv)
        for g in (gid, gid2):
            spectator.request({"t": "watch", "game": g}, "state")
        for c in (w, b, w2, b2):
            c.close()
        ends = {}
        for _ in range(2):
            e = spectator.expect("game_end", timeout=WAIT + 5)
            ends[e["game"]] = (e["reason"], e["result"])
        # both sides had moved: white, to move, abandoned it; before
        # that, the game is aborted
        self.assertEqual(ends[gid], ("abandoned", "0-1"))
        self.assertEqual(ends[gid2], ("aborted", "*"))
        st = srv.http_json("/api/games/" + gid)[1]
        self.assertEqual((st["status"], st["reason"]), ("ended", "abandoned"))
