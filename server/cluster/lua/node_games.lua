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
-- this many, and optionally ARGV[3..5] FROM UPTO OF: the slice of the
-- set this node's share is (nodes_dead.lua): the I-th of the set's S
-- members (SMEMBERS order) is in it when FROM <= ceil(I * OF / S) <=
-- UPTO, so shares FROM..UPTO apart of 1..OF take members apart, in
-- proportion, however many are left. Without them, picked at random.
--
-- Returns 1 (add, del); {S, g1, g2, ...} (pick): the set's size and up
-- to ARGV[2] of its games.
local op = ARGV[1]
if op == 'add' then
    redis.call('SADD', KEYS[1], ARGV[2])
    return 1
elseif op == 'del' then
    redis.call('SREM', KEYS[1], ARGV[2])
    return 1
end
local max, from, upto, of = tonumber(ARGV[2]), tonumber(ARGV[3] or '1'),
                            tonumber(ARGV[4] or '0'), tonumber(ARGV[5] or '0')
if op ~= 'pick' or not max or max < 1 or not from or not upto or not of then
    return redis.error_reply(
        'ERR node_games: add G, del G or pick N >= 1 [FROM UPTO OF]')
end
local size = redis.call('SCARD', KEYS[1])
local out = {size}
if of <= 0 then
    for _, g in ipairs(redis.call('SRANDMEMBER', KEYS[1], max)) do
        out[#out + 1] = g
    end
    return out
end
for i, g in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    local at = math.ceil(i * of / size)
    if at >= from and at <= upto then
        out[#out + 1] = g
        if #out > max then
            break
        end
    end
end
return out
