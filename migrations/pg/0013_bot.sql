-- pg/0013_bot.sql - bot accounts: the same column as SQLite's migration
-- 0018 (see there).
ALTER TABLE accounts ADD COLUMN bot INTEGER NOT NULL DEFAULT 0
    CHECK (bot IN (0, 1));
