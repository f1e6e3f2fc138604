#!/usr/bin/env python3
"""The cluster's Lua scripts touch only the keys they are passed.

Redis Cluster routes a script by its KEYS, and the nodes route theirs
to a shard by them (docs/cluster.md, "Shards"): a script that builds a
key name itself ('node:' .. n) would reach a key of another shard. For
every server/cluster/lua/*.lua this fails, naming file and line, on:

- a script that does not begin with `#!lua` (Redis 7's form, under
  which a Redis Cluster refuses a script that reaches two hash slots:
  the tests lease_cluster and seeks_cluster run them so);
- a redis.call / redis.pcall whose key is not KEYS[n] or a local bound
  to KEYS[n] (`local SEEKS, QUEUE = KEYS[1], KEYS[2]`); every argument
  of DEL is a key.

Usage: lua_keys.py [SOURCE_ROOT]
       lua_keys.py --self-test SOURCE_ROOT  (a planted key must fail)
"""
import os
import re
import sys

CALL = re.compile(r"redis\.p?call\(\s*'([A-Za-z]+)'\s*(?:,([^)]*))?\)?")
BIND = re.compile(r"^\s*local\s+([\w\s,]+?)\s*=\s*\n?\s*(KEYS\[\d+\]"
                  r"(?:\s*,\s*KEYS\[\d+\])*)", re.M)
# commands without a key
KEYLESS = {"TIME"}
# commands whose every argument is a key
ALL_KEYS = {"DEL"}


def args_of(text):
    """The top-level comma-separated arguments of text (a call's)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def check(path, text):
    """The faults of one script: [(line, words)]."""
    faults = []
    if not text.startswith("#!lua\n"):
        faults.append((1, "does not begin with #!lua"))
    bound = set()
    for m in BIND.finditer(text):
        bound.update(n.strip() for n in m.group(1).split(","))
    key_ok = re.compile(r"^KEYS\[\d+\]$")
    for m in CALL.finditer(text):
        cmd = m.group(1).upper()
        line = text.count("\n", 0, m.start()) + 1
        if cmd in KEYLESS:
            continue
        # the call's arguments, up to its closing parenthesis
        start = m.start(2) if m.group(2) is not None else m.end()
        depth, end = 1, start
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        args = args_of(text[start:end - 1])
        keys = args if cmd in ALL_KEYS else args[:1]
        if not keys:
            faults.append((line, "%s without a key" % cmd))
        for k in keys:
            if not key_ok.match(k) and k not in bound:
                faults.append((line, "%s of %s: not one of KEYS" % (cmd, k)))
    return faults


def run(root):
    folder = os.path.join(root, "server", "cluster", "lua")
    bad = 0
    names = sorted(n for n in os.listdir(folder) if n.endswith(".lua"))
    for name in names:
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            for line, words in check(path, f.read()):
                print("%s:%d: %s" % (path, line, words))
                bad += 1
    if not names:
        print("no scripts in %s" % folder)
        return 1
    return 1 if bad else 0


def self_test():
    good = ("#!lua\nlocal A, B =\n    KEYS[1], KEYS[2]\n"
            "redis.call('GET', A)\nredis.call('DEL', KEYS[1], B)\n"
            "local t = redis.call('TIME')\n")
    planted = [
        "local n = ARGV[1]\nredis.call('GET', 'node:' .. n)\n",
        "redis.call('SET', KEYS[1], 'x')\n",  # (no #!lua)
        "#!lua\nredis.call('DEL', KEYS[1], 'seek:' .. ARGV[1])\n",
        "#!lua\nredis.call('HGET', ARGV[1], 'f')\n",
    ]
    if check("good", good):
        print("self-test: a good script fails: %s" % check("good", good))
        return 1
    for text in planted:
        if not check("planted", text):
            print("self-test: not caught:\n%s" % text)
            return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test() or run(sys.argv[2]))
    sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else
                 os.path.join(os.path.dirname(__file__), "..", "..")))
