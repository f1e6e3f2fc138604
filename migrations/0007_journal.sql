-- 0007_journal.sql - the live games' journal apart from the finished
-- games' moves (README "Performance", issue 16). `moves` is keyed by
-- (gid, ply): with thousands of games in play, each move's row landed in
-- another page of it, so every commit wrote a page per move to the WAL
-- and every checkpoint wrote them again into the database file (about
-- 10 KB of disk writes a move, mostly random). `journal` is appended in
-- commit order under an integer key and has no other index, so the moves
-- of one commit share the table's last page. A game's moves go into
-- `moves` in one piece when it ends (the writer copies them from the end
-- op, in the same transaction as the game's final row); the writer
-- deletes the journal rows of ended games a few hundred at a time,
-- walking the journal in key order, and restore reads the journal in one
-- pass. No foreign key: the rows of a game are removed by that sweep, not
-- with the game.
CREATE TABLE journal (
    seq      INTEGER PRIMARY KEY,
    gid      TEXT NOT NULL,
    ply      INTEGER NOT NULL CHECK (ply >= 1),
    uci      TEXT NOT NULL,
    san      TEXT NOT NULL,
    white_ms INTEGER NOT NULL,
    black_ms INTEGER NOT NULL,
    wall_ms  INTEGER NOT NULL,
    lag_ms   INTEGER NOT NULL DEFAULT 0 CHECK (lag_ms >= 0)
);

-- The games in play keep their moves: they move to the journal, in ply
-- order, and leave `moves` to the finished games.
INSERT INTO journal (gid, ply, uci, san, white_ms, black_ms, wall_ms, lag_ms)
    SELECT m.gid, m.ply, m.uci, m.san, m.white_ms, m.black_ms, m.wall_ms,
           m.lag_ms
    FROM moves m JOIN games g ON g.gid = m.gid
    WHERE g.status <> 'ended'
    ORDER BY m.gid, m.ply;
DELETE FROM moves WHERE gid IN (SELECT gid FROM games WHERE status <> 'ended');

-- The sweep asks, for every journal row it examines, whether its game is
-- still in play: this index (one small entry per game in play, both
-- columns the question needs) answers from a few hundred pages that stay
-- in the writer's cache, where the games' key and rows of every game ever
-- played did not.
CREATE INDEX games_in_play ON games (gid, status) WHERE status <> 'ended';
