"""Identity, lobby pairing and the first moves."""
from harness import FISCHER_5_0, ServerTest


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
