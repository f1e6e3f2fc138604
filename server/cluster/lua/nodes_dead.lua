#!lua
-- nodes_dead.lua - the nodes whose lease has lapsed, for the sweep of a
-- live node (docs/cluster.md, "Failures"), and this node's share of the
-- games of those that died lately: their games are adopted
-- (node_games.lua on every shard, then game_take.lua), their seeks
-- dropped (seek_cancel.lua), and a dead node without games left is
-- forgotten (node_forget.lua).
--
-- KEYS[1] nodes (node_up.lua)
-- ARGV[1] this node's id (never in the answer), ARGV[2] this node's wall
-- clock (Unix ms) and ARGV[3] a time in ms (both optional: 0): a node
-- last seen less than ARGV[3] ago died lately.
--
-- Returns {from, upto, of, node, seen, lately, node, seen, lately, ...}:
-- each lapsed node, its last sign of life (Unix ms) and 1 when it died
-- lately, else 0; and this node's share of the lately dead nodes' games:
-- the positions from..upto of 1..of (node_games.lua's pick takes that
-- slice of each set). The shares fill the live nodes (not stopping, this
-- one too) up to one level: the live nodes' games plus the lately dead
-- ones' (as each reported at its last renewal), over the live nodes;
-- so the least loaded adopt the most, and the slices, in the live
-- nodes' name order, are apart for nodes that read the same state. A
-- game two nodes got anyway goes to the first take; what nobody took is
-- shared again at the next sweep; the games of a node dead for longer
-- go to whoever sweeps first (a live node that cannot adopt its share
-- holds up nobody).
local self = ARGV[1]
local now, share_ms = tonumber(ARGV[2] or '0'), tonumber(ARGV[3] or '0')
if not self or not now or not share_ms then
    return redis.error_reply('ERR nodes_dead: node, now, share ms')
end
local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all, dead, live, shared = redis.call('HGETALL', KEYS[1]), {}, {}, 0
for i = 1, #all, 2 do
    local till, seen, games, stopping =
        string.match(all[i + 1], '^%S+ (%d+) (%d+) ?(%d*) ?(%d*)')
    games = tonumber(games) or 0
    if till and tonumber(till) > clock then
        if stopping ~= '1' then
            live[#live + 1] = {all[i], games}
        end
    elseif all[i] ~= self then
        local lately = share_ms > 0 and now - (tonumber(seen) or 0) < share_ms
        dead[#dead + 1] = {all[i], seen or '0', lately and 1 or 0}
        if lately then
            shared = shared + games
        end
    end
end
-- the level: the least loaded nodes filled up to it hold every game
local from, upto = 1, 0
if shared > 0 then
    local loads = {}
    for i, l in ipairs(live) do
        loads[i] = l[2]
    end
    table.sort(loads)
    local sum, level = 0, 0
    for i = 1, #loads do
        sum = sum + loads[i]
        level = math.ceil((sum + shared) / i)
        if i == #loads or level <= loads[i + 1] then
            break
        end
    end
    table.sort(live, function(a, b) return a[1] < b[1] end)
    local at = 0
    for _, l in ipairs(live) do
        local share = math.max(0, level - l[2])
        if l[1] == self then
            from, upto = at + 1, math.min(at + share, shared)
            break
        end
        at = at + share
    end
end
local out = {from, upto, shared}
for _, d in ipairs(dead) do
    out[#out + 1] = d[1]
    out[#out + 1] = d[2]
    out[#out + 1] = d[3]
end
return out
