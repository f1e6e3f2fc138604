-- pg/0007_api_tokens.sql - personal API tokens: the same table as
-- SQLite's migration 0012 (see there for why a SHA-256 is enough).
CREATE TABLE api_tokens (
    id          text PRIMARY KEY,
    token_hash  bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    pid         text NOT NULL REFERENCES accounts (pid),
    description text NOT NULL CHECK (octet_length(description) <= 100),
    scopes      text NOT NULL,
    created_ms  bigint NOT NULL
);

CREATE INDEX api_tokens_pid ON api_tokens (pid);
