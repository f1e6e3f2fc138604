#!lua
-- seek_place.lua - place a seek, or take the oldest compatible one
-- (docs/cluster.md, "The lobby"; the rules of docs/PROTOCOL.md's
-- seeks and server/game/lobby.c). Atomic: seeks placed at once from any
-- number of nodes pair each seeker exactly once.
--
-- The lobby's keys, all of one hash tag (one slot in Redis Cluster),
-- the same for seek_cancel:
-- KEYS[1] lobby:{lobby}:seeks    hash: SID -> the seek (JSON: pid, node,
--                                clock, q, color, rated, rating, lo, hi,
--                                created, name, prov, addr, acct)
-- KEYS[2] lobby:{lobby}:queue    sorted set, every score 0: one member
--                                "CLOCK SEQ SID" per open seek (SEQ 16
--                                digits), so that a range of it by text
--                                is one clock's seeks, oldest first
-- KEYS[3] lobby:{lobby}:all      sorted set: SID scored by SEQ, the
--                                lobby's list (newest first, ZREVRANGE)
-- KEYS[4] lobby:{lobby}:seq      the placement counter
-- KEYS[5] lobby:{lobby}:seekers  hash: PID -> its one open seek's SID
-- KEYS[6] lobby:{lobby}:addrs    hash: address key -> its players' open
--                                seeks' SIDs, space-separated
--
-- ARGV[1] CLOCK: the caller's canonical form of the clock (no spaces),
-- so equal clocks pair; ARGV[2] sid (new, unique), ARGV[3] pid,
-- ARGV[4] node id, ARGV[5] colour wanted: white, black or random,
-- ARGV[6] rated: 1 or 0, ARGV[7] the player's rating (rounded; rated),
-- ARGV[8], ARGV[9] the rating range lo, hi (rated; '' for none),
-- ARGV[10] coin: 0 or 1, the new seeker's colour (0 white) when both
-- wanted random, ARGV[11] created (ms since the epoch; kept, not used),
-- ARGV[12] the player's name and ARGV[13] whether its rating is
-- provisional (1 or 0): for the lobby's list (lobby_snapshot.lua; both
-- optional). ARGV[14] the connection's address key (the per-address
-- limits') and ARGV[15] max_seeks_per_ip: the seek is refused
-- ({'too_many'}, nothing changed) when the players of that address hold
-- that many open seeks other than the placing player's (its entry in
-- KEYS[6], checked against KEYS[1]: a seek gone by any path is not
-- counted), ARGV[16] whether the player is an account (1 or 0),
-- ARGV[17] the players the seeker blocks, their PIDs separated by
-- spaces (optional; kept with the seek as its blocks).
--
-- The player's open seek, if any, is removed first (one open seek per
-- player). Two seeks pair when their clocks are equal, their colours
-- fit (random fits anything, white fits black), they belong to
-- different players, neither of whom blocks the other (each seek's
-- blocks as its player placed it), both are rated or both casual, and
-- for rated ones each range (when given) holds the other's rating,
-- bounds included.
--
-- Returns {'paired', sid, pid, node, colour, rating, created}: the
-- oldest compatible seek (removed; its fields) and the new seeker's
-- colour (white or black). Returns {'waiting', sid} when placed.
-- Cost: one pass over the clock's seeks, oldest first (as lobby.c).
local SEEKS, QUEUE, ALL, SEQ, SEEKERS, ADDRS =
    KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local clock, sid, pid, node = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local color, rated = ARGV[5], ARGV[6]
local rating = tonumber(ARGV[7])
local lo, hi = tonumber(ARGV[8]), tonumber(ARGV[9])
local coin = ARGV[10]
if not clock or clock == '' or string.find(clock, ' ')
        or not sid or sid == '' or not pid or pid == '' or not node
        or node == ''
        or (color ~= 'white' and color ~= 'black' and color ~= 'random')
        or (rated ~= '0' and rated ~= '1')
        or (rated == '1' and not rating)
        or ((lo or hi) and (rated ~= '1' or not lo or not hi or lo > hi))
        or (coin ~= '0' and coin ~= '1') then
    return redis.error_reply('ERR seek_place: bad arguments')
end

local function seek_of(osid)
    local j = redis.call('HGET', SEEKS, osid)
    return j and cjson.decode(j)
end

-- an address's open seeks, without those gone (written back if any)
local function addr_sids(a)
    local out, all = {}, redis.call('HGET', ADDRS, a) or ''
    for s in string.gmatch(all, '%S+') do
        if redis.call('HEXISTS', SEEKS, s) == 1 then
            out[#out + 1] = s
        end
    end
    return out
end

local function addr_put(a, sids)
    if #sids == 0 then
        redis.call('HDEL', ADDRS, a)
    else
        redis.call('HSET', ADDRS, a, table.concat(sids, ' '))
    end
end

-- a seek (o: its record) leaves every key
local function remove(osid, o)
    redis.call('ZREM', QUEUE, o.q)
    redis.call('ZREM', ALL, osid)
    redis.call('HDEL', SEEKS, osid)
    if redis.call('HGET', SEEKERS, o.pid) == osid then
        redis.call('HDEL', SEEKERS, o.pid)
    end
    if o.addr ~= '' then
        addr_put(o.addr, addr_sids(o.addr))
    end
end

-- the address's other open seeks
local addr, max_addr = ARGV[14] or '', tonumber(ARGV[15] or '')
if addr ~= '' and max_addr then
    local held = 0
    for _, osid in ipairs(addr_sids(addr)) do
        local o = seek_of(osid)
        if o.pid ~= pid then
            held = held + 1
        end
    end
    if held >= max_addr then
        return {'too_many'}
    end
end

-- the player's open seek goes
local old = redis.call('HGET', SEEKERS, pid)
if old then
    local o = seek_of(old)
    if o then
        remove(old, o)
    else
        redis.call('HDEL', SEEKERS, pid)
    end
end

-- the players the seeker blocks
local blocked = {}
for b in string.gmatch(ARGV[17] or '', '%S+') do
    blocked[b] = true
end

-- true when list (PIDs separated by spaces) names who
local function names(list, who)
    return string.find(' ' .. (list or '') .. ' ', ' ' .. who .. ' ', 1,
                       true) ~= nil
end

local function fits(o)
    if o.pid == pid or o.rated ~= rated then
        return false
    end
    if blocked[o.pid] or names(o.blocks, pid) then
        return false
    end
    if o.color ~= 'random' and color ~= 'random' and o.color == color then
        return false
    end
    if rated == '1' then
        local orating, olo, ohi = tonumber(o.rating), tonumber(o.lo),
                                  tonumber(o.hi)
        if olo and (rating < olo or rating > ohi) then
            return false
        end
        if lo and (orating < lo or orating > hi) then
            return false
        end
    end
    return true
end

for _, q in ipairs(redis.call('ZRANGEBYLEX', QUEUE, '[' .. clock .. ' ',
                              '(' .. clock .. '!')) do
    local osid = string.match(q, '(%S+)$')
    local o = seek_of(osid)
    if not o then
        redis.call('ZREM', QUEUE, q) -- a stale entry
        redis.call('ZREM', ALL, osid)
    elseif fits(o) then
        remove(osid, o)
        local mine
        if color == 'white' or o.color == 'black' then
            mine = 'white'
        elseif color == 'black' or o.color == 'white' then
            mine = 'black'
        else
            mine = coin == '0' and 'white' or 'black'
        end
        return {'paired', osid, o.pid, o.node, mine, o.rating, o.created}
    end
end

local seq = redis.call('INCR', SEQ)
local q = string.format('%s %016d %s', clock, seq, sid)
redis.call('HSET', SEEKS, sid, cjson.encode({
    pid = pid, node = node, clock = clock, q = q, color = color,
    rated = rated, rating = ARGV[7], lo = ARGV[8], hi = ARGV[9],
    created = ARGV[11] or '0', name = ARGV[12] or '',
    prov = ARGV[13] or '0', addr = addr, acct = ARGV[16] or '0',
    blocks = ARGV[17] or ''}))
if addr ~= '' then
    local sids = addr_sids(addr)
    sids[#sids + 1] = sid
    addr_put(addr, sids)
end
redis.call('ZADD', QUEUE, 0, q)
redis.call('ZADD', ALL, seq, sid)
redis.call('HSET', SEEKERS, pid, sid)
return {'waiting', sid}
