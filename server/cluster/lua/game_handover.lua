-- game_handover.lua - hand game G from this node to another live one
-- (SIGTERM, or to balance the load: docs/cluster.md, "Failures" and
-- "Balance"): a compare-and-set of the host with a new epoch, which this
-- node names in its adopt message.
--
-- KEYS[1] game:G:host, KEYS[2] game:G:epoch
-- ARGV[1] this node's id, ARGV[2] the new host's id, ARGV[3] G
--
-- Returns the new epoch when handed over; 0 when this node does not
-- host G, or the new host's lease has lapsed or it is stopping
-- (node:N:draining, node_renew.lua): nothing changed. A repeat
-- (its first answer lost with the connection) finds G at the new host
-- already and returns G's epoch again.
local from, to, gid = ARGV[1], ARGV[2], ARGV[3]
if not to or to == '' or not gid or gid == '' or to == from then
    return redis.error_reply('ERR game_handover: new host, game')
end
local host = redis.call('GET', KEYS[1])
if host == to then
    return tonumber(redis.call('GET', KEYS[2])) or 0
end
if host ~= from or redis.call('EXISTS', 'node:' .. to .. ':alive') == 0
        or redis.call('EXISTS', 'node:' .. to .. ':draining') == 1 then
    return 0
end
redis.call('SET', KEYS[1], to)
redis.call('SREM', 'node:' .. from .. ':games', gid)
redis.call('SADD', 'node:' .. to .. ':games', gid)
return redis.call('INCR', KEYS[2])
