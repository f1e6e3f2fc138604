#!lua
-- game_uncard.lua - game G ended: its card leaves the lobby's list of
-- live games.
--
-- KEYS[1] lobby:{lobby}:games, KEYS[2] lobby:{lobby}:cards
-- ARGV[1] G
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
