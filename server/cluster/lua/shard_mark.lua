#!lua
-- shard_mark.lua - which shard this Redis is, and since when: the first
-- node to reach it after it started writes the mark, and every node
-- compares it with its own list of shards (cluster/take.c). A mark not
-- the one a node saw before means this Redis restarted empty (its
-- games' keys are gone: each host takes its games again); a mark with
-- another place in the list means the nodes' lists of shards differ (a
-- mistake in the settings).
--
-- KEYS[1] shard
-- ARGV[1] "K/N" (this shard's place in the list, from 0, and the
--         list's length), ARGV[2] a new random word
--
-- Returns the mark, "K/N WORD": the one there, else ARGV's, written.
local m = redis.call('GET', KEYS[1])
if m then
    return m
end
m = ARGV[1] .. ' ' .. ARGV[2]
redis.call('SET', KEYS[1], m)
return m
