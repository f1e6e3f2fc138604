"""The analysis board's HTTP API (PROTOCOL.md section 9, "Analysis
board"): POST /api/board/fen (a position's legal moves, their SAN and
the FEN each leads to) and POST /api/board/pgn (a PGN's first game as a
move tree): good input, a bad FEN and a bad PGN named with their problem
and line, the limits (a body over 4096 bytes, the largest answers, the
node cap, the nesting, a wrong method)."""
import http.client
import json

from harness import ServerTest

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def call(server, method, path, body=None):
    """(status, JSON body) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Content-Type": "text/plain"} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    try:
        return r.status, json.loads(data) if data else None
    except ValueError:
        return r.status, data


class BoardTest(ServerTest):
    def test_fen(self):
        status, p = call(self.server, "POST", "/api/board/fen",
                         START + "\n")
        self.assertEqual(status, 200)
        self.assertEqual(p["fen"], START)
        self.assertEqual(p["status"], "playing")
        self.assertFalse(p["check"])
        self.assertEqual(len(p["moves"]), 20)
        e4 = [m for m in p["moves"] if m["uci"] == "e2e4"][0]
        self.assertEqual(e4, {
            "uci": "e2e4", "san": "e4",
            "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR "
                   "b KQkq - 0 1"})
        # fool's mate: no moves, checkmate
        mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
        status, p = call(self.server, "POST", "/api/board/fen", mate)
        self.assertEqual((status, p["status"], p["check"], p["moves"]),
                         (200, "checkmate", True, []))

    def test_bad_fen(self):
        for body, words in (
                ("", "No FEN"),
                ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
                 "Not a FEN"),
                ("8/8/8/8/8/8/8/8 w - - 0 1", "Not a FEN"),
                ("x" * 300, "longer than any FEN"),
                (START + "\n" + START, "one line")):
            status, e = call(self.server, "POST", "/api/board/fen", body)
            self.assertEqual((status, e["error"]), (400, "bad_fen"), body)
            self.assertIn(words, e["message"])

    def test_pgn_tree(self):
        pgn = ('[White "A"]\n[Black "B"]\n\n'
               '1. e4 e5 (1... c5 2. Nf3) 2. Nf3 {a comment} Nc6 1-0\n')
        status, t = call(self.server, "POST", "/api/board/pgn", pgn)
        self.assertEqual(status, 200)
        self.assertEqual(t["start"], START)
        self.assertEqual(t["tags"]["White"], "A")
        self.assertEqual(t["result"], "1-0")
        self.assertEqual([(n["parent"], n["san"]) for n in t["nodes"]],
                         [(-1, "e4"), (0, "e5"), (0, "c5"), (2, "Nf3"),
                          (1, "Nf3"), (4, "Nc6")])
        self.assertEqual(t["nodes"][2]["uci"], "c7c5")
        self.assertEqual(
            t["nodes"][5]["fen"],
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R "
            "w KQkq - 2 3")
        # from a FEN tag
        status, t = call(self.server, "POST", "/api/board/pgn",
                         '[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/4K2R w K - 0 1"]'
                         '\n\n1. O-O *')
        self.assertEqual((status, t["nodes"][0]["san"]), (200, "O-O"))

    def test_bad_pgn(self):
        status, e = call(self.server, "POST", "/api/board/pgn",
                         '[White "A"]\n\n1. e4 e5\n2. Ke3 *\n')
        self.assertEqual((status, e["error"]), (400, "bad_pgn"))
        self.assertRegex(e["message"], r"^line 4, column 4: .*Ke3")
        status, e = call(self.server, "POST", "/api/board/pgn",
                         "1. e4 (e5 *")
        self.assertEqual((status, e["error"]), (400, "bad_pgn"))
        self.assertTrue(e["message"].startswith("line 1"), e["message"])

    def test_limits(self):
        # a body over 4096 bytes: refused before it is read
        status, _ = call(self.server, "POST", "/api/board/pgn",
                         "1. e4 " + " " * 4100)
        self.assertEqual(status, 413)
        # the largest answers: 218 legal moves; the longest PGN a body
        # holds (4,079 bytes of knight moves, 644 plies)
        status, p = call(self.server, "POST", "/api/board/fen",
                         "3Q4/1Q4Q1/4Q3/2Q4R/Q4Q2/3Q4/1Q4Rp/1K1BBNNk "
                         "w - - 0 1")
        self.assertEqual((status, len(p["moves"])), (200, 218))
        text, n = "", 1
        while len(text) + 24 < 4095:
            text += "%d. Nf3 Nf6 %d. Ng1 Ng8 " % (n, n + 1)
            n += 2
        status, t = call(self.server, "POST", "/api/board/pgn", text + "*")
        self.assertEqual((status, len(t["nodes"])), (200, 2 * (n - 1)))
        self.assertEqual(t["nodes"][-1]["fen"].split()[0], START.split()[0])
        # more moves than 1,000 in all (variations included) is refused
        # (SAN without move numbers: 4 bytes a ply; the reader merges a
        # variation that repeats a move, so each must be new)
        status, e = call(self.server, "POST", "/api/board/pgn",
                         "Nf3 Nf6 Ng1 Ng8 " * 255 + "*")
        self.assertEqual((status, e["error"]), (400, "bad_pgn"))
        status, t = call(self.server, "POST", "/api/board/pgn",
                         "Nf3 Nf6 Ng1 Ng8 " * 250 + "*")
        self.assertEqual((status, len(t["nodes"])), (200, 1000))
        # variations deeper than 16
        deep = "1. e4 e5 " + "(1... c5 " * 17 + ")" * 17 + " *"
        status, e = call(self.server, "POST", "/api/board/pgn", deep)
        self.assertEqual((status, e["error"]), (400, "bad_pgn"))
        # read only by POST
        status, e = call(self.server, "GET", "/api/board/fen")
        self.assertEqual((status, e["error"]), (405, "method_not_allowed"))
