-- pg/0017_bot_index.sql - the bot accounts by username: the same index
-- as SQLite's migration 0022 (see there).
CREATE INDEX accounts_bots ON accounts (lower(username))
    WHERE bot = 1 AND closed = 0;
