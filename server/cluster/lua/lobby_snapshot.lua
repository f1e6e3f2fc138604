-- lobby_snapshot.lua - what a lobby snapshot shows (PROTOCOL.md, section
-- 5, "Watching the lobby"), for a node whose connections watch the
-- lobby: the newest open seeks of every node (newest first) and the first live games
-- in the feed's order (lobbyfeed.h).
--
-- KEYS[1] seeks:all (seek_place.lua), KEYS[2] games:live (score: the
-- feed's rank, highest first; game_card.lua)
-- ARGV[1] at most this many seeks, ARGV[2] at most this many games
--
-- Returns {ns, seek fields x ns, ng, game fields x ng}: each seek as
-- {sid, pid, name, zset, color, rated, rating, prov, lo, hi, acct}, each game
-- as its card's {gid, wpid, wname, wrating, wprov, bpid, bname,
-- brating, bprov, clock, rated, ply, wacct, bacct} ('' where unset).
local out = {}
local sids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
out[#out + 1] = #sids
for _, sid in ipairs(sids) do
    local o = redis.call('HMGET', 'seek:' .. sid, 'pid', 'name', 'zset',
                         'color', 'rated', 'rating', 'prov', 'lo', 'hi',
                         'acct')
    out[#out + 1] = sid
    for i = 1, 10 do
        out[#out + 1] = o[i] or ''
    end
end
local gids = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1)
out[#out + 1] = #gids
for _, gid in ipairs(gids) do
    local o = redis.call('HMGET', 'game:' .. gid .. ':card', 'wpid', 'wname',
                         'wrating', 'wprov', 'bpid', 'bname', 'brating',
                         'bprov', 'clock', 'rated', 'ply', 'wacct',
                         'bacct')
    out[#out + 1] = gid
    for i = 1, 13 do
        out[#out + 1] = o[i] or ''
    end
end
return out
