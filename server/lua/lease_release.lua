-- lease_release.lua - give up this node's lease of game G (the game
-- ended), only while it still holds it under the same epoch.
--
-- KEYS[1] game:G:host, KEYS[2] game:G:epoch
-- ARGV[1] node id, ARGV[2] the epoch it took
--
-- Returns 1 when released (game:G:host deleted; the epoch stays, so a
-- later taking gets a higher one); 0 when it was not the holder.
if redis.call('GET', KEYS[1]) == ARGV[1]
        and tonumber(redis.call('GET', KEYS[2])) == tonumber(ARGV[2]) then
    redis.call('DEL', KEYS[1])
    return 1
end
return 0
