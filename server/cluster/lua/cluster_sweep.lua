-- cluster_sweep.lua - the nodes whose lease has lapsed and the games
-- they still host (docs/cluster.md, "Failures"), for a live node to
-- adopt with game_take.
--
-- KEYS[1] nodes
-- ARGV[1] this node's id, ARGV[2] at most this many games per dead node,
-- ARGV[3] this node's wall clock (Unix ms) and ARGV[4] a time in ms
-- (both optional: 0): the games of a node dead for less than ARGV[4]
-- (node:N:seen, its last renewal, against ARGV[3]) are shared by load.
--
-- Returns {node, n, g1 .. gn, node, n, ...}: each other node of the set
-- whose node:N:alive is gone, how many of its games follow and up to
-- ARGV[2] of them (another sweep gets the rest), but not a dead node
-- whose games are all other nodes' shares (below). A dead node's open
-- seeks (node:N:seeks, seek_place.lua) are removed: nobody is there to
-- play them. A dead node without games leaves the set.
--
-- Shared by load: every live node runs this sweep each tick, and each
-- (but those stopping) gets only its share of the games of the nodes
-- that died lately: what fills the live nodes up to one level (the live
-- nodes' games, SCARD node:N:games, plus the dead ones', over the live
-- nodes), less what it hosts; so the least loaded adopt the most. The
-- shares are slices, in the live nodes' name order, of the dead nodes'
-- games in the order SMEMBERS lists them: nodes that sweep the same
-- state get games apart (a game two nodes got anyway goes to the first
-- take; what nobody took is shared again at the next sweep). Past
-- ARGV[4] every sweep gets every game (up to ARGV[2]): a live node that
-- cannot adopt its share holds up nobody.
local self, max = ARGV[1], tonumber(ARGV[2])
local now, share_ms = tonumber(ARGV[3] or '0'), tonumber(ARGV[4] or '0')
if not max or max < 1 or not now or not share_ms then
    return redis.error_reply('ERR cluster_sweep: max >= 1, now, share ms')
end
local dead, live, shared = {}, {}, 0
for _, n in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    local games = redis.call('SCARD', 'node:' .. n .. ':games')
    if n == self or (redis.call('EXISTS', 'node:' .. n .. ':alive') == 1
            and redis.call('EXISTS', 'node:' .. n .. ':draining') == 0) then
        live[#live + 1] = {n, games} -- (a stopping node adopts none)
    elseif redis.call('EXISTS', 'node:' .. n .. ':alive') == 0 then
        local seen = tonumber(redis.call('GET', 'node:' .. n .. ':seen')) or 0
        local lately = share_ms > 0 and now - seen < share_ms
        dead[#dead + 1] = {n, lately}
        if lately then
            shared = shared + games
        end
    end
end
-- the level: the least loaded nodes filled up to it hold every game;
-- this node's slice is [from, upto] of the lately dead nodes' games
local from, upto = 1, 0
if shared > 0 then
    local loads = {}
    for i, l in ipairs(live) do
        loads[i] = l[2]
    end
    table.sort(loads)
    local sum, level = 0, 0
    for i = 1, #loads do
        sum = sum + loads[i]
        level = math.ceil((sum + shared) / i)
        if i == #loads or level <= loads[i + 1] then
            break
        end
    end
    table.sort(live, function(a, b) return a[1] < b[1] end)
    local at = 0
    for _, l in ipairs(live) do
        local share = math.max(0, level - l[2])
        if l[1] == self then
            from, upto = at + 1, at + math.min(share, max)
            break
        end
        at = at + share
    end
end
local out, pos = {}, 0
for _, d in ipairs(dead) do
    local n = d[1]
    for _, sid in ipairs(redis.call('SMEMBERS', 'node:' .. n .. ':seeks')) do
        local o = redis.call('HMGET', 'seek:' .. sid, 'zset', 'pid',
                             'addr')
        if o[1] then
            redis.call('ZREM', o[1], sid)
        end
        if o[3] and o[3] ~= '' then
            redis.call('SREM', 'seekaddr:' .. o[3], sid)
        end
        redis.call('ZREM', 'seeks:all', sid)
        if o[2] and redis.call('GET', 'seeker:' .. o[2]) == sid then
            redis.call('DEL', 'seeker:' .. o[2])
        end
        redis.call('DEL', 'seek:' .. sid)
    end
    redis.call('DEL', 'node:' .. n .. ':seeks')
    local key = 'node:' .. n .. ':games'
    local games = {}
    if redis.call('SCARD', key) == 0 then
        redis.call('SREM', KEYS[1], n)
    elseif d[2] then
        local all = redis.call('SMEMBERS', key)
        for i, g in ipairs(all) do
            if pos + i >= from and pos + i <= upto then
                games[#games + 1] = g
            end
        end
        pos = pos + #all
    else
        games = redis.call('SRANDMEMBER', key, max)
    end
    if #games > 0 or redis.call('SCARD', key) == 0 then
        out[#out + 1] = n
        out[#out + 1] = #games
        for _, g in ipairs(games) do
            out[#out + 1] = g
        end
    end
end
return out
