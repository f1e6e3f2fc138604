-- 0003_accounts.sql - accounts: a username and a password hash for a
-- player who registered, and the tokens (one per login, or device) that
-- lead back to it.
--
-- An account is a player (its row in players, same pid, its games) with
-- a row here. Its players.token_hash is no longer a token anybody holds:
-- registering replaces it with the SHA-256 of random bytes given to no
-- one (the column stays NOT NULL UNIQUE for the guests), and the
-- account's tokens live in account_tokens. Existing guests and games are
-- untouched.

CREATE TABLE accounts (
    pid           TEXT PRIMARY KEY NOT NULL REFERENCES players (pid),
    -- 2-20 of A-Z a-z 0-9 _ -, unique without regard to case (ASCII:
    -- NOCASE folds exactly the letters a username may hold)
    username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    -- Argon2id's encoded string ($argon2id$v=19$m=...,t=...,p=...$SALT$TAG)
    password_hash TEXT NOT NULL,
    created_ms    INTEGER NOT NULL
);

-- An account's tokens: only their SHA-256, as for guests. A token lapses
-- when last_used_ms is 30 days old (recorded at most once an hour).
CREATE TABLE account_tokens (
    token_hash   BLOB PRIMARY KEY NOT NULL CHECK (length(token_hash) = 32),
    pid          TEXT NOT NULL REFERENCES accounts (pid),
    created_ms   INTEGER NOT NULL,
    last_used_ms INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX account_tokens_pid ON account_tokens (pid);
CREATE INDEX account_tokens_last_used ON account_tokens (last_used_ms);
