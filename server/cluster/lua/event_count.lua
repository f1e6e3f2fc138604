#!lua
-- event_count.lua - the cluster's count of open tournaments of a kind
-- (hub/tourney_count.c): the operator's cap on events at once and the
-- cap per creator hold across the nodes (docs/cluster.md, "Tournaments
-- in a cluster").
--
-- KEYS[1] event:{count}:KIND, a hash: field EID (an event), value
--         "PID MS" (its creator, and the ms of Redis TIME its count
--         lapses at)
-- ARGV[1] take | renew | drop, ARGV[2] EID, ARGV[3] PID, ARGV[4] the
--         count's life, ms, ARGV[5] the cap on all, ARGV[6] per creator
--
-- take: the counts lapsed go; EID counted already: renewed, 1; ARGV[5]
-- counted: -1; ARGV[6] of PID's: -2; else EID counted for ARGV[4] ms: 1.
-- The count and the add are one step: two nodes never both get the last
-- one. renew: EID counted for ARGV[4] ms from now (again, when it
-- lapsed): 1. drop: EID's count goes: 1, or 0 (none). (Only the
-- commands the nodes' ACL grants: deploy/redis-chess.acl.)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local value = ARGV[3] .. ' ' .. (now + tonumber(ARGV[4]))
if ARGV[1] == 'drop' then
    return redis.call('HDEL', KEYS[1], ARGV[2])
end
if ARGV[1] == 'renew' then
    redis.call('HSET', KEYS[1], ARGV[2], value)
    return 1
end
local all, mine, n = redis.call('HGETALL', KEYS[1]), 0, 0
for i = 1, #all, 2 do
    local pid, ms = string.match(all[i + 1], '^(%S+) (%d+)$')
    if not ms or tonumber(ms) <= now then
        redis.call('HDEL', KEYS[1], all[i])
    elseif all[i] == ARGV[2] then
        redis.call('HSET', KEYS[1], ARGV[2], value)
        return 1
    else
        n = n + 1
        if pid == ARGV[3] then
            mine = mine + 1
        end
    end
end
if n >= tonumber(ARGV[5]) then
    return -1
end
if mine >= tonumber(ARGV[6]) then
    return -2
end
redis.call('HSET', KEYS[1], ARGV[2], value)
return 1
