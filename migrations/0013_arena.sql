-- 0013_arena.sql - the arena tournaments' journal (server/hub/
-- arena_director.c; common/arena/arena.h says what is journaled). Every
-- event is its calls in order: seq 0 creates it (its name, creator and
-- config), then the players' joins, withdrawals and rejoins, the games'
-- starts (with their GIDs) and ends, and the schedule changes. Standings
-- are derived by replaying them, never stored apart.
-- (Reserved as migration 0015 for issue 31; renumbered at merge.)
CREATE TABLE arena_calls (
    event TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 0),
    call TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (event, seq)
) WITHOUT ROWID;
