-- 0018_bot.sql - bot accounts (issue 27 item 5; PROTOCOL.md "Bot
-- accounts"). bot is 1 once the account was upgraded by
-- POST /api/bot/account/upgrade: irreversible (nothing sets it back),
-- and only for an account that had played no game (the hub checks).
ALTER TABLE accounts ADD COLUMN bot INTEGER NOT NULL DEFAULT 0
    CHECK (bot IN (0, 1));
