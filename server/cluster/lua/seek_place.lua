-- seek_place.lua - place a seek, or take the oldest compatible one
-- (docs/cluster.md, "The lobby"; the rules of docs/PROTOCOL.md's
-- seeks and server/game/lobby.c). Atomic: seeks placed at once from any
-- number of nodes pair each seeker exactly once.
--
-- KEYS[1] seeks:CLOCK   sorted set of the open seeks with this clock
--                       (CLOCK: the caller's canonical form of the
--                       clock, so equal clocks share the set), scored by
--                       placement number, oldest first
-- KEYS[2] seeker:PID    the id of the placing player's open seek
-- KEYS[3] seeks:seq     the placement counter
-- Each seek is also a hash seek:SID (pid, node, zset, color, rated,
-- rating, lo, hi, created) and a member of its node's set node:N:seeks
-- (so that a dead node's seeks go with it: cluster_sweep.lua), and a
-- pairing deletes the other player's
-- seeker:PID: keys named inside the script, so it needs one Redis (not
-- Redis Cluster), as the design has.
--
-- ARGV[1] sid (new, unique), ARGV[2] pid, ARGV[3] node id,
-- ARGV[4] colour wanted: white, black or random,
-- ARGV[5] rated: 1 or 0, ARGV[6] the player's rating (rounded; rated),
-- ARGV[7], ARGV[8] the rating range lo, hi (rated; '' for none),
-- ARGV[9] coin: 0 or 1, the new seeker's colour (0 white) when both
-- wanted random, ARGV[10] created (ms since the epoch; kept, not used),
-- ARGV[11] the player's name and ARGV[12] whether its rating is
-- provisional (1 or 0): for the lobby's list (lobby_snapshot.lua; both
-- optional). Every open seek is also in the sorted set seeks:all, scored
-- as in its clock's set: the lobby's list (newest first, ZREVRANGE).
-- ARGV[13] the connection's address key (the per-address limits') and
-- ARGV[14] max_seeks_per_ip: the seek is refused ({'too_many'}, nothing
-- changed) when the players of that address hold that many open seeks
-- other than the placing player's (the set seekaddr:ADDR, its members
-- checked: a seek gone by any path is not counted), ARGV[15] whether the
-- player is an account (1 or 0), for the lobby's list.
--
-- The player's open seek, if any, is removed first (one open seek per
-- player). Two seeks pair when their clocks are equal (same set), their
-- colours fit (random fits anything, white fits black), they belong to
-- different players, both are rated or both casual, and for rated ones
-- each range (when given) holds the other's rating, bounds included.
--
-- Returns {'paired', sid, pid, node, colour, rating, created}: the
-- oldest compatible seek (removed; its fields) and the new seeker's
-- colour (white or black). Returns {'waiting', sid} when placed.
-- Cost: one pass over the set's seeks, oldest first (as lobby.c).
local sid, pid, node = ARGV[1], ARGV[2], ARGV[3]
local color, rated = ARGV[4], ARGV[5]
local rating = tonumber(ARGV[6])
local lo, hi = tonumber(ARGV[7]), tonumber(ARGV[8])
local coin = ARGV[9]
if not sid or sid == '' or not pid or pid == '' or not node or node == ''
        or (color ~= 'white' and color ~= 'black' and color ~= 'random')
        or (rated ~= '0' and rated ~= '1')
        or (rated == '1' and not rating)
        or ((lo or hi) and (rated ~= '1' or not lo or not hi or lo > hi))
        or (coin ~= '0' and coin ~= '1') then
    return redis.error_reply('ERR seek_place: bad arguments')
end

-- the address's other open seeks (its set, pruned of the gone)
local addr, max_addr = ARGV[13] or '', tonumber(ARGV[14] or '')
if addr ~= '' and max_addr then
    local held = 0
    for _, osid in ipairs(redis.call('SMEMBERS', 'seekaddr:' .. addr)) do
        local opid = redis.call('HGET', 'seek:' .. osid, 'pid')
        if not opid then
            redis.call('SREM', 'seekaddr:' .. addr, osid)
        elseif opid ~= pid then
            held = held + 1
        end
    end
    if held >= max_addr then
        return {'too_many'}
    end
end

local function unaddr(osid)
    local a = redis.call('HGET', 'seek:' .. osid, 'addr')
    if a and a ~= '' then
        redis.call('SREM', 'seekaddr:' .. a, osid)
    end
end

-- the player's open seek goes
local old = redis.call('GET', KEYS[2])
if old then
    local o = redis.call('HMGET', 'seek:' .. old, 'zset', 'node')
    if o[1] then
        redis.call('ZREM', o[1], old)
    end
    redis.call('ZREM', 'seeks:all', old)
    if o[2] then
        redis.call('SREM', 'node:' .. o[2] .. ':seeks', old)
    end
    unaddr(old)
    redis.call('DEL', 'seek:' .. old, KEYS[2])
end

local function fits(o)
    local opid, ocolor, orated = o[1], o[2], o[3]
    if opid == pid or orated ~= rated then
        return false
    end
    if ocolor ~= 'random' and color ~= 'random' and ocolor == color then
        return false
    end
    if rated == '1' then
        local orating, olo, ohi = tonumber(o[4]), tonumber(o[5]), tonumber(o[6])
        if olo and (rating < olo or rating > ohi) then
            return false
        end
        if lo and (orating < lo or orating > hi) then
            return false
        end
    end
    return true
end

for _, osid in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local o = redis.call('HMGET', 'seek:' .. osid,
                         'pid', 'color', 'rated', 'rating', 'lo', 'hi',
                         'node', 'created')
    if not o[1] then
        redis.call('ZREM', KEYS[1], osid) -- a stale entry
        redis.call('ZREM', 'seeks:all', osid)
    elseif fits(o) then
        redis.call('ZREM', KEYS[1], osid)
        redis.call('ZREM', 'seeks:all', osid)
        redis.call('SREM', 'node:' .. o[7] .. ':seeks', osid)
        unaddr(osid)
        redis.call('DEL', 'seek:' .. osid)
        if redis.call('GET', 'seeker:' .. o[1]) == osid then
            redis.call('DEL', 'seeker:' .. o[1])
        end
        local mine
        if color == 'white' or o[2] == 'black' then
            mine = 'white'
        elseif color == 'black' or o[2] == 'white' then
            mine = 'black'
        else
            mine = coin == '0' and 'white' or 'black'
        end
        return {'paired', osid, o[1], o[7], mine, o[4], o[8]}
    end
end

local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', 'seek:' .. sid, 'pid', pid, 'node', node,
           'zset', KEYS[1], 'color', color, 'rated', rated,
           'rating', ARGV[6], 'lo', ARGV[7], 'hi', ARGV[8],
           'created', ARGV[10] or '0', 'name', ARGV[11] or '',
           'prov', ARGV[12] or '0', 'addr', addr,
           'acct', ARGV[15] or '0')
if addr ~= '' then
    redis.call('SADD', 'seekaddr:' .. addr, sid)
end
redis.call('ZADD', KEYS[1], seq, sid)
redis.call('ZADD', 'seeks:all', seq, sid)
redis.call('SADD', 'node:' .. node .. ':seeks', sid)
redis.call('SET', KEYS[2], sid)
return {'waiting', sid}
