-- 0011_analysis.sql - a game's computer analysis (PROTOCOL.md, "Computer
-- analysis"; server/hub/analysis.c): one row per game, written when a
-- player asks for it ("queued", result '{}') and again when it is done
-- ("done", result the analysis as the server sends it: each position's
-- score and best move, the judgements, both sides' accuracy, the engine's
-- name, the node budget and options). A row still "queued" at start is
-- queued again. requested_ms and pid count a player's analyses a day.
CREATE TABLE IF NOT EXISTS analyses (
    gid          TEXT PRIMARY KEY NOT NULL REFERENCES games (gid),
    pid          TEXT NOT NULL,
    requested_ms INTEGER NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('queued', 'done')),
    result       TEXT NOT NULL
                 CHECK (length(CAST(result AS BLOB)) BETWEEN 2 AND 65536)
);
CREATE INDEX IF NOT EXISTS analyses_by_pid ON analyses (pid, requested_ms);
CREATE INDEX IF NOT EXISTS analyses_queued ON analyses (requested_ms)
    WHERE status = 'queued';
