-- 0005_lag.sql - lag compensation (PROTOCOL.md, "Lag compensation"):
-- each journal row keeps the time, in milliseconds, that the server
-- credited back to the mover's clock for the network delay it measured
-- on the mover's connection (0: none). white_ms and black_ms already
-- include it; the column is what `moved`'s lag_ms and the PGN's %lag
-- show. Moves from before carry 0.
ALTER TABLE moves ADD COLUMN lag_ms INTEGER NOT NULL DEFAULT 0
    CHECK (lag_ms >= 0);
