#!lua
-- game_card.lua - a started game's card in the lobby's list of live
-- games (lobby_snapshot.lua), written by its host when the game starts
-- (or is adopted) and its ply now and then after; game_uncard.lua
-- removes it.
--
-- KEYS[1] lobby:{lobby}:cards   hash: G -> its card (JSON)
-- KEYS[2] lobby:{lobby}:games   sorted set: G by its rank
-- ARGV[1] G, ARGV[2] the rank's score (rated games above every casual
-- one, by their rating sum; casual ones by creation time: see
-- seeks.c), then field, value pairs (wpid, wname, ... ply), merged into
-- the card.
--
-- Returns 1.
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
local j = redis.call('HGET', KEYS[1], ARGV[1])
local card = j and cjson.decode(j) or {}
for i = 3, #ARGV - 1, 2 do
    card[ARGV[i]] = ARGV[i + 1]
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(card))
return 1
