-- node_up.lua - this node joins the cluster, or comes back to it, under
-- a new incarnation (docs/cluster.md, "Placement"). The node's lease is
-- its liveness key: while node:N:alive exists, every game whose
-- game:G:host names N is N's, and no other node may take it.
--
-- KEYS[1] node:N:alive   the incarnation, with the lease as its TTL
-- KEYS[2] nodes          the set of every node that may host games
-- ARGV[1] node id N, ARGV[2] incarnation (random, new at each start and
--         after each lapse), ARGV[3] lease in ms (> 0), ARGV[4] the
--         node's wall clock (Unix ms), kept in node:N:seen (no TTL): the
--         last moment N was known alive, which an adopter of its games
--         charges the side to move up to
--
-- Returns 1, or 0 when another incarnation of N holds the lease: another
-- live process has this node id (a mistake in the settings), or this
-- node's previous one has not lapsed yet (a restart within the lease:
-- the caller tries again at its next tick). A paused incarnation of N
-- whose lease lapsed loses it with this: its next node_renew answers 0.
local node, inc, ms = ARGV[1], ARGV[2], tonumber(ARGV[3])
if not node or node == '' or not inc or inc == '' or not ms or ms <= 0 then
    return redis.error_reply('ERR node_up: node, incarnation, lease ms > 0')
end
local held = redis.call('GET', KEYS[1])
if held and held ~= inc then
    return 0
end
redis.call('SET', KEYS[1], inc, 'PX', ms)
redis.call('SET', 'node:' .. node .. ':seen', ARGV[4] or '0')
-- (a stopped incarnation's mark: this one is not stopping)
redis.call('DEL', 'node:' .. node .. ':draining')
redis.call('SADD', KEYS[2], node)
return 1
