-- cluster_sweep.lua - the nodes whose lease has lapsed and the games
-- they still host (docs/cluster.md, "Failures"), for a live node to
-- adopt with game_take.
--
-- KEYS[1] nodes
-- ARGV[1] this node's id, ARGV[2] at most this many games per dead node
--
-- Returns {node, n, g1 .. gn, node, n, ...}: each other node of the set
-- whose node:N:alive is gone, how many of its games follow and up to
-- ARGV[2] of them (another sweep gets the rest). A dead node's open
-- seeks (node:N:seeks, seek_place.lua) are removed: nobody is there to
-- play them. A dead node without games leaves the set.
local self, max = ARGV[1], tonumber(ARGV[2])
if not max or max < 1 then
    return redis.error_reply('ERR cluster_sweep: max >= 1')
end
local out = {}
for _, n in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    if n ~= self and redis.call('EXISTS', 'node:' .. n .. ':alive') == 0 then
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
        local games = redis.call('SRANDMEMBER', 'node:' .. n .. ':games', max)
        if #games == 0 then
            redis.call('SREM', KEYS[1], n)
        end
        out[#out + 1] = n
        out[#out + 1] = #games
        for _, g in ipairs(games) do
            out[#out + 1] = g
        end
    end
end
return out
