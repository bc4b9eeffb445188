#pragma once
// The billing workload's external payments API (charge `external`,
// model/payments.h) as a Lua script on locksim's storage server, logged in
// storage's log: it takes no fencing token — a charge that reaches it
// happens, whatever token travels along — and its only defence is the
// idempotency key: with keys on it remembers every request_id it charged and
// answers a repeat with the earlier result (effect.reject, reason
// duplicate-request) instead of charging again.
//
// It shares storage's server (its memory is as durable as storage's), not
// storage's keys: its request ids live under their own prefix.

#include <string_view>

namespace locksim::live {

// KEYS: sequence, log, request id. ARGV: job, writer, request id ("" = none), token ("" = none),
// idempotency ("1"/"0"), call. Returns {1, replayed (1/0)}.
inline constexpr std::string_view kPaymentsChargeScript = R"lua(
local now = redis.call('TIME')
local record = {ev = 'effect.accept', job = tonumber(ARGV[1]), writer = ARGV[2], s = now[1], us = now[2], call = ARGV[6]}
if ARGV[3] ~= '' then record.request_id = ARGV[3] end
if ARGV[4] ~= '' then record.token = tonumber(ARGV[4]) end
local replayed = 0
if ARGV[5] == '1' and ARGV[3] ~= '' then
  if redis.call('EXISTS', KEYS[3]) == 1 then
    record.ev = 'effect.reject'
    record.reason = 'duplicate-request'
    replayed = 1
  else
    redis.call('SET', KEYS[3], '1')
  end
end
record.seq = redis.call('INCR', KEYS[1])
redis.call('RPUSH', KEYS[2], cjson.encode(record))
return {1, replayed}
)lua";

}  // namespace locksim::live
