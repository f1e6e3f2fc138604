-- 0006_account_settings.sql - an account's settings (PROTOCOL.md,
-- "Settings"): the JSON object its clients last saved with a `settings`
-- message, as the server serialised it (compact, at most 2048 bytes: the
-- server checks the object's shape before it stores it), and when. An
-- account that never saved any has no row. Guests have none: their
-- settings stay in their browser. (IF NOT EXISTS: see 0003.)
CREATE TABLE IF NOT EXISTS account_settings (
    pid        TEXT PRIMARY KEY NOT NULL REFERENCES accounts (pid),
    settings   TEXT NOT NULL
               CHECK (length(CAST(settings AS BLOB)) BETWEEN 2 AND 2048),
    updated_ms INTEGER NOT NULL
);
