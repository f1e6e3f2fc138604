#!/usr/bin/env python3
"""The floor plan's include rules (ARCHITECTURE.md, "The layers").

Reads the two tables between the markers `<!-- includes:folders -->` and
`<!-- includes:libraries -->` ... `<!-- includes:end -->` of
ARCHITECTURE.md, then every #include of every .c and .h file under
common/ and server/, and fails, naming file, line and rule, on:

- a quoted include of another server folder that its folder's row does
  not name (a folder may always include itself and common/);
- a quoted include without a folder that is not a header of common/;
- a library header (<...>) or a generated header included outside the
  folders or files its row names;
- a folder on disk without a row, or a row without its folder.

Usage: includes.py [SOURCE_ROOT]  (default: the tree this script is in)
       includes.py --self-test SOURCE_ROOT  (a forbidden include must fail)
"""
import os
import re
import sys

FOLDERS_MARK = "<!-- includes:folders -->"
LIBS_MARK = "<!-- includes:libraries -->"
END_MARK = "<!-- includes:end -->"
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]')


def table(text, mark):
    """The rows of the markdown table after mark: [(key, [values])]."""
    start = text.index(mark) + len(mark)
    end = text.index(END_MARK, start)
    rows = []
    for line in text[start:end].splitlines():
        line = line.strip()
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        key = cells[0].strip("`")
        vals = [v.strip().strip("`") for v in cells[1].split(",")
                if v.strip()] if len(cells) > 1 else []
        if key in ("folder", "header"):
            continue  # the header row
        rows.append((key, vals))
    return rows


def load_rules(root):
    with open(os.path.join(root, "ARCHITECTURE.md")) as f:
        text = f.read()
    folders = {k: v for k, v in table(text, FOLDERS_MARK)}
    libs = table(text, LIBS_MARK)
    return folders, libs


def sources(root):
    for top in ("common", "server"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), root)


def folder_of(path, folders):
    """The deepest folder of the table that holds path ("common" for
    everything under common/)."""
    d = os.path.dirname(path)
    if d == "common" or d.startswith("common/"):
        return "common"
    while d and d not in folders:
        d = os.path.dirname(d)
    return d


def common_headers(root):
    names = set()
    for d, _, files in os.walk(os.path.join(root, "common")):
        names.update(f for f in files if f.endswith(".h"))
    return names


def allowed_quoted(inc, own, folders):
    """True when a file of folder own may include "inc" (with a '/')."""
    target = os.path.dirname(inc)  # "hub", "store/sqlite", "game"
    own_short = own[len("server/"):] if own.startswith("server/") else own
    if target == own_short:
        return True
    for rule in folders.get(own, []):
        if rule == inc or rule == target:
            return True
    return False


def lib_rule(inc, libs):
    """The places a library header may be included, or None (free)."""
    for key, places in libs:
        if inc == key or (key.endswith("/") and inc.startswith(key)):
            return places
    return None


def in_places(path, places):
    return any(path == p or path.startswith(p.rstrip("/") + "/")
               for p in places)


def check(root):
    folders, libs = load_rules(root)
    commons = common_headers(root)
    generated = {k for k, _ in libs if k.endswith(".h") and "/" not in k
                 and not k.startswith(("sqlite3", "libpq", "libwebsockets",
                                       "ev.", "argon2", "zlib"))}
    errors = []
    disk = {d for d in (os.path.dirname(p) for p in sources(root))
            if d.startswith("server/")}
    for d in sorted(disk):
        if folder_of(os.path.join(d, "x.c"), folders) != d and \
                not any(d.startswith(f + "/") for f in folders
                        if f != "common"):
            errors.append("%s: a folder without a row" % d)
    for f in folders:
        if not os.path.isdir(os.path.join(root, f)):
            errors.append("%s: a row without its folder" % f)
    for path in sources(root):
        own = folder_of(path, folders)
        with open(os.path.join(root, path), errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, inc = m.groups()
                where = "%s:%d: #include %s%s%s" % (
                    path, n, kind, inc, '"' if kind == '"' else ">")
                places = lib_rule(inc, libs)
                if places is not None and not in_places(path, places):
                    errors.append("%s: only in %s" % (where,
                                                      ", ".join(places)))
                    continue
                if kind == "<":
                    continue
                if "/" in inc:
                    if own == "common":
                        if os.path.dirname(inc) not in ("", "chess"):
                            errors.append("%s: common/ includes no "
                                          "server/ folder" % where)
                    elif not allowed_quoted(inc, own, folders):
                        errors.append("%s: %s may not include %s/" % (
                            where, own, os.path.dirname(inc)))
                elif inc not in commons and inc not in generated:
                    errors.append("%s: not a header of common/ (a server "
                                  "header is included by its folder)"
                                  % where)
    return errors


# Forbidden includes planted one at a time into a copy of the tree, and
# the words of the rule each must break.
PLANTED = [
    ("server/hub/hub.c", '#include "net/net.h"', "server/hub may not include net/"),
    ("server/hub/hub.c", '#include "cluster/cluster.h"',
     "server/hub may not include cluster/"),
    ("server/game/game.c", '#include "store/store.h"',
     "server/game may not include store/"),
    ("server/lib/table.c", '#include "game/game.h"',
     "server/lib may not include game/"),
    ("server/store/store.c", "#include <sqlite3.h>", "only in"),
    ("server/cluster/host.c", "#include <hiredis/hiredis.h>", "only in"),
    ("server/net/net.c", '#include "app/config.h"',
     "server/net may not include app/"),
    ("common/proto.c", '#include "hub/hub.h"', "common/ includes no"),
]


def self_test(root):
    """Every planted include must fail, and the tree without them pass."""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp()
    failed = 0
    try:
        for top in ("common", "server"):
            shutil.copytree(os.path.join(root, top), os.path.join(tmp, top),
                            ignore=shutil.ignore_patterns("node_modules"))
        shutil.copy(os.path.join(root, "ARCHITECTURE.md"), tmp)
        if check(tmp):
            print("includes: the tree fails before any planted include")
            return 1
        for path, line, words in PLANTED:
            p = os.path.join(tmp, path)
            with open(p) as f:
                keep = f.read()
            with open(p, "a") as f:
                f.write("\n" + line + "\n")
            errors = check(tmp)
            with open(p, "w") as f:
                f.write(keep)
            if any(path in e and words in e for e in errors):
                print("includes: refused, as it must be: %s in %s"
                      % (line, path))
            else:
                print("includes: NOT refused: %s in %s (%r)"
                      % (line, path, errors))
                failed += 1
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp)


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test(argv[2])
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    errors = check(root)
    for e in errors:
        print(e)
    if errors:
        print("includes: %d includes the floor plan forbids "
              "(ARCHITECTURE.md, \"The layers\")" % len(errors))
        return 1
    print("includes: every include follows ARCHITECTURE.md's tables")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
