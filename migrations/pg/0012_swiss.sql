-- pg/0012_swiss.sql - the Swiss tournaments' journal: the same table as
-- SQLite's migration 0017 (see there).
CREATE TABLE swiss_calls (
    event text NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 0),
    call text NOT NULL,
    at_ms bigint NOT NULL,
    PRIMARY KEY (event, seq)
);
