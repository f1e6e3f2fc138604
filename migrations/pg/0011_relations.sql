-- pg/0011_relations.sql - blocks and reports between accounts: the same
-- tables as SQLite's migration 0016 (see there).
CREATE TABLE blocks (
    pid      text NOT NULL REFERENCES accounts (pid),
    blocked  text NOT NULL REFERENCES accounts (pid),
    at_ms    bigint NOT NULL,
    PRIMARY KEY (pid, blocked),
    CHECK (pid <> blocked)
);

CREATE TABLE reports (
    id         bigserial PRIMARY KEY,
    reporter   text NOT NULL REFERENCES accounts (pid),
    suspect    text NOT NULL REFERENCES accounts (pid),
    reason     text NOT NULL CHECK (reason IN ('cheat', 'stall', 'boost',
                   'abuse', 'spam', 'username', 'other')),
    text       text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 500),
    score      integer NOT NULL CHECK (score BETWEEN 0 AND 100),
    at_ms      bigint NOT NULL,
    closed_ms  bigint,
    CHECK (reporter <> suspect)
);
CREATE INDEX reports_reporter ON reports (reporter, at_ms);
CREATE INDEX reports_open ON reports (suspect, reason) WHERE closed_ms IS NULL;
