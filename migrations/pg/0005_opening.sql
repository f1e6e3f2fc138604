-- pg/0005_opening.sql - the opening each game reached: the same columns as
-- SQLite's migration 0010 (see there), filled the same way for the games
-- that ended before it.
ALTER TABLE games ADD COLUMN eco text;
ALTER TABLE games ADD COLUMN opening text;
UPDATE games SET
    eco = substr(pgn, strpos(pgn, '[ECO "') + 6, 3),
    opening = substr(pgn, strpos(pgn, '[Opening "') + 10,
        strpos(substr(pgn, strpos(pgn, '[Opening "') + 10), '"]') - 1)
    WHERE status = 'ended' AND pgn IS NOT NULL
    AND strpos(pgn, '[ECO "') > 0 AND strpos(pgn, '[Opening "') > 0;
