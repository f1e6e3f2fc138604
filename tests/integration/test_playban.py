"""lichess's playban (PROTOCOL.md "Playban") over the real server: an
account that aborts five games in a row while its opponent is there is
banned for 10 minutes (common/playban.c, lila's rules), told so at once
and at every welcome, refused `playban` with the end when it seeks,
invites, joins, challenges or plays the computer, on every connection
(in a cluster on every node), and free again once the ban ends (test
time: PROTOCOL.md "Test time"). A lost game is a good outcome and is not
counted as bad; correspondence games are exempt; `playban: 0` turns it
off; the ban is stored and holds across a restart. Guests are banned
by their token, and with `playban_guests: address` by their address
too (an IPv6 /64 as one), never accounts there; `off` spares them; a
node keeps a bounded table of guests' records."""
import time

from harness import (CLUSTER, FISCHER_5_0, FreshServerTest, not_in_cluster,
                     one_node)

PASSWORD = "correct horse battery"
BAN_MS = 10 * 60 * 1000


class PlaybanTest(FreshServerTest):
    def account(self, srv, username, **kw):
        c = self.client(srv, **kw)
        c.token = c.request({"t": "register", "username": username,
                             "password": PASSWORD}, "registered")["token"]
        return c

    def game(self, a, b, clock=FISCHER_5_0):
        """a invites, b joins: the started game's id."""
        gid = a.request({"t": "invite", "clock": clock, "color": "white"},
                        "invited")["game"]
        b.send({"t": "join", "game": gid})
        for c in (a, b):
            c.expect("game_start", game=gid)
            c.expect("state", game=gid)
        return gid

    def abort(self, a, b, clock=FISCHER_5_0):
        gid = self.game(a, b, clock)
        a.send({"t": "abort", "game": gid})
        for c in (a, b):
            self.assertEqual(c.expect("game_end", game=gid)["reason"],
                             "aborted")

    def lose_by_mate(self, a, b):
        """a (white) is mated in 2: a lost game, a good outcome."""
        gid = self.game(a, b)
        for ply, (who, uci) in enumerate(((a, "f2f3"), (b, "e7e5"),
                                          (a, "g2g4"), (b, "d8h4"))):
            who.move(gid, uci, ply)
            (b if who is a else a).expect("moved", game=gid, ply=ply + 1)
        for c in (a, b):
            self.assertEqual(c.expect("game_end", game=gid)["reason"],
                             "checkmate")

    def refused(self, c, msg):
        c.send(msg)
        e = c.expect_error("playban")
        self.assertIn("until", e["msg"])
        ban = c.expect("playban")
        self.assertNotIn("id", ban)
        return ban

    def banned_after_five_aborts(self, srv, a=None, b=None):
        a = a or self.account(srv, "aborter")
        b = b or self.account(srv, "patient")
        for _ in range(4):
            self.abort(a, b)
        # no ban yet: 4 aborts score 3.2 < 4 (a playban would come first)
        a.request({"t": "ping"}, "pong")
        self.assertFalse([m for m in a.backlog if m["t"] == "playban"])
        # another connection of the account (in a cluster, on another
        # node) is told too, at once
        a2 = self.client(srv, token=a.token, **self.kw(a))
        t0 = time.time() * 1000
        self.abort(a, b)
        ban = a.expect("playban")
        self.assertEqual(ban["minutes"], 10)
        self.assertAlmostEqual(ban["until"], t0 + BAN_MS, delta=60000)
        self.assertEqual(a2.expect("playban")["until"], ban["until"])
        return a, a2, b, ban

    def test_banned_refused_everywhere_then_free(self):
        # (test time is one process's clock: one server only)
        srv = self.server(**({} if CLUSTER else
                             {"env": {"CHESS_TEST_CLOCK_MS": "0"}}))
        a, a2, b, ban = self.banned_after_five_aborts(srv)
        # a connection that comes later is told after its welcome
        a3 = self.client(srv, token=a.token)
        self.assertEqual(a3.expect("playban")["until"], ban["until"])
        for c, msg in ((a, {"t": "seek", "clock": FISCHER_5_0}),
                       (a2, {"t": "invite", "clock": FISCHER_5_0}),
                       (a, {"t": "computer", "level": 1,
                            "clock": FISCHER_5_0, "color": "white"})):
            self.assertEqual(self.refused(c, msg)["until"], ban["until"])
        # joining another's invitation too; the other is not banned
        gid = b.request({"t": "invite", "clock": FISCHER_5_0},
                        "invited")["game"]
        a.send({"t": "join", "game": gid})
        a.expect_error("playban")
        a.expect("playban")
        if CLUSTER:
            return  # (test time is one process's clock)
        b.send({"t": "abort", "game": gid})
        b.expect("game_end", game=gid)
        # challenges and tournaments (refused in a cluster anyway)
        self.refused(a, {"t": "challenge", "to": "patient",
                         "clock": FISCHER_5_0})
        event = b.request({"t": "arena_create", "name": "Blitz",
                           "clock": FISCHER_5_0, "duration_s": 600,
                           "start_in_s": 0}, "arena_created")["arena"]["event"]
        self.refused(a, {"t": "arena_join", "event": event})
        # 10 minutes later, free again
        a.request({"t": "test_clock", "advance_s": 601}, "pong")
        a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")

    def test_a_lost_game_is_good(self):
        srv = self.server()
        a = self.account(srv, "loser")
        b = self.account(srv, "winner")
        for _ in range(4):
            self.abort(a, b)
        self.lose_by_mate(a, b)  # the 5th outcome is good: no ban
        a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        # (and the winner has nothing recorded; the next abort of a's is
        # its 5th bad outcome of 6, 4.0 >= max(0.4 * 6, 4): banned)

    def test_correspondence_exempt(self):
        srv = self.server()
        a = self.account(srv, "corr")
        b = self.account(srv, "corr2")
        for _ in range(5):
            self.abort(a, b, {"type": "per_move", "per_move_s": 86400})
        a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")

    # ---- guests (playban_guests) ----

    def kw(self, c):
        """The connection arguments c was opened with (its address)."""
        return getattr(c, "at", {})

    def guest(self, srv, name, ip=None):
        """A new guest, from ip through the trusted proxy 127.0.0.2."""
        at = ({"source": "127.0.0.2", "headers": {"X-Forwarded-For": ip}}
              if ip else {})
        c = self.client(srv, name=name, **at)
        c.at = at
        return c

    def test_a_guest_is_banned_by_its_token(self):
        """The default: a guest who aborts five games is banned as an
        account is, on every connection of its token (in a cluster on
        every node); a new guest token from the same address is not."""
        srv = self.server()
        g, g2, b, ban = self.banned_after_five_aborts(
            srv, self.guest(srv, "leaver"))
        for c, msg in ((g, {"t": "seek", "clock": FISCHER_5_0}),
                       (g2, {"t": "invite", "clock": FISCHER_5_0})):
            self.assertEqual(self.refused(c, msg)["until"], ban["until"])
        g3 = self.client(srv, token=g.token)
        self.assertEqual(g3.expect("playban")["until"], ban["until"])
        fresh = self.guest(srv, "fresh")
        fresh.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        b.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        self.assertIn("event=playban guest=%s" % g.pid, srv.log_text())

    @one_node
    def test_an_address_ban_holds_for_its_guests_not_its_accounts(self):
        """playban_guests: address: the guest's /64 is banned with it;
        its guests are told, a fresh guest token from another address of
        that /64 too, and refused; the next /64 and the accounts on the
        banned one are not."""
        srv = self.server({"playban_guests": "address",
                           "trusted_proxies": ["127.0.0.2"]})
        neighbour = self.account(srv, "neighbour", **{
            "source": "127.0.0.2",
            "headers": {"X-Forwarded-For": "2001:db8:1:2::7"}})
        sibling = self.guest(srv, "sibling", "2001:db8:1:2::2")
        _, _, b, ban = self.banned_after_five_aborts(
            srv, self.guest(srv, "leaver", "2001:db8:1:2::1"))
        # a guest of that /64 connected already is told at once
        self.assertEqual(sibling.expect("playban")["until"], ban["until"])
        fresh = self.guest(srv, "fresh", "2001:db8:1:2:ffff:1:2:3")
        self.assertEqual(fresh.expect("playban")["until"], ban["until"])
        self.assertEqual(self.refused(fresh, {"t": "seek",
                                              "clock": FISCHER_5_0})["until"],
                         ban["until"])
        self.guest(srv, "next", "2001:db8:1:3::1").request(
            {"t": "invite", "clock": FISCHER_5_0}, "invited")
        neighbour.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        self.assertFalse([m for m in neighbour.backlog
                          if m["t"] == "playban"])
        self.assertIn("event=playban address=2001:db8:1:2::/64",
                      srv.log_text())

    @not_in_cluster("one server's setting")
    def test_guests_off(self):
        srv = self.server({"playban_guests": "off"})
        g = self.guest(srv, "guest")
        b = self.account(srv, "steady")
        for _ in range(6):
            self.abort(g, b)
        g.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        self.assertNotIn("event=playban_outcome guest=", srv.log_text())

    @not_in_cluster("test time is one process's clock")
    def test_the_guests_table_is_bounded(self):
        """Each table keeps at most its cap of records (test time: 1
        here): another guest's outcome evicts the banned one's."""
        srv = self.server(env={"CHESS_TEST_CLOCK_MS": "0",
                               "CHESS_TEST_GUESTBANS_MAX": "1"})
        g, _, b, _ = self.banned_after_five_aborts(
            srv, self.guest(srv, "leaver"))
        self.refused(g, {"t": "invite", "clock": FISCHER_5_0})
        self.abort(self.guest(srv, "other"), b)
        g.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        self.assertIn("event=playban_guest_evicted key=%s" % g.pid,
                      srv.log_text())

    def test_abort_alone_is_not_counted(self):
        """An abort while the opponent was not there (left, dropped)
        costs nothing (lila's isOnGame)."""
        srv = self.server()
        a = self.account(srv, "lonely")
        for _ in range(5):
            b = self.client(srv, name="gone")
            gid = self.game(a, b)
            b.close()
            a.expect("opponent_gone", game=gid)
            a.send({"t": "abort", "game": gid})
            a.expect("game_end", game=gid)
        a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")

    @not_in_cluster("one server's setting and restart")
    def test_off(self):
        srv = self.server({"playban": 0})
        a = self.account(srv, "free")
        b = self.account(srv, "free2")
        for _ in range(6):
            self.abort(a, b)
        a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")

    @not_in_cluster("one server's restart")
    def test_kept_across_restart(self):
        srv = self.server()
        a, _, _, ban = self.banned_after_five_aborts(srv)
        srv.stop()
        srv = self.server()
        c = self.client(srv, hello=False)
        c.send({"t": "hello", "token": a.token})
        c.expect("welcome")
        self.assertEqual(c.expect("playban")["until"], ban["until"])
        self.refused(c, {"t": "invite", "clock": FISCHER_5_0})

    @not_in_cluster("test time is one process's clock")
    def test_the_ladder_through_three_bans(self):
        """Banned, free once the ban is over, banned again: each ban of
        the 72 hours after the last is longer (lila's TempBan), at most
        3 days."""
        srv = self.server(env={"CHESS_TEST_CLOCK_MS": "0"})
        a = self.account(srv, "ladder")
        b = self.account(srv, "ladder2")
        bans = []
        for _ in range(3):
            for _ in range(12):  # aborts until the next ban
                self.abort(a, b)
                a.request({"t": "ping"}, "pong")
                got = [m for m in a.backlog if m["t"] == "playban"]
                if got:
                    a.backlog = [m for m in a.backlog if m["t"] != "playban"]
                    bans.append(got[-1]["minutes"])
                    break
            else:
                self.fail("no ban after 12 aborts (bans so far: %s)" % bans)
            self.refused(a, {"t": "invite", "clock": FISCHER_5_0})
            a.request({"t": "test_clock", "advance_s": bans[-1] * 60 + 1},
                      "pong")
            a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        self.assertEqual(bans[0], 10)
        self.assertLess(bans[0], bans[1])
        self.assertLess(bans[1], bans[2])
        self.assertLessEqual(bans[2], 3 * 24 * 60)

    def test_a_dropped_connection_that_comes_back_is_not_counted(self):
        """A player whose connection drops and who is back within the
        grace period has not left: five such games, each then lost, give
        no ban (five games left would)."""
        srv = self.server()
        a = self.account(srv, "flaky")
        b = self.account(srv, "steady")
        for _ in range(5):
            gid = self.game(a, b)
            a.close()
            b.expect("opponent_gone", game=gid)
            a = self.client(srv, token=a.token)
            b.expect("opponent_back", game=gid)
            for ply, (who, uci) in enumerate(((a, "f2f3"), (b, "e7e5"),
                                              (a, "g2g4"), (b, "d8h4"))):
                who.move(gid, uci, ply)
                other = b if who is a else a
                other.expect("moved", game=gid, ply=ply + 1)
            for c in (a, b):
                self.assertEqual(c.expect("game_end", game=gid)["reason"],
                                 "checkmate")
        a.request({"t": "ping"}, "pong")
        self.assertFalse([m for m in a.backlog if m["t"] == "playban"])
        a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")

