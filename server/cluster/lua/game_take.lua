#!lua
-- game_take.lua - host game G on this node: a new game, an adoption of a
-- dead node's game, or this node's own game taken again after its lease
-- lapsed (docs/cluster.md, "Placement"). A compare-and-set: the caller
-- has checked that the host it names dead has no lease (node_alive.lua;
-- cluster/take.c runs the steps), since a game's keys and the nodes'
-- leases are on different shards.
--
-- KEYS[1] game:{G}:host    the hosting node's id (no TTL: the host's
--                          lease is its entry in nodes)
-- KEYS[2] game:{G}:epoch   the fencing counter (only grows)
--                          (one hash tag: one slot in Redis Cluster)
-- ARGV[1] this node's id,
-- ARGV[2] floor: the game's epoch in PostgreSQL, or 0. Redis without
--         persistence loses the counter on a restart; the floor keeps
--         every new epoch above every old one.
-- ARGV[3] the host the caller found dead ('' none)
--
-- Taken when nobody hosts G, when its host is this node, or when its
-- host is ARGV[3]: the host becomes this node, and the epoch goes up
-- (above the floor), so every taking has a new epoch. Returns {epoch,
-- node, previous host ('' none)}; {0, host} when another node hosts G
-- (the caller checks its lease, and names it in ARGV[3] if it lapsed).
local node, floor, dead = ARGV[1], tonumber(ARGV[2]), ARGV[3] or ''
if not node or node == '' or not floor or floor < 0 then
    return redis.error_reply('ERR game_take: node, floor >= 0')
end
local host = redis.call('GET', KEYS[1])
if host and host ~= node and host ~= dead then
    return {0, host}
end
redis.call('SET', KEYS[1], node)
local epoch = redis.call('INCR', KEYS[2])
if epoch <= floor then
    epoch = floor + 1
    redis.call('SET', KEYS[2], string.format('%d', epoch))
end
return {epoch, node, host or ''}
