-- 0021_mod_marks.sql - the moderators' marks on an account (issue 30
-- item 3; PROTOCOL.md "Moderation"): engine = 1 while it is marked as
-- an engine (its new games are casual, it leaves the leaderboards),
-- closed = 1 while it is closed (login refuses it; the close deletes
-- its tokens, the session's and the API's, so nothing opens it until it
-- is reopened and logs in again). Both are set by mod_actions' trigger,
-- as the mute is.
ALTER TABLE accounts ADD COLUMN engine INTEGER NOT NULL DEFAULT 0
    CHECK (engine IN (0, 1));
ALTER TABLE accounts ADD COLUMN closed INTEGER NOT NULL DEFAULT 0
    CHECK (closed IN (0, 1));

-- mod_actions takes the new actions: SQLite cannot change a CHECK in
-- place, so the table is made again (nothing refers to it). A
-- maintenance (its time in until_ms, its banner in text) or its cancel
-- is on nobody: its target is NULL; the newest such row is the banner
-- every node shows (hub/maintenance.c), read by the partial index.
CREATE TABLE mod_actions_new (
    id         INTEGER PRIMARY KEY,
    moderator  TEXT NOT NULL REFERENCES accounts (pid),
    target     TEXT REFERENCES accounts (pid),
    action     TEXT NOT NULL CHECK (action IN ('warn', 'mute', 'unmute',
                   'close', 'engine', 'unengine', 'close_account',
                   'reopen_account', 'disconnect', 'chat_delete',
                   'game_end', 'maintenance', 'maintenance_cancel')),
    reason     TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 500),
    until_ms   INTEGER NOT NULL DEFAULT 0,
    at_ms      INTEGER NOT NULL,
    -- a chat_delete's line: the target's line of game's room at line_ms;
    -- a game_end's game (on nobody: its result in reason)
    game       TEXT,
    room       TEXT,
    line_ms    INTEGER NOT NULL DEFAULT 0
);
INSERT INTO mod_actions_new (id, moderator, target, action, reason, text,
                             until_ms, at_ms)
    SELECT id, moderator, target, action, reason, text, until_ms, at_ms
    FROM mod_actions;
DROP TABLE mod_actions;
ALTER TABLE mod_actions_new RENAME TO mod_actions;
CREATE INDEX mod_actions_target ON mod_actions (target, at_ms);
CREATE INDEX mod_actions_maintenance ON mod_actions (id)
    WHERE action IN ('maintenance', 'maintenance_cancel');

-- A player's newest chat lines, for the moderators' page (mod_player).
CREATE INDEX chat_lines_pid ON chat_lines (pid, id);

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
END;
