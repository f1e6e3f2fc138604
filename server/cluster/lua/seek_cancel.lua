-- seek_cancel.lua - remove a player's open seek (cancel_seek, or the
-- close of the connection that made it).
--
-- KEYS[1] seeker:PID
-- ARGV[1] the seek's id to remove only that one (a connection's close:
--         the player may have placed a newer seek since), or '' for
--         whichever seek the player has open
--
-- Returns 1 when a seek was removed, 0 when there was none (or another).
local sid = redis.call('GET', KEYS[1])
if not sid or (ARGV[1] ~= '' and ARGV[1] ~= sid) then
    return 0
end
local o = redis.call('HMGET', 'seek:' .. sid, 'zset', 'node')
if o[1] then
    redis.call('ZREM', o[1], sid)
end
redis.call('ZREM', 'seeks:all', sid)
if o[2] then
    redis.call('SREM', 'node:' .. o[2] .. ':seeks', sid)
end
local a = redis.call('HGET', 'seek:' .. sid, 'addr')
if a and a ~= '' then
    redis.call('SREM', 'seekaddr:' .. a, sid)
end
redis.call('DEL', 'seek:' .. sid, KEYS[1])
return 1
