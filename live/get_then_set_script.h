#pragma once
// The second round trip of `workers.acquire: get-then-set` (H9), as the
// model's client does it: the worker GETs the lock key, and when it is empty
// sends this plain SET PX — no NX — so two workers that both saw it empty
// both set it, and the second replaces the first's live key. Logged like
// the acquire script (lua_scripts.h): a `lost` record (reason overwritten)
// for a live key it replaced, then the `grant`, each with the server's TIME.

#include <string_view>

namespace locksim::live {

// KEYS: lock, token counter, sequence, log. ARGV: value, lease_ms ("" = no expiry), owner, call.
// Returns {1, token}: a plain SET always succeeds.
inline constexpr std::string_view kPlainSetScript = R"lua(
local previous = redis.call('GET', KEYS[1])
local now = redis.call('TIME')
if previous then
  local seq = redis.call('INCR', KEYS[3])
  redis.call('RPUSH', KEYS[4], cjson.encode({seq = seq, ev = 'lost', value = previous, reason = 'overwritten',
    s = now[1], us = now[2], call = ARGV[4]}))
end
if ARGV[2] == '' then
  redis.call('SET', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
local token = redis.call('INCR', KEYS[2])
local seq = redis.call('INCR', KEYS[3])
redis.call('RPUSH', KEYS[4], cjson.encode({seq = seq, ev = 'grant', owner = ARGV[3], value = ARGV[1], token = token,
  lease_ms = ARGV[2], s = now[1], us = now[2], call = ARGV[4]}))
return {1, token}
)lua";

}  // namespace locksim::live
