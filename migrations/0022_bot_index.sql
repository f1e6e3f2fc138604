-- 0022_bot_index.sql - the bot accounts by username (issue 27 item 6:
-- GET /api/bot/online in a cluster lists them from the store, at most
-- 300 a request, then asks the nodes which are online;
-- store_list_bots). A partial index: its rows are the bots only, so the
-- read costs the rows it returns, not a walk of every account.
CREATE INDEX IF NOT EXISTS accounts_bots ON accounts (username)
    WHERE bot = 1 AND closed = 0;
