#!lua
-- seeks_drop.lua - a dead node's open seeks go (the sweep: nodes_dead.lua):
-- nobody is there to play them.
--
-- KEYS[1] lobby:{lobby}:seeks, KEYS[2] lobby:{lobby}:queue,
-- KEYS[3] lobby:{lobby}:all, KEYS[4] lobby:{lobby}:seekers,
-- KEYS[5] lobby:{lobby}:addrs (seek_place.lua)
-- ARGV[1] the dead node's id
--
-- Returns how many seeks went. Cost: one pass over every open seek (a
-- node's death is rare; the lobby holds at most one seek a player).
local SEEKS, QUEUE, ALL, SEEKERS, ADDRS =
    KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local all, n, addrs = redis.call('HGETALL', SEEKS), 0, {}
for i = 1, #all, 2 do
    local sid, o = all[i], cjson.decode(all[i + 1])
    if o.node == ARGV[1] then
        redis.call('ZREM', QUEUE, o.q)
        redis.call('ZREM', ALL, sid)
        redis.call('HDEL', SEEKS, sid)
        if redis.call('HGET', SEEKERS, o.pid) == sid then
            redis.call('HDEL', SEEKERS, o.pid)
        end
        if o.addr ~= '' then
            addrs[o.addr] = true
        end
        n = n + 1
    end
end
for a in pairs(addrs) do
    local left = {}
    for s in string.gmatch(redis.call('HGET', ADDRS, a) or '', '%S+') do
        if redis.call('HEXISTS', SEEKS, s) == 1 then
            left[#left + 1] = s
        end
    end
    if #left == 0 then
        redis.call('HDEL', ADDRS, a)
    else
        redis.call('HSET', ADDRS, a, table.concat(left, ' '))
    end
end
return n
