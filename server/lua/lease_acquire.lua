-- lease_acquire.lua - take the lease of game G for this node
-- (ARCHITECTURE.md, "Placement"). Atomic, as every script.
--
-- KEYS[1] game:G:host   the holder's node id, with the lease as its TTL
-- KEYS[2] game:G:epoch  the fencing counter (no TTL: it only grows)
-- ARGV[1] node id, ARGV[2] lease in ms (> 0),
-- ARGV[3] floor: the highest epoch the caller knows of (the journal's),
--         or 0. Redis without persistence loses the counter on a
--         restart; the floor keeps every new epoch above every old one.
--
-- Returns {epoch, node} when taken: SET NX PX, then INCR of the epoch
-- (raised above the floor when needed), so each taking has a new epoch.
-- A node that already holds the lease takes it again with a new epoch
-- (a restarted process with the same node id fences its old self).
-- Returns {0, holder} when another node holds it.
local node, ms, floor = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if not node or node == '' or not ms or ms <= 0 or not floor or floor < 0 then
    return redis.error_reply('ERR lease_acquire: node, lease ms > 0, floor >= 0')
end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= node then
    return {0, holder}
end
if holder then
    redis.call('SET', KEYS[1], node, 'PX', ms)
elseif not redis.call('SET', KEYS[1], node, 'NX', 'PX', ms) then
    return {0, redis.call('GET', KEYS[1])}
end
local epoch = redis.call('INCR', KEYS[2])
if epoch <= floor then
    epoch = floor + 1
    redis.call('SET', KEYS[2], string.format('%d', epoch))
end
return {epoch, node}
