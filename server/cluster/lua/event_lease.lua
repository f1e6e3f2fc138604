#!lua
-- event_lease.lua - the lease of a tournament's director (an arena of
-- hub/arena_director.c): one node directs an event at a time
-- (docs/cluster.md, "Tournaments in a cluster").
--
-- KEYS[1] event:{E}:director
-- ARGV[1] take | release, ARGV[2] this node's id, ARGV[3] the lease, ms
--
-- take: when nobody holds E, or this node does, or the holder's lease
-- lapsed (Redis dropped the key: PX), this node holds it for ARGV[3] ms
-- from now: 1. Another node holds it: 0 (nothing changed). The compare
-- and the set are one step: two nodes never both get 1 while the lease
-- runs. release: the key goes when this node holds it (1), else 0.
local holder = redis.call('GET', KEYS[1])
if ARGV[1] == 'release' then
    if holder ~= ARGV[2] then
        return 0
    end
    redis.call('DEL', KEYS[1])
    return 1
end
if holder and holder ~= ARGV[2] then
    return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', tonumber(ARGV[3]))
return 1
