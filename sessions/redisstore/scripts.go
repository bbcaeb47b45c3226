package redisstore

import "github.com/redis/go-redis/v9"

// admitScript drops anonymous sessions past their expiry from the index
// and returns how many are left.
//
// KEYS[1] anonymous index; ARGV[1] now (Unix ms).
var admitScript = redis.NewScript(`
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", ARGV[1])
return redis.call("ZCARD", KEYS[1])
`)

// createScript stores a new session unless its id exists, taking a place
// in the anonymous budget in the same step for an anonymous owner.
// Returns "ok", "exists" or "budget".
//
// KEYS[1] session key, KEYS[2] anonymous index; ARGV[1] value, ARGV[2]
// key life (ms), ARGV[3] "1" when anonymous, ARGV[4] now (Unix ms),
// ARGV[5] expiresAt (Unix ms), ARGV[6] anonymous budget, ARGV[7] id.
var createScript = redis.NewScript(`
local anonymous = ARGV[3] == "1"
if anonymous then
	redis.call("ZREMRANGEBYSCORE", KEYS[2], "-inf", ARGV[4])
	if redis.call("ZCARD", KEYS[2]) >= tonumber(ARGV[6]) then
		return "budget"
	end
end
if not redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
	return "exists"
end
if anonymous then
	redis.call("ZADD", KEYS[2], ARGV[5], ARGV[7])
	redis.call("PEXPIRE", KEYS[2], ARGV[2])
end
return "ok"
`)

// casScript replaces a session only if its stored version is still the
// one the gate read; the key keeps its expiry. Returns 1 written, 0 gone,
// -1 changed since read.
//
// KEYS[1] session key; ARGV[1] version read (8 bytes), ARGV[2] new value.
var casScript = redis.NewScript(`
local version = redis.call("GETRANGE", KEYS[1], 0, 7)
if version == "" then
	return 0
end
if version ~= ARGV[1] then
	return -1
end
redis.call("SET", KEYS[1], ARGV[2], "KEEPTTL")
return 1
`)
