-- 0009_lag_totals.sql - the lag credit each side received in a game, for
-- moderators (issue 25: a client that makes its line look slow gains
-- time; the PGN's [%lag] comments show it move by move, these columns
-- game by game).
--
-- white_lag_ms, black_lag_ms: the sums of the lag credits (the moves'
-- lag_ms, PROTOCOL.md "Lag compensation") of White's and of Black's
-- moves. They are written with the game's row and are final at its end
-- (a live game's are as of its row's last write). `chess-server lag`
-- (docs/operator.md) reads a player's over their recent games, through
-- the seats' indexes (games_white_ended, games_black_ended).
--
-- A game that ended before this migration gets its totals from its moves:
-- White's moves are the odd plies when it started with White to move (the
-- side to move is the second field of a FEN, the first " w " or " b ").
-- A live game's moves are in the journal; its next row write sets them.
ALTER TABLE games ADD COLUMN white_lag_ms INTEGER NOT NULL DEFAULT 0
    CHECK (white_lag_ms >= 0);
ALTER TABLE games ADD COLUMN black_lag_ms INTEGER NOT NULL DEFAULT 0
    CHECK (black_lag_ms >= 0);
UPDATE games SET
    white_lag_ms = coalesce((SELECT sum(m.lag_ms) FROM moves m
        WHERE m.gid = games.gid
        AND (m.ply % 2 = 1) = (games.initial_fen LIKE '% w %')), 0),
    black_lag_ms = coalesce((SELECT sum(m.lag_ms) FROM moves m
        WHERE m.gid = games.gid
        AND (m.ply % 2 = 0) = (games.initial_fen LIKE '% w %')), 0)
    WHERE status = 'ended';
