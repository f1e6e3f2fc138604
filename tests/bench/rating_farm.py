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
import json
import os
import shutil
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "integration"))
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


def run(harness, folder, games):
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump({"msg_rate_per_s": 100000, "msg_burst": 100000,
                   "move_rate_per_s": 100000, "move_burst": 100000}, f)
    srv = harness.Server(datadir=folder, extra=["--config", path])
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
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    os.environ["CHESS_SERVER"] = os.path.abspath(
        os.path.join(sys.argv[1], "server", "chess-server"))
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    import harness
    folder = tempfile.mkdtemp(prefix="chess-farm-")
    try:
        run(harness, folder, games)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
