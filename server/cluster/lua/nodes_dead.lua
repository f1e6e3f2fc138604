#!lua
-- nodes_dead.lua - the nodes whose lease has lapsed, for the sweep of a
-- live node (docs/cluster.md, "Failures"): their games are adopted
-- (node_games.lua on every shard, then game_take.lua), their seeks
-- dropped (seek_cancel.lua), and a dead node without games left is
-- forgotten (node_forget.lua).
--
-- KEYS[1] nodes (node_up.lua)
-- ARGV[1] this node's id (never in the answer)
--
-- Returns {node, seen, node, seen, ...}: each lapsed node and its last
-- sign of life (Unix ms).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all, out = redis.call('HGETALL', KEYS[1]), {}
for i = 1, #all, 2 do
    local till, seen = string.match(all[i + 1], '^%S+ (%d+) (%d+)')
    if all[i] ~= ARGV[1] and (not till or tonumber(till) <= now) then
        out[#out + 1] = all[i]
        out[#out + 1] = seen or '0'
    end
end
return out
