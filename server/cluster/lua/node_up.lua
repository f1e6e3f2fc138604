#!lua
-- node_up.lua - this node joins the cluster, or comes back to it, under
-- a new incarnation (docs/cluster.md, "Placement"). The node's lease is
-- its entry in the hash of nodes: while it lasts, every game whose
-- game:{G}:host names N is N's, and no other node may take it.
--
-- KEYS[1] nodes: node id -> "INC UNTIL SEEN GAMES STOPPING": the
--         incarnation holding the lease, until when it holds (Redis's
--         clock, Unix ms), the node's own wall clock at its last renewal
--         (Unix ms: the last moment N was known alive, which an adopter
--         of its games charges the side to move up to), how many games
--         it hosted then (the balance's and the sweep's loads: nodes.lua,
--         nodes_dead.lua), and 1 while it stops (SIGTERM: nobody hands
--         it games), else 0. One key for every node, so that a script
--         reads any node's lease (Redis Cluster: one slot).
-- ARGV[1] node id N, ARGV[2] incarnation (random, new at each start and
--         after each lapse), ARGV[3] lease in ms (> 0), ARGV[4] the
--         node's wall clock (Unix ms), ARGV[5] the games it hosts
--         (optional: 0)
--
-- Returns 1, or 0 when another incarnation of N holds the lease: another
-- live process has this node id (a mistake in the settings), or this
-- node's previous one has not lapsed yet (a restart within the lease:
-- the caller tries again at its next tick). A paused incarnation of N
-- whose lease lapsed loses it with this: its next node_renew answers 0.
-- A new incarnation is not stopping.
local node, inc, ms = ARGV[1], ARGV[2], tonumber(ARGV[3])
if not node or node == '' or not inc or inc == '' or string.find(inc, ' ')
        or not ms or ms <= 0 then
    return redis.error_reply('ERR node_up: node, incarnation, lease ms > 0')
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = redis.call('HGET', KEYS[1], node)
if held then
    local hinc, till = string.match(held, '^(%S+) (%d+)')
    if hinc and hinc ~= inc and tonumber(till) > now then
        return 0
    end
end
redis.call('HSET', KEYS[1], node,
           string.format('%s %d %s %d 0', inc, now + ms,
                         tonumber(ARGV[4] or '') and ARGV[4] or '0',
                         tonumber(ARGV[5] or '') or 0))
return 1
