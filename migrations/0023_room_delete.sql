-- 0023_room_delete.sql - a moderator's delete reaches the lobby's and
-- the tournaments' rooms (issue 30 item 3; PROTOCOL.md "Moderation"):
-- a chat_delete whose room is 'lobby' or 'event' names its line in
-- room_lines (migration 0020) by key (the action's game column: 'lobby'
-- or the event's id), pid and at_ms. The trigger is 0021's with that
-- one DELETE more (SQLite cannot alter a trigger). And a player's newest
-- lines of those rooms, for the moderators' page (mod_player).
CREATE INDEX room_lines_pid ON room_lines (pid, id);

DROP TRIGGER mod_actions_apply;
CREATE TRIGGER mod_actions_apply AFTER INSERT ON mod_actions
BEGIN
    UPDATE reports SET closed_ms = NEW.at_ms
        WHERE NEW.action = 'close' AND suspect = NEW.target
          AND closed_ms IS NULL AND (NEW.reason = '' OR reason = NEW.reason);
    UPDATE accounts SET chat_muted_until = NEW.until_ms
        WHERE NEW.action IN ('mute', 'unmute') AND pid = NEW.target;
    UPDATE accounts SET engine = (NEW.action = 'engine')
        WHERE NEW.action IN ('engine', 'unengine') AND pid = NEW.target;
    UPDATE accounts SET closed = (NEW.action = 'close_account')
        WHERE NEW.action IN ('close_account', 'reopen_account')
          AND pid = NEW.target;
    DELETE FROM account_tokens
        WHERE NEW.action = 'close_account' AND pid = NEW.target;
    DELETE FROM api_tokens
        WHERE NEW.action = 'close_account' AND pid = NEW.target;
    DELETE FROM chat_lines
        WHERE NEW.action = 'chat_delete' AND gid = NEW.game
          AND room = NEW.room AND pid = NEW.target AND at_ms = NEW.line_ms;
    DELETE FROM room_lines
        WHERE NEW.action = 'chat_delete' AND key = NEW.game
          AND room = NEW.room AND pid = NEW.target AND at_ms = NEW.line_ms;
END;
