-- pg/0003_rated_ended.sql - the games that changed ratings, by their end:
-- the same index as SQLite's migration 0008 (see there).
CREATE INDEX games_rated_ended ON games (ended_ms) WHERE white_rd > 0;
