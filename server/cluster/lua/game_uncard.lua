-- game_uncard.lua - game G ended: its card leaves the lobby's list of
-- live games.
--
-- KEYS[1] games:live, KEYS[2] game:G:card
-- ARGV[1] G
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
