-- 0019_moderators.sql - the moderator role (issue 30 item 3; PROTOCOL.md
-- "Moderation"). An account is a moderator while moderator = 1: the
-- operator grants and revokes it (`chess-server mod grant|revoke`), the
-- hub reads it with the account's facts (hub/facts.c).
ALTER TABLE accounts ADD COLUMN moderator INTEGER NOT NULL DEFAULT 0
    CHECK (moderator IN (0, 1));

-- A moderator's mute of the account's chat lines: refused until
-- chat_muted_until (Unix epoch ms; 0 or past: not muted). Set by the
-- trigger below from the mute and unmute rows of mod_actions.
ALTER TABLE accounts ADD COLUMN chat_muted_until INTEGER NOT NULL DEFAULT 0;

-- mod_actions: every moderator's action, who (moderator), on whom
-- (target), what (action), why (text), when (at_ms); a mute's end
-- (until_ms); a close's report reason (reason, '' for every reason).
-- The trigger carries out what the action changes in other tables.
CREATE TABLE mod_actions (
    id         INTEGER PRIMARY KEY,
    moderator  TEXT NOT NULL REFERENCES accounts (pid),
    target     TEXT NOT NULL REFERENCES accounts (pid),
    action     TEXT NOT NULL CHECK (action IN ('warn', 'mute', 'unmute',
                   'close')),
    reason     TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 500),
    until_ms   INTEGER NOT NULL DEFAULT 0,
    at_ms      INTEGER NOT NULL
);
CREATE INDEX mod_actions_target ON mod_actions (target, at_ms);

CREATE TRIGGER mod_actions_apply AFTER INSERT ON mod_actions
BEGIN
    UPDATE reports SET closed_ms = NEW.at_ms
        WHERE NEW.action = 'close' AND suspect = NEW.target
          AND closed_ms IS NULL AND (NEW.reason = '' OR reason = NEW.reason);
    UPDATE accounts SET chat_muted_until = NEW.until_ms
        WHERE NEW.action IN ('mute', 'unmute') AND pid = NEW.target;
END;
