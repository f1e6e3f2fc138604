#!lua
-- lobby_snapshot.lua - what a lobby snapshot shows (PROTOCOL.md, section
-- 5, "Watching the lobby"), for a node whose connections watch the
-- lobby: the newest open seeks of every node (newest first) and the first live games
-- in the feed's order (lobbyfeed.h).
--
-- KEYS[1] lobby:{lobby}:all, KEYS[2] lobby:{lobby}:seeks
-- (seek_place.lua), KEYS[3] lobby:{lobby}:games (score: the feed's rank,
-- highest first), KEYS[4] lobby:{lobby}:cards (game_card.lua)
-- ARGV[1] at most this many seeks, ARGV[2] at most this many games
--
-- Returns {ns, seek fields x ns, ng, game fields x ng}: each seek as
-- {sid, pid, name, clock, color, rated, rating, prov, lo, hi, acct}, each
-- game as its card's {gid, wpid, wname, wrating, wprov, bpid, bname,
-- brating, bprov, clock, rated, ply, wacct, bacct} ('' where unset).
local out = {}
local SEEK = {'pid', 'name', 'clock', 'color', 'rated', 'rating', 'prov',
              'lo', 'hi', 'acct'}
local CARD = {'wpid', 'wname', 'wrating', 'wprov', 'bpid', 'bname',
              'brating', 'bprov', 'clock', 'rated', 'ply', 'wacct', 'bacct'}
local function put(sid, j, fields)
    local o = j and cjson.decode(j) or {}
    out[#out + 1] = sid
    for _, f in ipairs(fields) do
        out[#out + 1] = o[f] or ''
    end
end
local sids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
out[#out + 1] = #sids
for _, sid in ipairs(sids) do
    put(sid, redis.call('HGET', KEYS[2], sid), SEEK)
end
local gids = redis.call('ZREVRANGE', KEYS[3], 0, tonumber(ARGV[2]) - 1)
out[#out + 1] = #gids
for _, gid in ipairs(gids) do
    put(gid, redis.call('HGET', KEYS[4], gid), CARD)
end
return out
