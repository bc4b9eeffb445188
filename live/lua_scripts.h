#pragma once
// The Lua scripts live mode runs inside the real Redis servers: the lock
// client's variants (SET NX PX with the token from INCR in the same script,
// compare-and-delete or plain DEL, compare-and-extend or plain PEXPIRE) on
// the lock service, and the fenced storage (highest token seen, fenced
// reads, idempotency keys) on the storage server.
//
// Every script that changes something appends a record of it, in the same
// atomic step, to a log list with a sequence number and the server's TIME
// (the lock scripts also publish it on the channel of the log's name, for
// the coordinator's LogSubscription):
// the history's lease.* and storage events are read from those logs, so a
// worker killed before it heard the reply cannot hide what Redis decided.
// A record names the client call that caused it (`call`), which is how the
// history places it between that call's send and reply.

#include <string_view>

namespace locksim::live {

// KEYS: lock, token counter, sequence, log. ARGV: value, lease_ms ("" = no expiry), owner, call.
// Returns {1, token} when granted, {0} when the key is held.
inline constexpr std::string_view kAcquireScript = R"lua(
local granted
if ARGV[2] == '' then
  granted = redis.call('SET', KEYS[1], ARGV[1], 'NX')
else
  granted = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
end
if not granted then return {0} end
local token = redis.call('INCR', KEYS[2])
local now = redis.call('TIME')
local seq = redis.call('INCR', KEYS[3])
local record = cjson.encode({seq = seq, ev = 'grant', owner = ARGV[3], value = ARGV[1], token = token,
  lease_ms = ARGV[2], s = now[1], us = now[2], call = ARGV[4]})
redis.call('RPUSH', KEYS[4], record)
redis.call('PUBLISH', KEYS[4], record)
return {1, token}
)lua";

// KEYS: lock, sequence, log. ARGV: value, by, call, plain ("1": DEL whatever is there; "0": only my value).
// Returns {1} when a key was deleted, {0} otherwise.
inline constexpr std::string_view kReleaseScript = R"lua(
local current = redis.call('GET', KEYS[1])
if not current or (ARGV[4] ~= '1' and current ~= ARGV[1]) then return {0} end
redis.call('DEL', KEYS[1])
local now = redis.call('TIME')
local seq = redis.call('INCR', KEYS[2])
local record = cjson.encode({seq = seq, ev = 'release', by = ARGV[2], value = current,
  s = now[1], us = now[2], call = ARGV[3]})
redis.call('RPUSH', KEYS[3], record)
redis.call('PUBLISH', KEYS[3], record)
return {1}
)lua";

// KEYS: lock, sequence, log. ARGV: value, lease_ms, by, call, plain ("1": PEXPIRE whoever holds it).
// Returns {1} when a key was extended, {0} otherwise.
inline constexpr std::string_view kRenewScript = R"lua(
local current = redis.call('GET', KEYS[1])
if not current or (ARGV[5] ~= '1' and current ~= ARGV[1]) then return {0} end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local now = redis.call('TIME')
local seq = redis.call('INCR', KEYS[2])
local record = cjson.encode({seq = seq, ev = 'renew', by = ARGV[3], value = current, lease_ms = ARGV[2],
  s = now[1], us = now[2], call = ARGV[4]})
redis.call('RPUSH', KEYS[3], record)
redis.call('PUBLISH', KEYS[3], record)
return {1}
)lua";

// KEYS: data, highest token, sequence, log. ARGV: key name, reader, token ("" = none), fenced ("1"/"0"), call.
// Returns {1, value} when served, {0} when turned away.
inline constexpr std::string_view kStorageReadScript = R"lua(
local now = redis.call('TIME')
local token = tonumber(ARGV[3])
local record = {ev = 'read.accept', key = ARGV[1], reader = ARGV[2], s = now[1], us = now[2], call = ARGV[5]}
if ARGV[4] == '1' then
  record.token = token or 0
  local highest = tonumber(redis.call('GET', KEYS[2]) or '0')
  if not token or token < highest then
    record.ev = 'read.reject'
    record.reason = 'stale-token'
    record.seq = redis.call('INCR', KEYS[3])
    redis.call('RPUSH', KEYS[4], cjson.encode(record))
    return {0}
  end
  redis.call('SET', KEYS[2], token)
end
record.seq = redis.call('INCR', KEYS[3])
redis.call('RPUSH', KEYS[4], cjson.encode(record))
return {1, tonumber(redis.call('GET', KEYS[1]) or '0')}
)lua";

// KEYS: data, highest token, sequence, log, request id. ARGV: key name, writer, value, token ("" = none),
// fencing ("1"/"0"), request id ("" = none), idempotency ("1"/"0"), call[, job (billing's customer; "" or absent = none)].
// Returns {1} when accepted, {0, reason} when rejected.
inline constexpr std::string_view kStorageWriteScript = R"lua(
local now = redis.call('TIME')
local token = tonumber(ARGV[4])
local record = {ev = 'write.accept', key = ARGV[1], writer = ARGV[2], value = tonumber(ARGV[3]), token = token,
  s = now[1], us = now[2], call = ARGV[8]}
if ARGV[6] ~= '' then record.request_id = ARGV[6] end
if ARGV[9] and ARGV[9] ~= '' then record.job = tonumber(ARGV[9]) end
local reason
if ARGV[7] == '1' and ARGV[6] ~= '' and redis.call('EXISTS', KEYS[5]) == 1 then
  reason = 'duplicate-request'
elseif ARGV[5] == '1' then
  local highest = tonumber(redis.call('GET', KEYS[2]) or '0')
  if not token or token < highest then reason = 'stale-token' else redis.call('SET', KEYS[2], token) end
end
record.seq = redis.call('INCR', KEYS[3])
if reason then
  record.ev = 'write.reject'
  record.reason = reason
  redis.call('RPUSH', KEYS[4], cjson.encode(record))
  return {0, reason}
end
redis.call('SET', KEYS[1], ARGV[3])
if ARGV[7] == '1' and ARGV[6] ~= '' then redis.call('SET', KEYS[5], '1') end
redis.call('RPUSH', KEYS[4], cjson.encode(record))
return {1}
)lua";

}  // namespace locksim::live
