-- pg/0006_analysis.sql - a game's computer analysis: the same table as
-- SQLite's migration 0011 (see there).
CREATE TABLE analyses (
    gid          text PRIMARY KEY REFERENCES games (gid),
    pid          text NOT NULL,
    requested_ms bigint NOT NULL,
    status       text NOT NULL CHECK (status IN ('queued', 'done')),
    result       text NOT NULL
                 CHECK (octet_length(result) BETWEEN 2 AND 65536)
);
CREATE INDEX analyses_by_pid ON analyses (pid, requested_ms);
CREATE INDEX analyses_queued ON analyses (requested_ms)
    WHERE status = 'queued';
