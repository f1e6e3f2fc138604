#!lua
-- analysis_queue.lua - the cluster's one queue of computer analyses
-- (docs/cluster.md, "Computer analysis"; hub/analysis_shared.c): any
-- node puts a job in, any node with engines takes the next one and
-- holds it under a lease it renews; a job whose node stopped renewing is
-- taken again by another. Atomic, so the limits hold across the nodes:
-- one job at a time per player and per address, and the queue's bound.
--
-- The keys, all of one hash tag (one slot in Redis Cluster):
-- KEYS[1] analysis:{analysis}:jobs     hash: GID -> "PID ADDR" (ADDR '-'
--                                      for none), every job queued or
--                                      running
-- KEYS[2] analysis:{analysis}:queue    sorted set: the waiting GIDs, by
--                                      score (the lowest runs first)
-- KEYS[3] analysis:{analysis}:who      hash: "p:PID", "a:ADDR" -> GID,
--                                      the one job of each
-- KEYS[4] analysis:{analysis}:running  hash: GID -> "NODE UNTIL" (Redis's
--                                      clock, ms)
--
-- ARGV[1] the operation:
--   put GID PID ADDR SCORE MAX: queue GID unless it is there already
--     ({'exists'}), PID or ADDR has a job ({'player'}, {'address'}), or
--     MAX jobs wait ({'full'}); {'queued'}. SCORE: a player's own game
--     its request's time (ms), anyone else's that plus 10^13.
--   take NODE LEASE_MS: a running job whose lease lapsed (its node died
--     or stalled), else the lowest-scored waiting one, is NODE's now
--     until LEASE_MS from now: {'taken', GID, PID, ADDR, 'again'|'new'};
--     {} when there is none.
--   renew NODE LEASE_MS GID PID ADDR: NODE's job GID lasts LEASE_MS from
--     now: 1; 0 when another node holds it. A job Redis lost (a restart)
--     is NODE's again, with its marks.
--   done GID: the job and its marks go. 1.
local JOBS, QUEUE, WHO, RUNNING = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local op = ARGV[1]

local function now_ms()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function mark(gid, pid, addr)
    redis.call('HSET', JOBS, gid, pid .. ' ' .. addr)
    redis.call('HSET', WHO, 'p:' .. pid, gid)
    if addr ~= '-' then
        redis.call('HSET', WHO, 'a:' .. addr, gid)
    end
end

if op == 'put' then
    local gid, pid, addr = ARGV[2], ARGV[3], ARGV[4]
    local score, max = tonumber(ARGV[5]), tonumber(ARGV[6])
    if not gid or gid == '' or not pid or pid == '' or not addr
            or addr == '' or not score or not max then
        return redis.error_reply('bad put')
    end
    if redis.call('HEXISTS', JOBS, gid) == 1 then
        return {'exists'}
    end
    if redis.call('HGET', WHO, 'p:' .. pid) then
        return {'player'}
    end
    if addr ~= '-' and redis.call('HGET', WHO, 'a:' .. addr) then
        return {'address'}
    end
    if #redis.call('ZREVRANGE', QUEUE, 0, max) >= max then
        return {'full'}
    end
    mark(gid, pid, addr)
    redis.call('ZADD', QUEUE, score, gid)
    return {'queued'}
end

if op == 'take' then
    local node, lease = ARGV[2], tonumber(ARGV[3])
    if not node or node == '' or not lease then
        return redis.error_reply('bad take')
    end
    local now = now_ms()
    local gid, how = nil, 'new'
    local running = redis.call('HGETALL', RUNNING)
    for i = 1, #running, 2 do
        local until_ms = tonumber(string.match(running[i + 1], ' (%d+)$'))
        if not until_ms or until_ms <= now then
            gid, how = running[i], 'again'
            break
        end
    end
    if not gid then
        gid = redis.call('ZREVRANGE', QUEUE, -1, -1)[1]
        if not gid then
            return {}
        end
        redis.call('ZREM', QUEUE, gid)
    end
    local job = redis.call('HGET', JOBS, gid)
    if not job then -- (a stray: dropped)
        redis.call('HDEL', RUNNING, gid)
        return {}
    end
    local pid, addr = string.match(job, '^(%S+) (%S+)$')
    redis.call('HSET', RUNNING, gid, node .. ' ' .. (now + lease))
    return {'taken', gid, pid, addr, how}
end

if op == 'renew' then
    local node, lease, gid = ARGV[2], tonumber(ARGV[3]), ARGV[4]
    local pid, addr = ARGV[5], ARGV[6]
    if not node or node == '' or not lease or not gid or gid == ''
            or not pid or pid == '' or not addr or addr == '' then
        return redis.error_reply('bad renew')
    end
    local held = redis.call('HGET', RUNNING, gid)
    if held and string.match(held, '^(%S+) ') ~= node then
        return 0
    end
    if not redis.call('HGET', JOBS, gid) then
        mark(gid, pid, addr)
    end
    redis.call('HSET', RUNNING, gid, node .. ' ' .. (now_ms() + lease))
    return 1
end

if op == 'done' then
    local gid = ARGV[2]
    local job = gid and redis.call('HGET', JOBS, gid)
    if job then
        local pid, addr = string.match(job, '^(%S+) (%S+)$')
        for _, k in ipairs({'p:' .. (pid or ''), 'a:' .. (addr or '')}) do
            if redis.call('HGET', WHO, k) == gid then
                redis.call('HDEL', WHO, k)
            end
        end
        redis.call('HDEL', JOBS, gid)
    end
    redis.call('HDEL', RUNNING, gid or '')
    redis.call('ZREM', QUEUE, gid or '')
    return 1
end

return redis.error_reply('unknown operation')
