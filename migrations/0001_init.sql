-- 0001_init.sql - the first schema: players, games, the per-move journal
-- and a key/value meta table for the writer's heartbeat.
--
-- Applied by server/store.c inside one transaction; PRAGMA user_version
-- records the number of the last migration applied. Times are Unix epoch
-- milliseconds; NULL means "not yet" or "no such seat".

CREATE TABLE players (
    pid        TEXT PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    created_ms INTEGER NOT NULL
);

CREATE TABLE games (
    gid          TEXT PRIMARY KEY NOT NULL,
    white_pid    TEXT REFERENCES players (pid),
    white_name   TEXT NOT NULL DEFAULT '',
    black_pid    TEXT REFERENCES players (pid),
    black_name   TEXT NOT NULL DEFAULT '',
    creator_pid  TEXT REFERENCES players (pid),
    -- clock settings as the protocol gives them
    per_move     INTEGER NOT NULL CHECK (per_move IN (0, 1)),
    initial_s    INTEGER NOT NULL DEFAULT 0,
    increment_s  INTEGER NOT NULL DEFAULT 0,
    per_move_s   INTEGER NOT NULL DEFAULT 0,
    initial_fen  TEXT NOT NULL,
    status       TEXT NOT NULL
                 CHECK (status IN ('waiting', 'started', 'ended')),
    result       TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2', '*')),
    reason       TEXT,
    final_fen    TEXT,
    draw_offer   TEXT CHECK (draw_offer IN ('white', 'black')),
    created_ms   INTEGER NOT NULL,
    started_ms   INTEGER,
    ended_ms     INTEGER,
    white_ms     INTEGER NOT NULL DEFAULT 0,
    black_ms     INTEGER NOT NULL DEFAULT 0,
    pgn          TEXT
);

-- A player's finished games, newest first (one index per seat: the list
-- query is a UNION ALL of both, merged on (ended_ms, gid)).
CREATE INDEX games_white_ended ON games (white_pid, ended_ms, gid)
    WHERE status = 'ended';
CREATE INDEX games_black_ended ON games (black_pid, ended_ms, gid)
    WHERE status = 'ended';
-- Live games (waiting or started), oldest first, for restore at start-up.
CREATE INDEX games_status ON games (status, created_ms, gid);

-- The move journal: one row per ply, written as the move is played.
CREATE TABLE moves (
    gid      TEXT NOT NULL REFERENCES games (gid) ON DELETE CASCADE,
    ply      INTEGER NOT NULL CHECK (ply >= 1),
    uci      TEXT NOT NULL,
    san      TEXT NOT NULL,
    white_ms INTEGER NOT NULL,
    black_ms INTEGER NOT NULL,
    wall_ms  INTEGER NOT NULL,
    PRIMARY KEY (gid, ply)
) WITHOUT ROWID;

-- Small facts about the database itself: 'heartbeat_ms' is the wall clock
-- the writer last recorded (about once a second).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value INTEGER NOT NULL
) WITHOUT ROWID;
