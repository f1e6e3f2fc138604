-- 0019_moderators.sql - the moderator role (issue 30 item 3; PROTOCOL.md
-- "Moderation"). An account is a moderator while moderator = 1: the
-- operator grants and revokes it (`chess-server mod grant|revoke`), the
-- hub reads it with the account's facts (hub/facts.c).
ALTER TABLE accounts ADD COLUMN moderator INTEGER NOT NULL DEFAULT 0
    CHECK (moderator IN (0, 1));
