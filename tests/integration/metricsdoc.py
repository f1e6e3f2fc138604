"""The metrics docs/PROTOCOL.md documents (section 9's "Metrics:"
paragraph and the three after it), by where a server exposes them:
every server, SQLite's only, PostgreSQL's only, a cluster node's only.
test_http holds /metrics to these lists; test_monitoring holds the
alert rules and the dashboards in deploy/ to them."""
import os
import re

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "docs", "PROTOCOL.md")
PARAGRAPHS = (("all", "Metrics: "), ("sqlite", "With SQLite only: "),
              ("postgres", "With PostgreSQL only: "),
              ("cluster", "On a node of a cluster only "))


def documented():
    """{"all"|"sqlite"|"postgres"|"cluster": set of family names}."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    out = {}
    for key, start in PARAGRAPHS:
        m = re.search(r"^%s(.*?)\n\n" % re.escape(start), text, re.M | re.S)
        if not m:
            raise AssertionError("PROTOCOL.md: no paragraph %r" % start)
        out[key] = set(re.findall(r"`((?:chess|process)_[a-z_]+)",
                                  m.group(1)))
    return out


def expected(postgres, cluster):
    """The families a server of that kind exposes."""
    d = documented()
    names = d["all"] | (d["postgres"] if postgres else d["sqlite"])
    return names | d["cluster"] if cluster else names


def every():
    """Every documented family, whatever the server."""
    return set().union(*documented().values())
