-- node_renew.lua - extend this node's lease, only while the incarnation
-- that took it still holds it.
--
-- KEYS[1] node:N:alive, KEYS[2] node:N:seen, and KEYS[3] node:N:draining
-- when the node is stopping (SIGTERM): it is marked so for the lease,
-- and nobody hands it games (nodes.lua, game_handover.lua,
-- cluster_sweep.lua)
-- ARGV[1] incarnation, ARGV[2] lease in ms (> 0), ARGV[3] the node's
-- wall clock (Unix ms), kept in node:N:seen when renewed (node_up)
--
-- Returns 1 when renewed (the lease runs ARGV[2] ms from now); 0 when
-- the lease lapsed (the key expired: the node was paused or cut off for
-- longer than the lease, or Redis restarted) or another incarnation
-- holds it. A node that gets 0 takes a new incarnation (node_up) and
-- takes each of its games again (game_take): those another node adopted
-- meanwhile are no longer its own.
local ms = tonumber(ARGV[2])
if not ms or ms <= 0 then
    return redis.error_reply('ERR node_renew: lease ms > 0')
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ms)
    redis.call('SET', KEYS[2], ARGV[3] or '0')
    if KEYS[3] then
        redis.call('SET', KEYS[3], '1', 'PX', ms)
    end
    return 1
end
return 0
