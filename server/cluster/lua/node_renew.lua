#!lua
-- node_renew.lua - extend this node's lease, only while the incarnation
-- that took it still holds it.
--
-- KEYS[1] nodes (node_up.lua)
-- ARGV[1] node id N, ARGV[2] incarnation, ARGV[3] lease in ms (> 0),
-- ARGV[4] the node's wall clock (Unix ms), kept as its last sign of
-- life, ARGV[5] the games it hosts (optional: 0), ARGV[6] '1' while it
-- stops (SIGTERM: nobody hands it games; nodes.lua, nodes_dead.lua)
--
-- Returns 1 when renewed (the lease runs ARGV[3] ms from now); 0 when
-- the lease lapsed (the node was paused or cut off for longer than the
-- lease, or Redis restarted) or another incarnation holds it. A node
-- that gets 0 takes a new incarnation (node_up) and takes each of its
-- games again (game_take): those another node adopted meanwhile are no
-- longer its own.
local node, inc, ms = ARGV[1], ARGV[2], tonumber(ARGV[3])
if not node or node == '' or not ms or ms <= 0 then
    return redis.error_reply('ERR node_renew: node, lease ms > 0')
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = redis.call('HGET', KEYS[1], node)
local hinc, till
if held then
    hinc, till = string.match(held, '^(%S+) (%d+)')
end
if not hinc or hinc ~= inc or tonumber(till) <= now then
    return 0
end
redis.call('HSET', KEYS[1], node,
           string.format('%s %d %s %d %d', inc, now + ms,
                         tonumber(ARGV[4] or '') and ARGV[4] or '0',
                         tonumber(ARGV[5] or '') or 0,
                         ARGV[6] == '1' and 1 or 0))
return 1
