#!lua
-- node_forget.lua - a dead node leaves the hash of nodes (the sweep
-- found none of its games left on any shard), unless it came back
-- meanwhile.
--
-- KEYS[1] nodes (node_up.lua)
-- ARGV[1] node id N
--
-- Returns 1 when N was forgotten, 0 when its lease holds again.
local held = redis.call('HGET', KEYS[1], ARGV[1] or '')
if not held then
    return 0
end
local till = string.match(held, '^%S+ (%d+)')
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if till and tonumber(till) > now then
    return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
