-- 0004_ratings.sql - ratings (Glicko-2, server/rating.h): every account's
-- rating per category, the rating after each rated game (for a graph),
-- and the rated flag and rating changes of games.
--
-- Ratings are written by the writer thread in the same transaction (and
-- the same savepoint) as the end of the rated game that changed them
-- (store_finish_game with ratings): a crash never leaves a finished rated
-- game without its rating change. The rows carry absolute values that
-- the event loop computed (store.h: "Ratings"), so applying the same end
-- twice gives the same rows. Existing players and games are untouched: a
-- game from before is casual (rated 0).

-- A player's rating in one category, once it has played a rated game in
-- it (no row: 1500, RD 350, volatility 0.06, no games). Full precision.
CREATE TABLE ratings (
    pid        TEXT NOT NULL REFERENCES players (pid),
    category   TEXT NOT NULL CHECK (category IN
                   ('bullet', 'blitz', 'rapid', 'classical', 'per_move')),
    rating     REAL NOT NULL,
    rd         REAL NOT NULL,
    volatility REAL NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    draws      INTEGER NOT NULL,
    losses     INTEGER NOT NULL,
    -- the end of the player's last rated game in the category (Unix ms):
    -- the RD grows for the days since then before the next game
    last_ms    INTEGER NOT NULL,
    PRIMARY KEY (pid, category)
) WITHOUT ROWID;

-- The leaderboard: the non-provisional ratings (RD at most 110,
-- RATING_RD_PROVISIONAL) of a category, best first. The query repeats
-- the WHERE clause so that SQLite uses this partial index and reads only
-- the rows it returns.
CREATE INDEX ratings_board ON ratings (category, rating DESC)
    WHERE rd <= 110.0;

-- The rating and RD of a player after each rated game in a category,
-- in time order.
CREATE TABLE rating_history (
    pid      TEXT NOT NULL REFERENCES players (pid),
    category TEXT NOT NULL,
    ended_ms INTEGER NOT NULL,
    gid      TEXT NOT NULL REFERENCES games (gid),
    rating   REAL NOT NULL,
    rd       REAL NOT NULL,
    PRIMARY KEY (pid, category, ended_ms, gid)
) WITHOUT ROWID;

-- Games: rated or casual, and for a rated game that ended the ratings
-- before and after it (full precision) and the RDs before it.
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0
    CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN white_before REAL;
ALTER TABLE games ADD COLUMN white_after REAL;
ALTER TABLE games ADD COLUMN black_before REAL;
ALTER TABLE games ADD COLUMN black_after REAL;
ALTER TABLE games ADD COLUMN white_rd REAL;
ALTER TABLE games ADD COLUMN black_rd REAL;
