-- 0010_opening.sql - the opening each game reached, for a player's list
-- of games (issue 28: the history shows the opening): eco is the ECO code
-- ("C20"), opening the name ("King's Pawn Game"), as the game's PGN
-- writes them in its [ECO] and [Opening] tags (common/opening.h: the
-- deepest named position among the first 40 plies). Both NULL when no
-- position of the game has a name, or it did not start from the initial
-- position. Written with the game's row, final at its end.
--
-- A game that ended before this migration gets them from its PGN's tags,
-- when it has them (games stored before openings were named have none).
ALTER TABLE games ADD COLUMN eco TEXT;
ALTER TABLE games ADD COLUMN opening TEXT;
UPDATE games SET
    eco = substr(pgn, instr(pgn, '[ECO "') + 6, 3),
    opening = substr(pgn, instr(pgn, '[Opening "') + 10,
        instr(substr(pgn, instr(pgn, '[Opening "') + 10), '"]') - 1)
    WHERE status = 'ended' AND pgn IS NOT NULL
    AND instr(pgn, '[ECO "') > 0 AND instr(pgn, '[Opening "') > 0;
