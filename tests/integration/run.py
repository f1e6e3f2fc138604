"""Runs one integration test module: run.py [--postgres | --cluster N
[--redis-shards K]] SERVER_BINARY MODULE. With --postgres, a PostgreSQL 15 (and a Redis) of
tests/cluster/fixture.py run for the module and every server the harness
starts uses the PostgreSQL (CHESS_TEST_POSTGRES: harness.py; Redis is
CHESS_TEST_REDIS, a node's settings for it as JSON, for --check-config).
With --cluster N, the same, and
every server is a cluster of N nodes with a Redis of its own
(CHESS_TEST_CLUSTER: harness.ClusterServer), or K Redis instances its
games spread over (CHESS_TEST_REDIS_SHARDS)."""
import json
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
args = sys.argv[1:]
postgres = args[:1] in (["--postgres"], ["--cluster"])
if args[:1] == ["--cluster"]:
    os.environ["CHESS_TEST_CLUSTER"] = args[1]
    args = args[2:]
    if args[:1] == ["--redis-shards"]:
        os.environ["CHESS_TEST_REDIS_SHARDS"] = args[1]
        args = args[2:]
elif postgres:
    args = args[1:]
os.environ["CHESS_SERVER"] = os.path.abspath(args[0])


def run():
    suite = unittest.defaultTestLoader.loadTestsFromName(args[1])
    return unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()


if postgres:
    sys.path.insert(0, os.path.join(here, "..", "cluster"))
    from fixture import Servers  # noqa: E402
    with Servers(redis=True, postgres=True) as s:
        # before the harness is imported: it reads them once
        os.environ["CHESS_TEST_POSTGRES"] = s.dsn
        os.environ["CHESS_TEST_PSQL"] = os.path.join(s.bindir, "psql")
        os.environ["CHESS_TEST_REDIS"] = json.dumps(
            s.redis.node_settings())
        ok = run()
else:
    ok = run()
sys.exit(0 if ok else 1)
