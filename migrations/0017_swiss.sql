-- 0017_swiss.sql - the Swiss tournaments' journal (server/hub/
-- swiss_director.c says what is journaled). Every event is its calls in
-- order: seq 0 creates it (its clock, rounds, start, interval, creator
-- and name), then the players' joins and withdrawals, each round's
-- pairing (one call), its games' starts (with their GIDs) and results.
-- Scores, tie-breaks and the TRF are derived by replaying them, never
-- stored apart. The same shape as arena_calls (0013).
CREATE TABLE swiss_calls (
    event TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 0),
    call TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (event, seq)
) WITHOUT ROWID;
