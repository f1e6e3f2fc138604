-- pg/0010_playban.sql - an account's playban record: the same table as
-- SQLite's migration 0015 (see there).
CREATE TABLE account_playban (
    pid        text PRIMARY KEY NOT NULL REFERENCES accounts (pid),
    record     text NOT NULL CHECK (char_length(record) BETWEEN 5 AND 1024),
    updated_ms bigint NOT NULL
);
