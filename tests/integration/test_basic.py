"""Identity, lobby pairing and the first moves."""
from harness import FISCHER_5_0, Client, ServerTest, one_node, wait_until


class BasicTest(ServerTest):
    def test_hello_creates_guest(self):
        c = self.client(hello=False)
        c.send({"t": "hello", "id": "h1"})
        w = c.expect("welcome")
        self.assertEqual(w["id"], "h1")
        self.assertTrue(w["player"]["name"].startswith("Guest-"))
        self.assertEqual(len(w["player"]["name"]), 12)
        self.assertGreaterEqual(len(w["token"]), 22)  # >= 128 bits
        self.assertEqual(w["games"], [])
        named = self.client(name="alice")
        self.assertEqual(named.player["name"], "alice")
        self.assertNotEqual(named.pid, w["player"]["id"])

    def test_seek_pairs_and_moves(self):
        a, b = self.client(), self.client()
        s = a.request({"t": "seek", "clock": FISCHER_5_0, "color": "white"},
                      "seeking")
        self.assertTrue(s["seek"])
        b.send({"t": "seek", "clock": FISCHER_5_0, "color": "random"})
        b.expect("seeking")
        ga = a.expect("game_start")
        gb = b.expect("game_start")
        self.assertEqual(ga["game"], gb["game"])
        self.assertEqual(ga["you"], "white")
        self.assertEqual(gb["you"], "black")
        self.assertEqual(ga["white"]["id"], a.pid)
        self.assertEqual(ga["clock"], FISCHER_5_0)
        gid = ga["game"]
        st = a.expect("state", game=gid)
        self.assertEqual(st["status"], "started")
        self.assertEqual(st["ply"], 0)
        self.assertEqual(len(st["legal"]), 20)
        self.assertEqual(st["legal"], sorted(st["legal"]))
        self.assertEqual(st["first_move_ms"] > 0, True)
        self.assertIsNone(st["clocks"]["running"])
        b.expect("state", game=gid)
        a.move(gid, "e2e4", 0)
        for c in (a, b):
            m = c.expect("moved", game=gid)
            self.assertEqual(m["ply"], 1)
            self.assertEqual(m["san"], "e4")
            self.assertNotIn("id", m)
            self.assertIsNone(m["clocks"]["running"])
            self.assertIn("e7e5", m["legal"])
        b.move(gid, "e7e5", 1)
        m = a.expect("moved", game=gid, ply=2)
        self.assertEqual(m["clocks"]["running"], "white")
        self.assertIsNone(m["first_move_ms"])


class LobbyTest(ServerTest):
    def test_seek_replace_cancel_and_compatibility(self):
        blitz = {"type": "fischer", "initial_s": 180, "increment_s": 2}
        a, b, c = self.client(), self.client(), self.client()
        a.request({"t": "seek", "clock": blitz, "color": "white"}, "seeking")
        # same colour: no pairing; different clock: no pairing
        b.request({"t": "seek", "clock": blitz, "color": "white"}, "seeking")
        c.request({"t": "seek", "clock": FISCHER_5_0, "color": "black"},
                  "seeking")
        # a replaces its seek with one that fits c
        a.request({"t": "seek", "clock": FISCHER_5_0, "color": "random"},
                  "seeking")
        g = a.expect("game_start")
        self.assertEqual(g["you"], "white")  # c wanted black
        self.assertEqual(c.expect("game_start")["game"], g["game"])
        b.request({"t": "cancel_seek"}, "seek_cancelled")
        b.send({"t": "cancel_seek"})
        b.expect_error("no_seek")
        b.quiet(0.2)

    def test_own_seeks_never_pair(self):
        a = self.client()
        a2 = Client(self.server, token=a.token)
        self.clients.append(a2)
        a.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        a2.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        a.quiet(0.2)

    @one_node

    def test_seek_dies_with_its_connection(self):
        a, b = self.client(), self.client()
        a.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")

        def connections():
            return self.server.http_json("/healthz")[1]["connections"]
        before = connections()
        a.close()
        # a's close processed (b's ping could overtake it: another socket)
        wait_until(lambda: connections() < before, "a's close")
        b.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        b.quiet(0.3)

    def test_oldest_compatible_pairs_first(self):
        a, b, c = self.client(), self.client(), self.client()
        a.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        b.request({"t": "seek", "clock": FISCHER_5_0, "color": "black"},
                  "seeking")
        b.expect("game_start")  # b pairs with a, the oldest
        c.request({"t": "seek", "clock": FISCHER_5_0}, "seeking")
        ga = a.expect("game_start")
        self.assertEqual(ga["black"]["id"], b.pid)
        c.quiet(0.2)

    def test_invite_with_fen_and_colors(self):
        a, b = self.client(), self.client()
        fen = "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"
        gid = a.request({"t": "invite", "clock": FISCHER_5_0,
                         "color": "black", "fen": fen}, "invited")["game"]
        st = a.request({"t": "sync", "game": gid}, "state")
        self.assertEqual(st["white"], None)
        self.assertEqual(st["black"]["id"], a.pid)
        self.assertEqual(st["initial_fen"],
                         "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1")
        self.assertEqual(st["ply"], 0)
        self.assertEqual(st["to_move"], "black")
        b.send({"t": "join", "game": gid})
        gs = b.expect("game_start", game=gid)
        self.assertEqual(gs["you"], "white")
        st = a.expect("state", game=gid)
        self.assertEqual(len(st["legal"]), 5)  # the black king's moves
        a.move(gid, "e8d7", 0)
        self.assertEqual(b.expect("moved", game=gid)["ply"], 1)
        welcome_games = Client(self.server, token=a.token).games
        self.assertEqual(welcome_games, [gid])

    def test_welcome_lists_live_games_oldest_first(self):
        a = self.client()
        g1 = a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        g2 = a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        g3 = a.request({"t": "invite", "clock": FISCHER_5_0}, "invited")
        a.send({"t": "abort", "game": g2["game"]})
        a.expect("game_end", game=g2["game"])
        a2 = Client(self.server, token=a.token)
        self.clients.append(a2)
        self.assertEqual(a2.games, [g1["game"], g3["game"]])
