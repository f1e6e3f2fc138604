"""The monitoring files of deploy/ (docs/operator.md, "Alerts and
dashboards"): the Prometheus alert rules pass `promtool check rules`,
each alert fires in `promtool test rules` on the series of
tests/deploy/alerts.test.yml (and none on a healthy node), and the rules
and both Grafana dashboards use only metrics docs/PROTOCOL.md documents,
the dashboards all of them between them.

    python3 tests/deploy/test_monitoring.py      (PROMTOOL: promtool's path)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import metricsdoc  # noqa: E402

RULES = os.path.join(ROOT, "deploy", "prometheus-alerts.yml")
RULE_TESTS = os.path.join(HERE, "alerts.test.yml")
DASHBOARDS = [os.path.join(ROOT, "deploy", "grafana-%s.json" % n)
              for n in ("node", "cluster")]
# Prometheus's own series of a scrape, which the rules may use too.
SCRAPE = {"up"}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right",
            "bool", "and", "or", "unless", "offset", "inf", "nan"}


def promtool():
    path = os.environ.get("PROMTOOL") or shutil.which("promtool")
    if not path:
        raise AssertionError("promtool is missing: sh deploy/deps.sh test "
                             "installs it (Debian's prometheus)")
    return path


def metric_names(expr):
    """The metric names a PromQL expression reads (functions, keywords,
    label names and Grafana's variables left out)."""
    e = re.sub(r"^\s*label_values\((.*),\s*\w+\)\s*$", r"\1",
               expr)                                   # Grafana's
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', e)         # strings
    e = re.sub(r"\{[^}]*\}", "", e)                    # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)                   # ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)"
               r"\s*\([^)]*\)", "", e)                 # label lists
    e = re.sub(r"\$\w+", "", e)                        # $variables
    names = set()
    for m in re.finditer(r"(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?",
                         e):
        if m.group(2) or m.group(1) in KEYWORDS:
            continue
        names.add(m.group(1))
    return names


def family(name, documented):
    """The documented family a series name belongs to (a histogram's
    _bucket, _sum and _count are its family's), or None."""
    if name in documented or name in SCRAPE:
        return name
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and name[:-len(suffix)] in documented:
            return name[:-len(suffix)]
    return None


def rule_exprs(text):
    """Each rule's (alert, expr) of a rules file (`expr:` one line or a
    folded block)."""
    out = []
    alert = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\s*- alert: (\w+)", line)
        if m:
            alert = m.group(1)
        m = re.match(r"(\s*)expr: (.*)$", line)
        if not m:
            continue
        if m.group(2).strip() in (">", "|", ">-", "|-"):
            body, indent = [], len(m.group(1))
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                body.append(nxt.strip())
            out.append((alert, " ".join(body)))
        else:
            out.append((alert, m.group(2)))
    return out


def dashboard_exprs(board):
    """Every query of a dashboard: its panels' targets (rows' nested
    panels too) and its variables'."""
    exprs = []

    def panels(ps):
        for p in ps:
            yield p
            yield from panels(p.get("panels", []))
    for p in panels(board.get("panels", [])):
        for t in p.get("targets", []):
            exprs.append((p.get("title"), t.get("expr", "")))
    for v in board.get("templating", {}).get("list", []):
        q = v.get("query")
        if v.get("type") == "query":
            exprs.append(("$" + v["name"],
                          q.get("query") if isinstance(q, dict) else q))
    return exprs


class RulesTest(unittest.TestCase):
    def test_promtool_check_rules(self):
        r = subprocess.run([promtool(), "check", "rules", RULES],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("SUCCESS", r.stdout)

    def test_each_alert_fires_on_its_series(self):
        r = subprocess.run([promtool(), "test", "rules", RULE_TESTS],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("SUCCESS", r.stdout + r.stderr)

    def test_every_alert_has_its_test(self):
        """Each alert of the rules is tested firing (a test named after
        it, expecting it) and not firing on the healthy node."""
        with open(RULES) as f:
            alerts = re.findall(r"^\s*- alert: (\w+)", f.read(), re.M)
        with open(RULE_TESTS) as f:
            tests = f.read()
        self.assertEqual(len(alerts), len(set(alerts)), "an alert twice")
        parts = re.split(r"^  - name: ", tests, flags=re.M)[1:]
        named = {p.split("\n", 1)[0]: p for p in parts}
        for a in alerts:
            self.assertTrue(a in named, "no test of " + a)
            self.assertRegex(named[a], r"alertname: %s\n\s*exp_alerts:\n"
                             r"\s*- exp_labels:" % a)
        healthy = named.get("a healthy node of a cluster", "")
        self.assertEqual(
            sorted(re.findall(r"alertname: (\w+)\n\s*exp_alerts: \[\]",
                              healthy)), sorted(alerts))
        self.assertEqual(sorted(set(named) - set(alerts)),
                         ["a healthy node of a cluster"])

    def test_rules_read_documented_metrics(self):
        documented = metricsdoc.every()
        with open(RULES) as f:
            rules = rule_exprs(f.read())
        self.assertGreater(len(rules), 20)
        for alert, expr in rules:
            names = metric_names(expr)
            self.assertTrue(names, alert)
            for n in names:
                self.assertIsNotNone(family(n, documented),
                                     "%s: %s is not documented" % (alert, n))

    def test_the_parser_finds_names(self):
        """(metric_names itself: what it keeps and what it leaves.)"""
        self.assertEqual(metric_names(
            'histogram_quantile(0.99, sum by (instance, le) '
            '(rate(chess_move_seconds_bucket{instance=~"$instance"}'
            '[$__rate_interval]))) > 0.5 and up{job="x"} == 0 '
            'or chess_redis_up / ignoring (kind) chess_a_total offset 5m'),
            {"chess_move_seconds_bucket", "up", "chess_redis_up",
             "chess_a_total"})
        self.assertEqual(metric_names(
            'label_values(chess_build_info{job="j"}, instance)'),
            {"chess_build_info"})


class DashboardsTest(unittest.TestCase):
    def load(self, path):
        with open(path) as f:
            board = json.load(f)
        for key in ("uid", "title", "panels", "templating"):
            self.assertIn(key, board, path)
        return board

    def test_dashboards_read_documented_metrics(self):
        documented = metricsdoc.every()
        used = set()
        uids = set()
        for path in DASHBOARDS:
            board = self.load(path)
            self.assertNotIn(board["uid"], uids)
            uids.add(board["uid"])
            ids = set()
            exprs = dashboard_exprs(board)
            self.assertGreater(len(exprs), 10, path)
            for title, expr in exprs:
                self.assertTrue(expr, "%s: %s: an empty query" % (path, title))
                for n in metric_names(expr):
                    fam = family(n, documented)
                    self.assertIsNotNone(fam, "%s: %s: %s is not documented"
                                         % (os.path.basename(path), title, n))
                    used.add(fam)
            for p in board["panels"]:
                self.assertNotIn(p["id"], ids, path)
                ids.add(p["id"])
                g = p["gridPos"]
                self.assertLessEqual(g["x"] + g["w"], 24, p["title"])
        # between them the two show every documented metric
        self.assertEqual(sorted(documented - used), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
