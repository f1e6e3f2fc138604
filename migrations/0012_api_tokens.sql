-- 0012_api_tokens.sql - personal API tokens (docs/PROTOCOL.md, "API
-- tokens"): an account's tokens for programs (a bot, a board), each with
-- a description and scopes, created in the browser, over the protocol or
-- by `chess-server token create`. Only the SHA-256 of a token is stored:
-- a token is 120 random bits, so a fast hash cannot be searched back to
-- it, and a lookup is one index probe (a slow password hash would cost
-- every API request tens of milliseconds for nothing). The id names a
-- token to list and revoke it; it is not the token and opens nothing.
-- Revoking deletes the row. (IF NOT EXISTS: see 0003.)
CREATE TABLE IF NOT EXISTS api_tokens (
    id          TEXT PRIMARY KEY NOT NULL,
    token_hash  BLOB NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    pid         TEXT NOT NULL REFERENCES accounts (pid),
    description TEXT NOT NULL CHECK (length(CAST(description AS BLOB)) <= 100),
    -- comma-separated, in docs/PROTOCOL.md's order (bot:play,board:play,...)
    scopes      TEXT NOT NULL,
    created_ms  INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS api_tokens_pid ON api_tokens (pid);
