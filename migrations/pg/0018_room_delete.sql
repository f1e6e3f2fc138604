-- pg/0018_room_delete.sql - a moderator's delete reaches the lobby's and
-- the tournaments' rooms: SQLite's migration 0023 (see there).
CREATE INDEX room_lines_pid ON room_lines (pid, id);

CREATE OR REPLACE FUNCTION mod_actions_apply() RETURNS trigger AS $$
BEGIN
    IF NEW.action = 'close' THEN
        UPDATE reports SET closed_ms = NEW.at_ms
            WHERE suspect = NEW.target AND closed_ms IS NULL
              AND (NEW.reason = '' OR reason = NEW.reason);
    ELSIF NEW.action IN ('mute', 'unmute') THEN
        UPDATE accounts SET chat_muted_until = NEW.until_ms
            WHERE pid = NEW.target;
    ELSIF NEW.action IN ('engine', 'unengine') THEN
        UPDATE accounts SET engine = (NEW.action = 'engine')::integer
            WHERE pid = NEW.target;
    ELSIF NEW.action IN ('close_account', 'reopen_account') THEN
        UPDATE accounts SET closed = (NEW.action = 'close_account')::integer
            WHERE pid = NEW.target;
        IF NEW.action = 'close_account' THEN
            DELETE FROM account_tokens WHERE pid = NEW.target;
            DELETE FROM api_tokens WHERE pid = NEW.target;
        END IF;
    ELSIF NEW.action = 'chat_delete' AND NEW.room IN ('lobby', 'event') THEN
        DELETE FROM room_lines WHERE key = NEW.game AND room = NEW.room
            AND pid = NEW.target AND at_ms = NEW.line_ms;
    ELSIF NEW.action = 'chat_delete' THEN
        DELETE FROM chat_lines WHERE gid = NEW.game AND room = NEW.room
            AND pid = NEW.target AND at_ms = NEW.line_ms;
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
