"""The HTTP API: a game as JSON, its PGN, a player's finished games
(newest first, paged), /healthz, /metrics and the client pages."""
import re

from harness import ServerTest


class HttpTest(ServerTest):
    def finished_game(self, moves="f2f3 e7e5 g2g4 d8h4"):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, moves)
        b.expect("game_end", game=gid)
        return w, b, gid

    def test_game_json_live_and_finished(self):
        w, b, gid = self.invite_game()
        self.play(w, b, gid, "e2e4")
        status, g = self.server.http_json("/api/games/" + gid)
        self.assertEqual(status, 200)
        self.assertNotIn("t", g)
        self.assertEqual(g["game"], gid)
        self.assertEqual(g["moves"], ["e2e4"])
        self.assertEqual(g["status"], "started")
        self.assertIsInstance(g["created_ms"], int)
        self.assertIsInstance(g["started_ms"], int)
        self.assertIsNone(g["ended_ms"])
        w2, b2, gid2 = self.finished_game()
        status, g = self.server.http_json("/api/games/" + gid2)
        self.assertEqual(g["result"], "0-1")
        self.assertEqual(g["reason"], "checkmate")
        self.assertIsInstance(g["ended_ms"], int)
        status, g = self.server.http_json("/api/games/nosuchgame")
        self.assertEqual(status, 404)
        self.assertEqual(g, {"error": "no_such_game"})
        status, g = self.server.http_json("/api/games/bad%20id")
        self.assertEqual(status, 404)

    def test_pgn(self):
        w, b, gid = self.finished_game()
        status, ctype, body = self.server.http("/api/games/%s/pgn" % gid)
        self.assertEqual(status, 200)
        self.assertEqual(ctype, "application/x-chess-pgn")
        pgn = body.decode()
        self.assertIn('[Result "0-1"]', pgn)
        self.assertIn('[TimeControl "300+0"]', pgn)
        self.assertIn('[White "%s"]' % w.player["name"], pgn)
        self.assertIn("Qh4#", pgn)
        self.assertIn("%clk", pgn)
        w2, b2, gid2 = self.invite_game(fen="k7/8/8/8/8/8/8/KQ6 w - - 0 1")
        status, _, body = self.server.http("/api/games/%s/pgn" % gid2)
        self.assertEqual(status, 200)
        self.assertIn('[SetUp "1"]', body.decode())
        self.assertIn('[Result "*"]', body.decode())
        status, _, _ = self.server.http("/api/games/nosuchgame/pgn")
        self.assertEqual(status, 404)

    def test_player_games_paged(self):
        w, b = self.client(), self.client()
        gids = []
        for i in range(3):
            gid = w.request({"t": "invite", "clock": {
                "type": "per_move", "per_move_s": 30}, "color": "white"},
                "invited")["game"]
            b.send({"t": "join", "game": gid})
            b.expect("game_start", game=gid)
            w.send({"t": "resign", "game": gid})
            b.expect("game_end", game=gid)
            gids.append(gid)
        # an aborted game is not listed
        gid = w.request({"t": "invite", "clock": {
            "type": "per_move", "per_move_s": 30}}, "invited")["game"]
        w.send({"t": "abort", "game": gid})
        w.expect("game_end", game=gid)
        path = "/api/players/%s/games" % b.pid
        status, page = self.server.http_json(path + "?limit=2")
        self.assertEqual(status, 200)
        got = [g["game"] for g in page["games"]]
        self.assertEqual(len(got), 2)
        self.assertEqual(page["next"], got[-1])
        g0 = page["games"][0]
        self.assertEqual(g0["black"]["id"], b.pid)
        self.assertEqual(g0["result"], "0-1")
        self.assertEqual(g0["reason"], "resignation")
        self.assertEqual(g0["clock"], {"type": "per_move", "per_move_s": 30})
        status, page2 = self.server.http_json(
            path + "?limit=2&before=" + page["next"])
        got += [g["game"] for g in page2["games"]]
        self.assertIsNone(page2["next"])
        self.assertEqual(sorted(got), sorted(gids))
        self.assertEqual(len(set(got)), 3)
        status, _ = self.server.http_json(path + "?limit=101")
        self.assertEqual(status, 400)
        status, _ = self.server.http_json(path + "?limit=0")
        self.assertEqual(status, 400)
        status, page = self.server.http_json("/api/players/nobody/games")
        self.assertEqual((status, page["games"], page["next"]),
                         (200, [], None))

    def test_healthz_and_metrics(self):
        status, body = self.server.http_json("/healthz")
        self.assertEqual(status, 200)
        self.assertEqual(body["status"], "ok")
        self.finished_game()
        c = self.client(hello=False)
        c.send({"t": "seek"})
        c.expect_error("unauthenticated")
        status, ctype, body = self.server.http("/metrics")
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/plain"))
        text = body.decode()

        def value(name):
            m = re.search("^%s (\\S+)$" % re.escape(name), text, re.M)
            self.assertIsNotNone(m, name)
            return float(m.group(1))
        self.assertGreaterEqual(value("chess_connections"), 1)
        self.assertGreaterEqual(value("chess_moves_total"), 4)
        self.assertGreaterEqual(
            value('chess_games_finished_total{reason="checkmate"}'), 1)
        self.assertGreaterEqual(
            value('chess_messages_rejected_total{code="unauthenticated"}'),
            1)
        self.assertGreaterEqual(value("chess_move_seconds_count"), 4)
        self.assertEqual(value('chess_move_seconds_bucket{le="+Inf"}'),
                         value("chess_move_seconds_count"))
        value("chess_live_games")
        value("chess_store_queue_depth")
        value("chess_out_queue_bytes")

    def test_pages(self):
        status, ctype, body = self.server.http("/")
        self.assertEqual(status, 200)
        self.assertIn(b"chess test page", body)
        status, ctype, body = self.server.http("/g/someGameId")
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/html"))
        self.assertIn(b"chess test page", body)
        status, _, _ = self.server.http("/nope.html")
        self.assertEqual(status, 404)
        status, _ = self.server.http_json("/api/unknown")
        self.assertEqual(status, 404)
