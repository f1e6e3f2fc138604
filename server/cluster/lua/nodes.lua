-- nodes.lua - the live nodes (those of the set node_up adds to whose
-- lease holds and that are not stopping: node_renew.lua's
-- node:N:draining) and how many games each hosts (SCARD node:N:games,
-- which game_take, game_handover and game_release keep): a handover
-- goes to the least loaded, and balance.c moves games until they are
-- even (docs/cluster.md, "Balance").
--
-- KEYS[1] nodes
--
-- Returns {node, games, node, games, ...}.
local out = {}
for _, n in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    if redis.call('EXISTS', 'node:' .. n .. ':alive') == 1
            and redis.call('EXISTS', 'node:' .. n .. ':draining') == 0 then
        out[#out + 1] = n
        out[#out + 1] = redis.call('SCARD', 'node:' .. n .. ':games')
    end
end
return out
