-- pg/0016_mod_marks.sql - the moderators' marks on an account: the same
-- columns and actions as SQLite's migration 0021 (see there).
ALTER TABLE accounts ADD COLUMN engine integer NOT NULL DEFAULT 0
    CHECK (engine IN (0, 1));
ALTER TABLE accounts ADD COLUMN closed integer NOT NULL DEFAULT 0
    CHECK (closed IN (0, 1));

ALTER TABLE mod_actions DROP CONSTRAINT mod_actions_action_check;
ALTER TABLE mod_actions ADD CONSTRAINT mod_actions_action_check
    CHECK (action IN ('warn', 'mute', 'unmute', 'close', 'engine',
                      'unengine', 'close_account', 'reopen_account',
                      'disconnect', 'chat_delete', 'game_end', 'maintenance',
                      'maintenance_cancel'));
ALTER TABLE mod_actions ADD COLUMN game text;
ALTER TABLE mod_actions ADD COLUMN room text;
ALTER TABLE mod_actions ADD COLUMN line_ms bigint NOT NULL DEFAULT 0;
ALTER TABLE mod_actions ALTER COLUMN target DROP NOT NULL;
CREATE INDEX mod_actions_maintenance ON mod_actions (id)
    WHERE action IN ('maintenance', 'maintenance_cancel');

CREATE INDEX chat_lines_pid ON chat_lines (pid, id);

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
    ELSIF NEW.action = 'chat_delete' THEN
        DELETE FROM chat_lines WHERE gid = NEW.game AND room = NEW.room
            AND pid = NEW.target AND at_ms = NEW.line_ms;
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
