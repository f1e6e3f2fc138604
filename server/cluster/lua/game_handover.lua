#!lua
-- game_handover.lua - hand game G from this node to another live one
-- (SIGTERM, or to balance the load: docs/cluster.md, "Failures" and
-- "Balance"): a compare-and-set of the host with a new epoch, which this
-- node names in its adopt message. The caller picked the new host among
-- the live nodes (nodes.lua): its lease is on another shard.
--
-- KEYS[1] game:{G}:host, KEYS[2] game:{G}:epoch
-- ARGV[1] this node's id, ARGV[2] the new host's id
--
-- Returns the new epoch when handed over; 0 when this node does not
-- host G (nothing changed). A repeat (its first answer lost with the
-- connection) finds G at the new host already and returns G's epoch
-- again.
local from, to = ARGV[1], ARGV[2]
if not to or to == '' or to == from then
    return redis.error_reply('ERR game_handover: new host')
end
local host = redis.call('GET', KEYS[1])
if host == to then
    return tonumber(redis.call('GET', KEYS[2])) or 0
end
if host ~= from then
    return 0
end
redis.call('SET', KEYS[1], to)
return redis.call('INCR', KEYS[2])
