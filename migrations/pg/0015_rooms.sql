-- pg/0015_rooms.sql - the chat lines of the lobby's and the tournaments'
-- rooms: the same table and bound (500 lines a room) as SQLite's
-- migration 0020 (see there).
CREATE TABLE room_lines (
    id     bigserial PRIMARY KEY,
    room   text NOT NULL CHECK (room IN ('lobby', 'event')),
    key    text NOT NULL,
    pid    text NOT NULL,
    name   text NOT NULL,
    text   text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 140),
    at_ms  bigint NOT NULL
);
CREATE INDEX room_lines_room ON room_lines (room, key, id);
CREATE FUNCTION room_lines_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM room_lines
     WHERE room = NEW.room AND key = NEW.key
       AND id < (SELECT id FROM room_lines
                  WHERE room = NEW.room AND key = NEW.key
                  ORDER BY id DESC LIMIT 1 OFFSET 499);
    RETURN NULL;
END $$;
CREATE TRIGGER room_lines_keep AFTER INSERT ON room_lines
    FOR EACH ROW EXECUTE FUNCTION room_lines_keep();
