"""Bot accounts (PROTOCOL.md, "Bot accounts"), spoken in raw HTTP/1.1
from lichess's documentation as lichess-bot calls it: an account with no
game upgrades itself with POST /api/bot/account/upgrade and is then
"title":"BOT" in GET /api/account (what lichess-bot checks before it
plays), /api/user/{name} and /api/users/status; an account that played
cannot; the scope bot:play is needed. Then the bot is marked in
challenges and games (ChallengeJson's title, gameFull's, PLAYER's bot),
listed by /api/bot/online, starts no game from a page (bot_api_only),
plays no rated game with a human unless bot_rated_vs_humans, and is held
to bot_max_games at once and bot_games_per_day against bots."""
import json

from harness import CLUSTER, FreshServerTest, wait_until
from test_botapi import Stream
import test_lichessapi
from test_lichessapi import call, raw

UPGRADE = "/api/bot/account/upgrade"


class BotAccountTest(FreshServerTest):
    CONFIG = {"http_rate_per_s": 1000, "http_burst": 1000}

    def account(self, srv, username, scopes=("challenge:write",)):
        """A registered page of username's and a token of its."""
        return test_lichessapi.LichessApiTest.account(self, srv, username,
                                                      scopes)

    def test_upgrade_marks_the_account_bot_everywhere(self):
        srv = self.server(config=self.CONFIG)
        a = self.account(srv, "Robo_One", scopes=("bot:play",))
        status, me = call(srv, "GET", "/api/account", a.api)
        self.assertEqual(status, 200)
        self.assertNotIn("title", me)
        self.assertEqual(call(srv, "GET", UPGRADE, a.api)[0], 405)
        self.assertEqual(call(srv, "POST", UPGRADE, a.api),
                         (200, {"ok": True}))
        # (the flag is the account's row: seen once written, at once)
        wait_until(lambda: call(srv, "GET", "/api/account",
                                a.api)[1].get("title") == "BOT",
                   "the title BOT in /api/account")
        self.assertEqual(call(srv, "GET", "/api/user/robo_one")[1]["title"],
                         "BOT")
        status, users = call(srv, "GET",
                             "/api/users/status?ids=robo_one")
        self.assertEqual((status, users[0]["title"]), (200, "BOT"))
        # again: it is one already, nothing changes
        self.assertEqual(call(srv, "POST", UPGRADE, a.api),
                         (200, {"ok": True}))

    def test_upgrade_needs_the_scope_and_no_game(self):
        srv = self.server(config=self.CONFIG)
        a = self.account(srv, "Human_One")  # challenge:write only
        self.assertEqual(call(srv, "POST", UPGRADE, a.api),
                         (403, {"error": "Missing scope"}))
        self.assertEqual(call(srv, "POST", UPGRADE, "lip_" + "x" * 20)[0],
                         401)
        # an account with a game (here a live one) may not
        b = self.account(srv, "Human_Two", scopes=("bot:play",))
        c = self.account(srv, "Human_Three")
        gid = b.request({"t": "invite", "color": "white",
                         "clock": {"type": "fischer", "initial_s": 180,
                                   "increment_s": 2}}, "invited")["game"]
        c.send({"t": "join", "game": gid})
        b.expect("game_start", game=gid, timeout=10)
        status, body = call(srv, "POST", UPGRADE, b.api)
        self.assertEqual(status, 400)
        self.assertIn("played games", body["error"])
        self.assertNotIn("title", call(srv, "GET", "/api/account",
                                       b.api)[1])

    def test_bot_is_marked_in_challenges_and_games(self):
        srv = self.server(config=self.CONFIG)
        bot = self.account(srv, "Robo_Two", scopes=("bot:play",))
        human = self.account(srv, "Human_Four")
        self.assertEqual(call(srv, "POST", UPGRADE, bot.api),
                         (200, {"ok": True}))
        wait_until(lambda: call(srv, "GET", "/api/account",
                                bot.api)[1].get("title") == "BOT",
                   "the upgrade written")
        events = Stream(srv.port, "/api/stream/event", bot.api)
        form = {"clock.limit": "180", "clock.increment": "2",
                "color": "white", "rated": "false"}
        status, ch = call(srv, "POST", "/api/challenge/human_four", bot.api,
                          form)
        self.assertEqual(status, 200, ch)
        # lichess's ChallengeJson: the bot's title, none for a human
        self.assertEqual(ch["challenger"]["title"], "BOT")
        self.assertNotIn("title", ch["destUser"])
        self.assertEqual(events.until("challenge")["challenge"]
                         ["challenger"]["title"], "BOT")
        # the page's challenge and game: PLAYER's "bot"
        got = human.expect("challenge")["challenge"]
        self.assertIs(got["challenger"].get("bot"), True)
        self.assertNotIn("bot", got["dest"])
        human.send({"t": "challenge_accept", "challenge": ch["id"]})
        start = human.expect("game_start", game=ch["id"], timeout=10)
        self.assertIs(start["white"].get("bot"), True)
        self.assertNotIn("bot", start["black"])
        game = Stream(srv.port, "/api/bot/game/stream/" + ch["id"], bot.api)
        full = game.line()
        self.assertEqual(full["type"], "gameFull")
        self.assertEqual(full["white"]["title"], "BOT")
        self.assertIsNone(full["black"]["title"])
        for s in (events, game):
            s.close()

    def test_bot_online_lists_the_bots_connected(self):
        """GET /api/bot/online: the bot accounts with a page or stream
        open, each lichess's User; in a cluster (its pages on other
        nodes) the store's bots asked of every node."""
        srv = self.server(config=self.CONFIG)
        bots = [self.account(srv, "Robo_%d" % i, scopes=("bot:play",))
                for i in range(3)]
        self.account(srv, "Human_Five")  # online, not a bot: not listed
        for b in bots:
            self.assertEqual(call(srv, "POST", UPGRADE, b.api)[0], 200)

        def online(query=""):
            status, kind, body = raw(srv, "GET", "/api/bot/online" + query)
            self.assertEqual((status, kind), (200, "application/x-ndjson"))
            return [json.loads(x) for x in body.decode().splitlines()]
        wait_until(lambda: len(online()) == 3, "three bots online")
        users = online()
        self.assertEqual(sorted(u["username"] for u in users),
                         ["Robo_0", "Robo_1", "Robo_2"])
        for u in users:
            self.assertEqual((u["id"], u["title"], u["online"], u["perfs"]),
                             (u["username"].lower(), "BOT", True, {}))
        self.assertEqual(len(online("?nb=2")), 2)
        self.assertEqual(call(srv, "GET", "/api/bot/online?nb=0")[0], 400)
        self.assertEqual(call(srv, "POST", "/api/bot/online")[0], 405)
        # a bot that leaves is no longer listed
        bots[0].close()
        wait_until(lambda: len(online()) == 2, "a bot gone")

    def test_bot_online_in_a_cluster_reads_the_ratings(self):
        """In a cluster GET /api/bot/online gives each bot's perfs from
        the store, through a node where the bot has no connection: two
        bots play a rated game on the first node, the third lists
        both with their blitz rating."""
        if not CLUSTER:
            self.skipTest("a cluster's nodes")
        srv = self.server(config=self.CONFIG)
        n1, n3 = srv.nodes[0], srv.nodes[2]
        a = self.account(srv, "Robo_Ra", scopes=("bot:play",))
        b = self.account(srv, "Robo_Rb", scopes=("bot:play",))
        for x in (a, b):
            self.assertEqual(call(n1, "POST", UPGRADE, x.api)[0], 200)
        form = {"clock.limit": "180", "clock.increment": "2",
                "color": "white", "rated": "true"}
        status, ch = call(n1, "POST", "/api/challenge/robo_rb", a.api, form)
        self.assertEqual(status, 200, ch)
        self.assertEqual(call(n1, "POST", "/api/challenge/%s/accept"
                              % ch["id"], b.api), (200, {"ok": True}))
        gid = ch["id"]
        for x, uci in ((a, "e2e4"), (b, "e7e5")):
            self.assertEqual(call(n1, "POST", "/api/bot/game/%s/move/%s"
                                  % (gid, uci), x.api), (200, {"ok": True}))
        self.assertEqual(call(n1, "POST", "/api/bot/game/%s/resign" % gid,
                              b.api), (200, {"ok": True}))

        def perfs():
            status, _, body = raw(n3, "GET", "/api/bot/online")
            self.assertEqual(status, 200)
            return {u["username"]: u["perfs"] for u in
                    map(json.loads, body.decode().splitlines())}
        wait_until(lambda: all(p.get("blitz", {}).get("games") == 1
                               for p in perfs().values())
                   and len(perfs()) == 2, "both rated in blitz")
        got = perfs()
        self.assertGreater(got["Robo_Ra"]["blitz"]["rating"],
                           got["Robo_Rb"]["blitz"]["rating"])
        self.assertEqual(set(got["Robo_Ra"]["blitz"]),
                         {"games", "rating", "rd", "prog", "prov"})

    def test_a_bot_starts_no_game_from_a_page(self):
        srv = self.server(config=self.CONFIG)
        bot = self.account(srv, "Robo_Page", scopes=("bot:play",))
        human = self.account(srv, "Human_Six")
        self.assertEqual(call(srv, "POST", UPGRADE, bot.api)[0], 200)
        clock = {"type": "fischer", "initial_s": 180, "increment_s": 2}
        for msg in ({"t": "seek", "clock": clock},
                    {"t": "invite", "clock": clock, "color": "white"},
                    {"t": "computer", "level": 1, "clock": clock,
                     "color": "white"},
                    {"t": "challenge", "to": "Human_Six", "clock": clock,
                     "color": "white"}):
            bot.send(dict(msg, id=7))
            err = bot.expect_error("bot_api_only")
            self.assertEqual(err.get("id"), 7, msg)
        # a human may challenge the bot; the bot answers through the API
        human.send({"t": "challenge", "to": "Robo_Page", "clock": clock,
                    "color": "black"})
        ch = human.expect("challenge")["challenge"]
        bot.send({"t": "challenge_accept", "challenge": ch["id"], "id": 8})
        self.assertEqual(bot.expect_error("bot_api_only").get("id"), 8)
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/accept"
                              % ch["id"], bot.api), (200, {"ok": True}))
        self.assertEqual(human.expect("game_start", game=ch["id"],
                                      timeout=10)["black"]["name"],
                         "Human_Six")

    def rated_challenge(self, srv, config):
        bot = self.account(srv, "Robo_Rated", scopes=("bot:play",))
        human = self.account(srv, "Human_Rated")
        self.assertEqual(call(srv, "POST", UPGRADE, bot.api)[0], 200)
        wait_until(lambda: call(srv, "GET", "/api/account",
                                bot.api)[1].get("title") == "BOT",
                   "the upgrade written")
        form = {"clock.limit": "180", "clock.increment": "2",
                "rated": "true"}
        return bot, human, call(srv, "POST", "/api/challenge/human_rated",
                                bot.api, form)

    def test_no_rated_game_between_a_bot_and_a_human_by_default(self):
        srv = self.server(config=self.CONFIG)
        bot, human, (status, body) = self.rated_challenge(srv, self.CONFIG)
        self.assertEqual(status, 400, body)
        self.assertIn("rated games between a bot and a human", body["error"])
        human.send({"t": "challenge", "to": "Robo_Rated", "rated": True,
                    "clock": {"type": "fischer", "initial_s": 180,
                              "increment_s": 2}, "id": 3})
        self.assertEqual(human.expect_error("bot_rated").get("id"), 3)
        # casual is played
        self.assertEqual(call(srv, "POST", "/api/challenge/human_rated",
                              bot.api, {"clock.limit": "180",
                                        "clock.increment": "2",
                                        "rated": "false"})[0], 200)

    def test_bot_rated_vs_humans_allows_them(self):
        config = dict(self.CONFIG, bot_rated_vs_humans=1)
        srv = self.server(config=config)
        _, _, (status, body) = self.rated_challenge(srv, config)
        self.assertEqual(status, 200, body)
        self.assertIs(body["rated"], True)

    def bot(self, srv, name):
        b = self.account(srv, name, scopes=("bot:play",))
        self.assertEqual(call(srv, "POST", UPGRADE, b.api)[0], 200)
        wait_until(lambda: call(srv, "GET", "/api/account",
                                b.api)[1].get("title") == "BOT",
                   "the upgrade written")
        return b

    CASUAL = {"clock.limit": "180", "clock.increment": "2",
              "rated": "false"}

    def test_bot_max_games_caps_a_bots_games_at_once(self):
        srv = self.server(config=dict(self.CONFIG, bot_max_games=1))
        bot = self.bot(srv, "Robo_Busy")
        h1 = self.account(srv, "Human_A")
        h2 = self.account(srv, "Human_B")
        status, ch = call(srv, "POST", "/api/challenge/human_a", bot.api,
                          self.CASUAL)
        self.assertEqual(status, 200, ch)
        h1.send({"t": "challenge_accept", "challenge": ch["id"]})
        h1.expect("game_start", game=ch["id"], timeout=10)
        status, body = call(srv, "POST", "/api/challenge/human_b", bot.api,
                            self.CASUAL)
        self.assertEqual(status, 400, body)
        self.assertIn("the most a bot plays at once", body["error"])
        h2.send({"t": "challenge", "to": "Robo_Busy", "id": 4,
                 "clock": {"type": "fischer", "initial_s": 180,
                           "increment_s": 2}})
        self.assertEqual(h2.expect_error("too_many_games").get("id"), 4)

    def test_bot_games_per_day_caps_games_between_bots(self):
        srv = self.server(config=dict(self.CONFIG, bot_games_per_day=1))
        a, b = self.bot(srv, "Robo_A"), self.bot(srv, "Robo_B")
        status, ch = call(srv, "POST", "/api/challenge/robo_b", a.api,
                          self.CASUAL)
        self.assertEqual(status, 200, ch)
        self.assertEqual(call(srv, "POST", "/api/challenge/%s/accept"
                              % ch["id"], b.api), (200, {"ok": True}))
        status, body = call(srv, "POST", "/api/challenge/robo_b", a.api,
                            self.CASUAL)
        self.assertEqual(status, 400, body)
        self.assertIn("against bots a day", body["error"])
        # a human is no bot's day
        self.account(srv, "Human_C")
        self.assertEqual(call(srv, "POST", "/api/challenge/human_c", a.api,
                              self.CASUAL)[0], 200)
