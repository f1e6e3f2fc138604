-- 0016_relations.sql - blocks and reports between accounts (issue 30;
-- PROTOCOL.md "Blocks and reports").
--
-- blocks: account pid blocks account blocked (lila's relation with
-- r = Block): no challenge either way, no chat line of blocked seen by
-- pid, no lobby pairing between them. At most LIMIT_BLOCKS rows per pid
-- (the server refuses the next). Unblocking deletes the row.
CREATE TABLE blocks (
    pid      TEXT NOT NULL REFERENCES accounts (pid),
    blocked  TEXT NOT NULL REFERENCES accounts (pid),
    at_ms    INTEGER NOT NULL,
    PRIMARY KEY (pid, blocked),
    CHECK (pid <> blocked)
);

-- reports: one row per report (lila's report atom): reporter reports
-- suspect for reason with text. score is the atom's score by lila's
-- ReportScore as server/hub/relation.c computes it; the moderators'
-- queue (store_report_queue) groups the open rows by suspect and reason
-- and sums their scores (capped at 100), the worst first. closed_ms is
-- set when a moderator closes the report (issue 30 item 3).
CREATE TABLE reports (
    id         INTEGER PRIMARY KEY,
    reporter   TEXT NOT NULL REFERENCES accounts (pid),
    suspect    TEXT NOT NULL REFERENCES accounts (pid),
    reason     TEXT NOT NULL CHECK (reason IN ('cheat', 'stall', 'boost',
                   'abuse', 'spam', 'username', 'other')),
    text       TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 500),
    score      INTEGER NOT NULL CHECK (score BETWEEN 0 AND 100),
    at_ms      INTEGER NOT NULL,
    closed_ms  INTEGER,
    CHECK (reporter <> suspect)
);
CREATE INDEX reports_reporter ON reports (reporter, at_ms);
CREATE INDEX reports_open ON reports (suspect, reason) WHERE closed_ms IS NULL;
