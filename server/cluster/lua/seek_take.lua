-- seek_take.lua - take one open seek (accept: PROTOCOL.md section 5),
-- atomically: of two takers, one gets it.
--
-- KEYS[1] seek:SID
-- ARGV[1] SID
--
-- Returns 1 when taken (the seek is gone from its clock's set, from
-- seeks:all, from its node's set and, when it is the player's open
-- seek, from seeker:PID), 0 when it was no longer open.
local o = redis.call('HMGET', KEYS[1], 'zset', 'node', 'pid')
if not o[1] then
    return 0
end
redis.call('ZREM', o[1], ARGV[1])
redis.call('ZREM', 'seeks:all', ARGV[1])
redis.call('SREM', 'node:' .. o[2] .. ':seeks', ARGV[1])
if redis.call('GET', 'seeker:' .. o[3]) == ARGV[1] then
    redis.call('DEL', 'seeker:' .. o[3])
end
local a = redis.call('HGET', KEYS[1], 'addr')
if a and a ~= '' then
    redis.call('SREM', 'seekaddr:' .. a, ARGV[1])
end
redis.call('DEL', KEYS[1])
return 1
