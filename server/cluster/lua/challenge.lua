#!lua
-- challenge.lua - the pending challenges of the cluster (hub/challenge.c,
-- cluster/challenges.c): their caps per player across nodes, and who
-- ends one (of an accept, a decline, a cancel and a lapse on several
-- nodes at once, one gets it).
--
-- KEYS[1] lobby:{lobby}:challenges (id -> 'FROM TO NODE' and a line
--         'REC': its players, the node that holds it and its record,
--         hub/challenge.c's), KEYS[2] lobby:{lobby}:chcounts
--         ('o:PID' -> challenges PID sent and pending, 'i:PID' -> those
--         it received), KEYS[3] lobby:{lobby}:chby ('PID' -> the ids
--         of the challenges PID sent or received and pending, separated
--         by spaces)
-- ARGV[1] what:
--   'open'  ARGV[2..8] id, from, to, node, max_out, max_in, rec: 1 when
--           from has max_out pending, 2 when to has max_in, else 0
--           (opened)
--   'close' ARGV[2] id: 1 when it was pending (now closed), else 0
--   'read'  ARGV[2] id: its record (REC), or 0 when none is pending
--   'update' ARGV[2..3] id, rec: its record is rec from now on (its
--           home node re-armed or cleared its lapse: when it expires):
--           1, or 0 when none is pending
--   'list'  ARGV[2] pid: the records (REC) of pid's pending challenges,
--           both ways, oldest first
--   'node'  ARGV[2..4] node, heir, now: the challenges the node held (a
--           dead node's: nobody is there to run their lapse) whose
--           lapse had passed by now (Unix ms; REC's 14th field, 0 when
--           its challenger was connected) are closed, each answered
--           'E ID FROM TO'; the others go to the node heir, answered
--           'K REC' (the heir runs their lapse from then on)
-- Cost: 'node' reads every pending challenge (a node's death is rare;
-- the caps bound them to max_challenges_out a player); 'list' reads at
-- most max_challenges_out + max_challenges_in records.
local ALL, COUNTS, BY = KEYS[1], KEYS[2], KEYS[3]
local what = ARGV[1]

local function count(field, by)
    local n = tonumber(redis.call('HGET', COUNTS, field) or '0') + by
    if n <= 0 then
        redis.call('HDEL', COUNTS, field)
    else
        redis.call('HSET', COUNTS, field, n)
    end
    return n
end

-- the ids of pid's pending challenges (a table)
local function ids(pid)
    local out = {}
    for id in string.gmatch(redis.call('HGET', BY, pid) or '', '%S+') do
        out[#out + 1] = id
    end
    return out
end

-- id joins (add) or leaves pid's ids
local function by(pid, id, add)
    local keep = {}
    for _, x in ipairs(ids(pid)) do
        if x ~= id then
            keep[#keep + 1] = x
        end
    end
    if add then
        keep[#keep + 1] = id
    end
    if #keep == 0 then
        redis.call('HDEL', BY, pid)
    else
        redis.call('HSET', BY, pid, table.concat(keep, ' '))
    end
end

-- challenge id (rec: 'FROM TO NODE') leaves every key
local function close(id, rec)
    local from, to = string.match(rec, '^(%S+) (%S+)')
    redis.call('HDEL', ALL, id)
    by(from, id, false)
    by(to, id, false)
    count('o:' .. from, -1)
    count('i:' .. to, -1)
    return from, to
end

if what == 'open' then
    local id, from, to, node = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
    if tonumber(redis.call('HGET', COUNTS, 'o:' .. from) or '0') >=
        tonumber(ARGV[6]) then
        return 1
    end
    if tonumber(redis.call('HGET', COUNTS, 'i:' .. to) or '0') >=
        tonumber(ARGV[7]) then
        return 2
    end
    if redis.call('HEXISTS', ALL, id) == 1 then
        return 0 -- (a repeat: the bus may send a script again)
    end
    redis.call('HSET', ALL, id,
        from .. ' ' .. to .. ' ' .. node .. '\n' .. ARGV[8])
    count('o:' .. from, 1)
    count('i:' .. to, 1)
    by(from, id, true)
    by(to, id, true)
    return 0
elseif what == 'close' or what == 'read' then
    local rec = redis.call('HGET', ALL, ARGV[2])
    if not rec then
        return 0
    elseif what == 'read' then
        return string.match(rec, '\n(.*)$')
    end
    close(ARGV[2], rec)
    return 1
elseif what == 'update' then
    local rec = redis.call('HGET', ALL, ARGV[2])
    if not rec then
        return 0
    end
    redis.call('HSET', ALL, ARGV[2],
        string.match(rec, '^[^\n]*') .. '\n' .. ARGV[3])
    return 1
elseif what == 'list' then
    local out = {}
    for _, id in ipairs(ids(ARGV[2])) do
        local rec = redis.call('HGET', ALL, id)
        if rec then
            out[#out + 1] = string.match(rec, '\n(.*)$')
        end
    end
    return out
elseif what == 'node' then
    local all, out = redis.call('HGETALL', ALL), {}
    local now = tonumber(ARGV[4])
    for i = 1, #all, 2 do
        local from, to, node, rec =
            string.match(all[i + 1], '^(%S+) (%S+) (%S+)\n(.*)$')
        if node == ARGV[2] then
            local n, wall = 0, 0
            for x in string.gmatch(string.match(rec, '^[^\n]*'), '%S+') do
                n = n + 1
                if n == 14 then
                    wall = tonumber(x) or 0
                end
            end
            if wall ~= 0 and wall <= now then
                close(all[i], all[i + 1])
                out[#out + 1] = 'E ' .. all[i] .. ' ' .. from .. ' ' .. to
            else
                redis.call('HSET', ALL, all[i],
                    from .. ' ' .. to .. ' ' .. ARGV[3] .. '\n' .. rec)
                out[#out + 1] = 'K ' .. rec
            end
        end
    end
    return out
end
return redis.error_reply(
    'ERR challenge: open, close, read, update, list or node')
