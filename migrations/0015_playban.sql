-- 0015_playban.sql - an account's playban record (issue 30; PROTOCOL.md
-- "Playban"): lichess's record of its last 30 outcomes (abort, no start,
-- leaving, sitting...) and last 30 temporary bans, as common/playban.c
-- encodes it (playban_encode: "version:outcomes:bans:forgiven", at most
-- 1 KiB), and when it was last written. An account that never had an
-- outcome recorded has no row; guests have none (docs/operator.md).
CREATE TABLE IF NOT EXISTS account_playban (
    pid        TEXT PRIMARY KEY NOT NULL REFERENCES accounts (pid),
    record     TEXT NOT NULL CHECK (length(record) BETWEEN 5 AND 1024),
    updated_ms INTEGER NOT NULL
);
