-- node_alive.lua - the incarnation that holds node N's lease, or nil
-- when its lease has lapsed (a host checks the edges whose connections
-- it mirrors: cluster/lease.c).
--
-- KEYS[1] node:N:alive
return redis.call('GET', KEYS[1])
