-- nodes.lua - every node that may host games (the set node_up adds
-- to): a shutdown's handover picks the live ones among them.
--
-- KEYS[1] nodes
return redis.call('SMEMBERS', KEYS[1])
