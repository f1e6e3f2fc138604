#!lua
-- node_games.lua - the games node N hosts on this shard (the sweep
-- adopts a dead node's from here): kept beside the games' own keys,
-- one set per node and shard, written after each take, handover and
-- release (a game's keys and this set are in different slots, so not
-- in one script; a member the set missed is adopted on its players'
-- first command, one it kept too long is refused by game_take).
--
-- KEYS[1] node:{N}:games
-- ARGV[1] 'add' or 'del', ARGV[2] G; or ARGV[1] 'pick', ARGV[2] at most
-- this many
--
-- Returns 1 (add, del); up to ARGV[2] of the set's games (pick).
local op = ARGV[1]
if op == 'add' then
    redis.call('SADD', KEYS[1], ARGV[2])
    return 1
elseif op == 'del' then
    redis.call('SREM', KEYS[1], ARGV[2])
    return 1
elseif op == 'pick' and tonumber(ARGV[2]) and tonumber(ARGV[2]) >= 1 then
    return redis.call('SRANDMEMBER', KEYS[1], tonumber(ARGV[2]))
end
return redis.error_reply('ERR node_games: add G, del G or pick N >= 1')
