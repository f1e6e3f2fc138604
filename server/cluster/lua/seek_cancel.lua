#!lua
-- seek_cancel.lua - remove a player's open seek (cancel_seek, or the
-- close of the connection that made it).
--
-- KEYS[1] lobby:{lobby}:seeks, KEYS[2] lobby:{lobby}:queue,
-- KEYS[3] lobby:{lobby}:all, KEYS[4] lobby:{lobby}:seekers,
-- KEYS[5] lobby:{lobby}:addrs (seek_place.lua)
-- ARGV[1] the player's id, ARGV[2] the seek's id to remove only that
--         one (a connection's close: the player may have placed a newer
--         seek since), or '' for whichever seek the player has open
--
-- Returns 1 when a seek was removed, 0 when there was none (or another).
local SEEKS, QUEUE, ALL, SEEKERS, ADDRS =
    KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local pid, want = ARGV[1] or '', ARGV[2] or ''
local sid = redis.call('HGET', SEEKERS, pid)
if not sid or (want ~= '' and want ~= sid) then
    return 0
end
redis.call('HDEL', SEEKERS, pid)
local j = redis.call('HGET', SEEKS, sid)
if not j then
    return 0
end
local o = cjson.decode(j)
redis.call('ZREM', QUEUE, o.q)
redis.call('ZREM', ALL, sid)
redis.call('HDEL', SEEKS, sid)
if o.addr ~= '' then
    local left = {}
    for s in string.gmatch(redis.call('HGET', ADDRS, o.addr) or '', '%S+') do
        if redis.call('HEXISTS', SEEKS, s) == 1 then
            left[#left + 1] = s
        end
    end
    if #left == 0 then
        redis.call('HDEL', ADDRS, o.addr)
    else
        redis.call('HSET', ADDRS, o.addr, table.concat(left, ' '))
    end
end
return 1
