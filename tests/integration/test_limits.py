"""Limits on what one client can make the server hold or do (issue 11):
live games, invitations and seeks per player, open invitations and new
guests per address, and the cost of one player's many connections to
everyone else. Clients on 127.0.0.2 play the attacker: another address on
loopback, counted apart from the other clients on 127.0.0.1."""
import os
import select
import sqlite3
import struct
import threading
import time
import json

from harness import (FISCHER_5_0, WAIT, Client, FreshServerTest, WebSocket,
                     close_all)

ATTACKER = "127.0.0.2"
FAST = {"msg_rate_per_s": 100000, "msg_burst": 100000}


def db_count(server, sql, *args):
    """One number from the server's database (read beside the server:
    WAL lets a reader in while it writes)."""
    db = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True,
                         timeout=WAIT)
    try:
        return db.execute(sql, args).fetchone()[0]
    finally:
        db.close()


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


def ws_frame(obj):
    """A masked text frame for obj (for sending many at once)."""
    data = json.dumps(obj).encode()
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x81, 0x80 | n]) if n < 126 else \
        bytes([0x81, 0x80 | 126]) + struct.pack("!H", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))
