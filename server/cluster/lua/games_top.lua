#!lua
-- games_top.lua - the first ARGV[1] GIDs of the lobby's list of live
-- games (highest score first: game_card.lua), whose hosts refresh
-- their ply on the cards.
--
-- KEYS[1] lobby:{lobby}:games
-- ARGV[1] how many (>= 1)
local n = tonumber(ARGV[1])
if not n or n < 1 then
    return redis.error_reply('ERR games_top: n >= 1')
end
return redis.call('ZREVRANGE', KEYS[1], 0, n - 1)
