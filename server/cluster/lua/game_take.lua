-- game_take.lua - host game G on this node: a new game, an adoption of a
-- dead node's game, or this node's own game taken again after its lease
-- lapsed (docs/cluster.md, "Placement").
--
-- KEYS[1] game:G:host    the hosting node's id (no TTL: the host's
--                        node:N:alive is the lease)
-- KEYS[2] game:G:epoch   the fencing counter (only grows)
-- ARGV[1] this node's id, ARGV[2] G,
-- ARGV[3] floor: the game's epoch in PostgreSQL, or 0. Redis without
--         persistence loses the counter on a restart; the floor keeps
--         every new epoch above every old one.
--
-- Taken when nobody hosts G, when its host is this node, or when its
-- host's lease has lapsed (node:H:alive is gone): the host becomes this
-- node, G moves to node:N:games (from the old host's set), and the
-- epoch goes up (above the floor), so every taking has a new epoch.
-- Returns {epoch, node}, and when G was a dead node's {epoch, node,
-- seen}: the dead host's node:H:seen, the last time it was known alive
-- (0 when unknown). Returns {0, host} when a live other node hosts G.
local node, gid, floor = ARGV[1], ARGV[2], tonumber(ARGV[3])
if not node or node == '' or not gid or gid == '' or not floor
        or floor < 0 then
    return redis.error_reply('ERR game_take: node, game, floor >= 0')
end
local host = redis.call('GET', KEYS[1])
if host and host ~= node and redis.call('EXISTS', 'node:' .. host .. ':alive') == 1 then
    return {0, host}
end
local seen = nil
if host and host ~= node then
    redis.call('SREM', 'node:' .. host .. ':games', gid)
    seen = tonumber(redis.call('GET', 'node:' .. host .. ':seen')) or 0
end
redis.call('SET', KEYS[1], node)
redis.call('SADD', 'node:' .. node .. ':games', gid)
local epoch = redis.call('INCR', KEYS[2])
if epoch <= floor then
    epoch = floor + 1
    redis.call('SET', KEYS[2], string.format('%d', epoch))
end
if seen then
    return {epoch, node, seen}
end
return {epoch, node}
