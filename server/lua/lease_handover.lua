-- lease_handover.lua - hand game G from this node to another (SIGTERM:
-- ARCHITECTURE.md, "Failures"): a compare-and-set of the holder with a
-- new epoch, which the node names in its `adopt` message.
--
-- KEYS[1] game:G:host, KEYS[2] game:G:epoch
-- ARGV[1] this node's id, ARGV[2] the epoch it took,
-- ARGV[3] the new holder's id, ARGV[4] lease in ms (> 0)
--
-- Returns the new epoch (> ARGV[2]) when handed over: game:G:host is the
-- new holder's, with a fresh lease. Returns 0 when this node was not the
-- holder under that epoch (nothing changed).
local to, ms = ARGV[3], tonumber(ARGV[4])
if not to or to == '' or not ms or ms <= 0 then
    return redis.error_reply('ERR lease_handover: new holder, lease ms > 0')
end
if redis.call('GET', KEYS[1]) == ARGV[1]
        and tonumber(redis.call('GET', KEYS[2])) == tonumber(ARGV[2]) then
    redis.call('SET', KEYS[1], to, 'PX', ms)
    return redis.call('INCR', KEYS[2])
end
return 0
