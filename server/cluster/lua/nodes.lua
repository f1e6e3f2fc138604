#!lua
-- nodes.lua - the live nodes (their lease holds, and they are not
-- stopping) and how many games each hosted at its last renewal
-- (node_up.lua): a shutdown's handover goes to the least loaded, and
-- balance.c moves games until they are even (docs/cluster.md,
-- "Balance").
--
-- KEYS[1] nodes (node_up.lua)
--
-- Returns {node, games, node, games, ...}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all, out = redis.call('HGETALL', KEYS[1]), {}
for i = 1, #all, 2 do
    local till, games, stopping =
        string.match(all[i + 1], '^%S+ (%d+) %d+ ?(%d*) ?(%d*)')
    if till and tonumber(till) > now and stopping ~= '1' then
        out[#out + 1] = all[i]
        out[#out + 1] = tonumber(games) or 0
    end
end
return out
