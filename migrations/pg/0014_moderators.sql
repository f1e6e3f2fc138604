-- pg/0014_moderators.sql - the moderator role: the same column as
-- SQLite's migration 0019 (see there).
ALTER TABLE accounts ADD COLUMN moderator boolean NOT NULL DEFAULT false;
