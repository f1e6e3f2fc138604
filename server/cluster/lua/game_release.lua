#!lua
-- game_release.lua - game G has ended and left this node's memory:
-- nobody hosts it any more (its commands are answered from the store by
-- whichever node receives them).
--
-- KEYS[1] game:{G}:host, KEYS[2] game:{G}:epoch
-- ARGV[1] this node's id
--
-- Returns 1 when released, 0 when another node hosts G (nothing
-- changed). The epoch key goes too: an ended game is never written
-- again, and PostgreSQL keeps its last epoch.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return 0
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
