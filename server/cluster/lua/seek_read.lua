-- seek_read.lua - the fields of seek S that accept checks before it
-- takes the seek (seek_take.lua): pid name color rated rating prov lo
-- hi zset node, each nil when S is gone.
--
-- KEYS[1] seek:S
return redis.call('HMGET', KEYS[1], 'pid', 'name', 'color', 'rated',
                  'rating', 'prov', 'lo', 'hi', 'zset', 'node')
