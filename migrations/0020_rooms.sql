-- 0020_rooms.sql - the chat lines of the rooms that are no game's: the
-- lobby's (room 'lobby', key 'lobby') and a tournament's (room 'event',
-- key the event's id) (issue 30; PROTOCOL.md "Chat"; server/hub/rooms.c).
--
-- As chat_lines (0014) but keyed by (room, key): id orders a room's
-- lines as they were sent; the last 50 are replayed to a late joiner.
-- A room keeps its last 500 lines: the trigger deletes the older ones
-- as each line comes (a bounded history, however much the lobby talks).
CREATE TABLE room_lines (
    id     INTEGER PRIMARY KEY,
    room   TEXT NOT NULL CHECK (room IN ('lobby', 'event')),
    key    TEXT NOT NULL,
    pid    TEXT NOT NULL,
    name   TEXT NOT NULL,
    text   TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 140),
    at_ms  INTEGER NOT NULL
);
CREATE INDEX room_lines_room ON room_lines (room, key, id);
CREATE TRIGGER room_lines_keep AFTER INSERT ON room_lines
BEGIN
    DELETE FROM room_lines
     WHERE room = NEW.room AND key = NEW.key
       AND id < (SELECT id FROM room_lines
                  WHERE room = NEW.room AND key = NEW.key
                  ORDER BY id DESC LIMIT 1 OFFSET 499);
END;
