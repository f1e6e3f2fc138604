-- 0002_player_lookups.sql - indexes for finding a player's games by seat
-- or as creator, whatever their status, and players by creation time.
--
-- The purge of guests that never played (store_purge_guests) walks
-- players by (created_ms, pid) and asks, per player, whether any game
-- names it; deleting a player also makes SQLite check the three foreign
-- keys of games. Without these indexes each of those is a scan of every
-- game.

CREATE INDEX IF NOT EXISTS players_created ON players (created_ms, pid);
CREATE INDEX IF NOT EXISTS games_white ON games (white_pid);
CREATE INDEX IF NOT EXISTS games_black ON games (black_pid);
CREATE INDEX IF NOT EXISTS games_creator ON games (creator_pid);
