-- 0014_chat.sql - the chat lines of games (issue 30; PROTOCOL.md "Chat").
--
-- One row per line said in a game's room: room is 'player' (the two
-- players) or 'spectator' (the spectators; the players read it once the
-- game has ended). id orders the lines of a room as they were sent; the
-- last 50 of each room are replayed to a late joiner (server/hub/chat.c).
-- text is 1-140 code points of UTF-8 without control characters, as the
-- server checked it; name is the sender's name when it spoke. A room of
-- another kind (a tournament's) will get its own key column later.
CREATE TABLE chat_lines (
    id     INTEGER PRIMARY KEY,
    gid    TEXT NOT NULL REFERENCES games (gid) ON DELETE CASCADE,
    room   TEXT NOT NULL CHECK (room IN ('player', 'spectator')),
    pid    TEXT NOT NULL,
    name   TEXT NOT NULL,
    text   TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 140),
    at_ms  INTEGER NOT NULL
);
CREATE INDEX chat_lines_room ON chat_lines (gid, room, id);
