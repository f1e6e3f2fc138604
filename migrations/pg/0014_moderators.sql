-- pg/0014_moderators.sql - the moderator role: the same column as
-- SQLite's migration 0019 (see there).
ALTER TABLE accounts ADD COLUMN moderator integer NOT NULL DEFAULT 0
    CHECK (moderator IN (0, 1));

ALTER TABLE accounts ADD COLUMN chat_muted_until bigint NOT NULL DEFAULT 0;

CREATE TABLE mod_actions (
    id         bigserial PRIMARY KEY,
    moderator  text NOT NULL REFERENCES accounts (pid),
    target     text NOT NULL REFERENCES accounts (pid),
    action     text NOT NULL CHECK (action IN ('warn', 'mute', 'unmute',
                   'close')),
    reason     text NOT NULL DEFAULT '',
    text       text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 500),
    until_ms   bigint NOT NULL DEFAULT 0,
    at_ms      bigint NOT NULL
);
CREATE INDEX mod_actions_target ON mod_actions (target, at_ms);

CREATE FUNCTION mod_actions_apply() RETURNS trigger AS $$
BEGIN
    IF NEW.action = 'close' THEN
        UPDATE reports SET closed_ms = NEW.at_ms
            WHERE suspect = NEW.target AND closed_ms IS NULL
              AND (NEW.reason = '' OR reason = NEW.reason);
    ELSIF NEW.action IN ('mute', 'unmute') THEN
        UPDATE accounts SET chat_muted_until = NEW.until_ms
            WHERE pid = NEW.target;
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER mod_actions_apply AFTER INSERT ON mod_actions
    FOR EACH ROW EXECUTE FUNCTION mod_actions_apply();
