-- pg/0009_chat.sql - the chat lines of games: the same table as SQLite's
-- migration 0014 (see there).
CREATE TABLE chat_lines (
    id     bigserial PRIMARY KEY,
    gid    text NOT NULL REFERENCES games (gid) ON DELETE CASCADE,
    room   text NOT NULL CHECK (room IN ('player', 'spectator')),
    pid    text NOT NULL,
    name   text NOT NULL,
    text   text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 140),
    at_ms  bigint NOT NULL
);
CREATE INDEX chat_lines_room ON chat_lines (gid, room, id);
