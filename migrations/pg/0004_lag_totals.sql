-- pg/0004_lag_totals.sql - the lag credit each side received in a game:
-- the same columns as SQLite's migration 0009 (see there), filled the
-- same way for the games that ended before it.
ALTER TABLE games ADD COLUMN white_lag_ms bigint NOT NULL DEFAULT 0
    CHECK (white_lag_ms >= 0);
ALTER TABLE games ADD COLUMN black_lag_ms bigint NOT NULL DEFAULT 0
    CHECK (black_lag_ms >= 0);
UPDATE games SET
    white_lag_ms = coalesce((SELECT sum(m.lag_ms) FROM moves m
        WHERE m.gid = games.gid
        AND (m.ply % 2 = 1) = (games.initial_fen LIKE '% w %')), 0),
    black_lag_ms = coalesce((SELECT sum(m.lag_ms) FROM moves m
        WHERE m.gid = games.gid
        AND (m.ply % 2 = 0) = (games.initial_fen LIKE '% w %')), 0)
    WHERE status = 'ended';
