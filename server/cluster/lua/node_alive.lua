#!lua
-- node_alive.lua - node N's lease: who holds it and N's last sign of
-- life (a host checks the edges whose connections it mirrors; a node
-- checks a game's host before it takes the game: cluster/take.c).
--
-- KEYS[1] nodes (node_up.lua)
-- ARGV[1] node id N
--
-- Returns {INC, SEEN}: the incarnation that holds N's lease, '' when it
-- lapsed or N is unknown; and N's wall clock at its last renewal (Unix
-- ms, '0' unknown).
local held = redis.call('HGET', KEYS[1], ARGV[1] or '')
if not held then
    return {'', '0'}
end
local inc, till, seen = string.match(held, '^(%S+) (%d+) (%d+)')
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if not inc or tonumber(till) <= now then
    return {'', seen or '0'}
end
return {inc, seen}
