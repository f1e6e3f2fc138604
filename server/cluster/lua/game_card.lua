-- game_card.lua - a started game's card in the lobby's list of live
-- games (lobby_snapshot.lua), written by its host when the game starts
-- (or is adopted) and its ply now and then after; game_release.lua
-- removes it.
--
-- KEYS[1] game:G:card, KEYS[2] games:live
-- ARGV[1] G, ARGV[2] the rank's score (rated games above every casual
-- one, by their rating sum; casual ones by creation time: see
-- cluster.c), then field, value pairs (wpid, wname, ... ply).
--
-- Returns 1.
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local kv = {}
for i = 3, #ARGV do
    kv[#kv + 1] = ARGV[i]
end
if #kv > 0 then
    redis.call('HSET', KEYS[1], unpack(kv))
end
return 1
