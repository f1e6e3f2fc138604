#!lua
-- seek_cancel.lua - remove open seeks: a player's (cancel_seek, or the
-- close of the connection that made it), one by its id (accept's take:
-- of two takers, one gets it), or every seek of a dead node (the sweep:
-- nobody is there to play them).
--
-- KEYS[1] lobby:{lobby}:seeks, KEYS[2] lobby:{lobby}:queue,
-- KEYS[3] lobby:{lobby}:all, KEYS[4] lobby:{lobby}:seekers,
-- KEYS[5] lobby:{lobby}:addrs (seek_place.lua)
-- ARGV[1] what: 'player' (ARGV[2] the player's id, ARGV[3] the seek's
--         id to remove only that one: a connection's close, the player
--         may have placed a newer seek since; '' whichever is open),
--         'seek' (ARGV[2] its id) or 'node' (ARGV[2] the node's id)
--
-- Returns how many seeks were removed (0 or 1 but for 'node'), each
-- gone from every key: the queue, the lobby's list, its player's open
-- seek, its address's. Cost: 'node' reads every open seek (a node's
-- death is rare; the lobby holds at most one seek a player).
local SEEKS, QUEUE, ALL, SEEKERS, ADDRS =
    KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local what, id, only = ARGV[1], ARGV[2] or '', ARGV[3] or ''

-- the address's open seeks, those gone left out
local function prune(a)
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

-- seek sid (o: its record) leaves every key but its address's
local function remove(sid, o)
    redis.call('ZREM', QUEUE, o.q)
    redis.call('ZREM', ALL, sid)
    redis.call('HDEL', SEEKS, sid)
    if redis.call('HGET', SEEKERS, o.pid) == sid then
        redis.call('HDEL', SEEKERS, o.pid)
    end
end

if what == 'node' then
    local all, n, addrs = redis.call('HGETALL', SEEKS), 0, {}
    for i = 1, #all, 2 do
        local o = cjson.decode(all[i + 1])
        if o.node == id then
            remove(all[i], o)
            addrs[o.addr] = true
            n = n + 1
        end
    end
    for a in pairs(addrs) do
        if a ~= '' then
            prune(a)
        end
    end
    return n
end
local sid = id
if what == 'player' then
    sid = redis.call('HGET', SEEKERS, id)
    if not sid or (only ~= '' and only ~= sid) then
        return 0
    end
    redis.call('HDEL', SEEKERS, id)
elseif what ~= 'seek' then
    return redis.error_reply('ERR seek_cancel: player, seek or node')
end
local j = redis.call('HGET', SEEKS, sid)
if not j then
    return 0
end
local o = cjson.decode(j)
remove(sid, o)
if o.addr ~= '' then
    prune(o.addr)
end
return 1
