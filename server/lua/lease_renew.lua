-- lease_renew.lua - extend this node's lease of game G, only while it
-- still holds it under the same epoch.
--
-- KEYS[1] game:G:host, KEYS[2] game:G:epoch
-- ARGV[1] node id, ARGV[2] the epoch it took, ARGV[3] lease in ms (> 0)
--
-- Returns 1 when renewed (the lease runs ARGV[3] ms from now); 0 when
-- the node is no longer the holder: the lease lapsed (the key expired),
-- another node took it, or it was taken again with a newer epoch. A
-- node that gets 0 stops acting on the game.
local ms = tonumber(ARGV[3])
if not ms or ms <= 0 then
    return redis.error_reply('ERR lease_renew: lease ms > 0')
end
if redis.call('GET', KEYS[1]) == ARGV[1]
        and tonumber(redis.call('GET', KEYS[2])) == tonumber(ARGV[2]) then
    redis.call('PEXPIRE', KEYS[1], ms)
    return 1
end
return 0
