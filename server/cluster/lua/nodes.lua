#!lua
-- nodes.lua - the nodes whose lease holds now: a shutdown's handover
-- picks among them.
--
-- KEYS[1] nodes (node_up.lua)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all, out = redis.call('HGETALL', KEYS[1]), {}
for i = 1, #all, 2 do
    local till = string.match(all[i + 1], '^%S+ (%d+)')
    if till and tonumber(till) > now then
        out[#out + 1] = all[i]
    end
end
return out
