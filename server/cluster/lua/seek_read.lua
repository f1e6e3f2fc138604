#!lua
-- seek_read.lua - the fields of seek S that accept checks before it
-- takes the seek (seek_cancel.lua): pid name color rated rating prov lo
-- hi clock node, each false (nil) when S is gone.
--
-- KEYS[1] lobby:{lobby}:seeks (seek_place.lua)
-- ARGV[1] S
local j = redis.call('HGET', KEYS[1], ARGV[1] or '')
if not j then
    return {false, false, false, false, false, false, false, false, false,
            false}
end
local o = cjson.decode(j)
return {o.pid, o.name, o.color, o.rated, o.rating, o.prov, o.lo, o.hi,
        o.clock, o.node}
