#!lua
-- seek_take.lua - take one open seek (accept: PROTOCOL.md section 5),
-- atomically: of two takers, one gets it.
--
-- KEYS[1] lobby:{lobby}:seeks, KEYS[2] lobby:{lobby}:queue,
-- KEYS[3] lobby:{lobby}:all, KEYS[4] lobby:{lobby}:seekers,
-- KEYS[5] lobby:{lobby}:addrs (seek_place.lua)
-- ARGV[1] SID
--
-- Returns 1 when taken (the seek is gone from every key: the queue, the
-- lobby's list, its player's open seek, its address's), 0 when it was no
-- longer open.
local SEEKS, QUEUE, ALL, SEEKERS, ADDRS =
    KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local sid = ARGV[1] or ''
local j = redis.call('HGET', SEEKS, sid)
if not j then
    return 0
end
local o = cjson.decode(j)
redis.call('ZREM', QUEUE, o.q)
redis.call('ZREM', ALL, sid)
redis.call('HDEL', SEEKS, sid)
if redis.call('HGET', SEEKERS, o.pid) == sid then
    redis.call('HDEL', SEEKERS, o.pid)
end
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
