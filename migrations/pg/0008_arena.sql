-- pg/0008_arena.sql - the arena tournaments' journal: the same table as
-- SQLite's migration 0013 (see there).
CREATE TABLE arena_calls (
    event text NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 0),
    call text NOT NULL,
    at_ms bigint NOT NULL,
    PRIMARY KEY (event, seq)
);
