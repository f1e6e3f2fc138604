#!/usr/bin/env python3
"""rating_farm.py - what a puppet account is worth to a rating farmer
(issue 25, item 3):

    python3 tests/bench/rating_farm.py BUILD_DIR [GAMES]

Starts a fresh chess-server, registers two accounts (farmer, puppet) and
plays GAMES (default 300) rated 1+0 games between them, as fast as the
server answers: the farmer invites as white, the puppet joins, each side
plays one move (a resignation before both moved no longer counts) and
the puppet resigns. Prints how many games were rated, the farmer's
bullet rating and its deviation at the end, and the time taken. The
message rate limits are raised so that they are not what is measured."""
import time

import benchlib

PASSWORD = "correct horse"
BULLET = {"type": "fischer", "initial_s": 60, "increment_s": 0}


def account(harness, srv, username):
    c = harness.Client(srv)
    c.request({"t": "register", "username": username,
               "password": PASSWORD}, "registered")
    return c


def game(farmer, puppet):
    """One game; True when it was rated."""
    gid = farmer.request({"t": "invite", "clock": BULLET, "color": "white",
                          "rated": True}, "invited")["game"]
    puppet.send({"t": "join", "game": gid})
    start = farmer.expect("game_start", game=gid)
    farmer.move(gid, "e2e4", 0)
    puppet.expect("moved", game=gid, ply=1)
    puppet.move(gid, "e7e5", 1)
    farmer.expect("moved", game=gid, ply=2)
    puppet.send({"t": "resign", "game": gid})
    for c in (farmer, puppet):
        c.expect("game_end", game=gid)
    farmer.backlog.clear()
    puppet.backlog.clear()
    return start.get("rated", False)


def run(folder, harness, games):
    srv = benchlib.server(harness, folder, {
        "msg_rate_per_s": 100000, "msg_burst": 100000,
        "move_rate_per_s": 100000, "move_burst": 100000})
    try:
        farmer = account(harness, srv, "farmer")
        puppet = account(harness, srv, "puppet")
        start, rated = time.monotonic(), 0
        for _ in range(games):
            rated += game(farmer, puppet)
        took = time.monotonic() - start
        prof = srv.http_json("/api/players/%s" % farmer.pid)[1]
        bullet = prof["ratings"].get("bullet", {})
        print("games=%d rated=%d farmer_bullet=%s farmer_rd=%s seconds=%.1f"
              % (games, rated, bullet.get("rating"), bullet.get("rd"), took))
        harness.close_all([farmer, puppet])
    finally:
        srv.stop()


def main():
    games, = benchlib.args(__doc__, 300)
    import harness
    benchlib.in_folder("chess-farm-", run, harness, games)


if __name__ == "__main__":
    main()
