#!/usr/bin/env python3
"""The log's lines (docs/operator.md, "Logs"): one line per event,
key=value, and every event documented.

Reads every log call of server/ (log_error, log_warn, log_info,
log_debug, log_write, and log.c's own write_always) with its format
string, the C literals joined, and fails, naming file and line, on:

- a format that does not begin with `event=NAME`;
- a word of it, outside a double-quoted value, that is not key=value
  (`node=%s: another incarnation ...` was one);
- an event no guide names: each must appear in docs/operator.md or
  docs/cluster.md as `NAME`, `NAME key=...` or event=NAME, or fall
  under a documented `PREFIX_*`. An
  event spelled with a %s (`cluster_redis_%s`) needs a documented name
  that begins as it does.

Usage: logs.py [SOURCE_ROOT]  (default: the tree this script is in)
       logs.py --self-test SOURCE_ROOT  (planted faults must fail)
"""
import os
import re
import sys

CALL = re.compile(r'\b(log_error|log_warn|log_info|log_debug|log_write|'
                  r'write_always)\s*\(')
LITERAL = re.compile(r'\s*"((?:[^"\\]|\\.)*)"')
KEY = re.compile(r'^[a-z_][a-z0-9_]*=')
DOC_NAME = re.compile(r'`([a-z][a-z0-9_]*(?:_\*)?)[` ]|'
                      r'event=([a-z][a-z0-9_]*)')


def formats(path, text):
    """[(line, format)] of the log calls in a C file's text."""
    out = []
    for m in CALL.finditer(text):
        pos = m.end()
        if m.group(1) in ("log_write", "write_always"):
            comma = text.find(",", pos)  # (the level first)
            if comma < 0:
                continue
            pos = comma + 1
        parts = []
        while True:
            lit = LITERAL.match(text, pos)
            if not lit:
                break
            parts.append(lit.group(1))
            pos = lit.end()
        if not parts:
            continue  # (a declaration, or a format passed through)
        line = text.count("\n", 0, m.start()) + 1
        out.append((line, "".join(parts)))
    return out


def words(fmt):
    """The space-separated words of fmt outside escaped double quotes."""
    out, cur, quoted, i = [], "", False, 0
    while i < len(fmt):
        c = fmt[i]
        if fmt.startswith('\\"', i):
            quoted = not quoted
            cur += '"'
            i += 2
            continue
        if c == " " and not quoted:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        out.append(cur)
    return out


def documented(root):
    """(names, prefixes) the guides give events: `name`, `prefix_*`."""
    names, prefixes = set(), set()
    for doc in ("operator.md", "cluster.md"):
        with open(os.path.join(root, "docs", doc), encoding="utf-8") as f:
            for a, b in DOC_NAME.findall(f.read()):
                n = a or b
                if n.endswith("_*"):
                    prefixes.add(n[:-1])
                else:
                    names.add(n)
    return names, prefixes


def check(root, files=None):
    """The faults found, as strings."""
    names, prefixes = documented(root)
    faults = []
    if files is None:
        files = []
        for folder, _, found in os.walk(os.path.join(root, "server")):
            files += [os.path.join(folder, f) for f in sorted(found)
                      if f.endswith(".c")]
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(path, root)
        for line, fmt in formats(path, text):
            where = "%s:%d" % (rel, line)
            ws = words(fmt)
            m = re.match(r"event=([a-z0-9_%]+)", fmt)
            if not m:
                faults.append("%s: no event= first: %r" % (where, fmt))
                continue
            bad = [w for w in ws if not KEY.match(w)]
            if bad:  # (the first says it)
                faults.append("%s: %r is not key=value in %r"
                              % (where, bad[0], fmt))
            event = m.group(1)
            if "%" in event:
                stem = event[:event.index("%")]
                ok = any(n.startswith(stem) for n in names)
            else:
                ok = event in names or any(event.startswith(p)
                                           for p in prefixes)
            if not ok:
                faults.append("%s: event %s is in no guide (docs/"
                              "operator.md, docs/cluster.md)"
                              % (where, event))
    return faults


def self_test(root):
    """Each planted fault is found."""
    import tempfile
    cases = {
        'log_warn("event=cluster_node_id_taken node=%s: another", n);':
            "is not key=value",
        'log_info("no event here");': "no event= first",
        'log_info("event=surely_nobody_documents_this x=%d", 1);':
            "is in no guide",
        'log_error("event=lws msg=\\"a quoted value\\" ok=1 bad", 1);':
            "is not key=value",
    }
    for code, want in cases.items():
        with tempfile.NamedTemporaryFile("w", suffix=".c",
                                         delete=False) as f:
            f.write("void f(void)\n{\n    %s\n}\n" % code)
        try:
            faults = check(root, [f.name])
        finally:
            os.unlink(f.name)
        if not any(want in x for x in faults):
            print("self-test: %r not found in %s" % (want, code))
            return 1
    good = 'log_info("event=lws msg=\\"two words\\" n=%d", 1);'
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write("void f(void)\n{\n    %s\n}\n" % good)
    try:
        if check(root, [f.name]):
            print("self-test: a good line refused")
            return 1
    finally:
        os.unlink(f.name)
    print("self-test: every planted fault found")
    return 0


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test(argv[2])
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    faults = check(root)
    for x in faults:
        print(x)
    if faults:
        print("%d faults" % len(faults))
        return 1
    print("every log line key=value, every event documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
