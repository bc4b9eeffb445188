#pragma once
// The `reason` texts of history lines, docs/history-format.md: why a call
// failed, why a hold or a lease ended, why storage turned a write away.

namespace locksim::vocabulary::reason {

// acquire.fail, renew.fail, release.fail, write.fail, effect.fail.
inline constexpr char kHeld[] = "held";                         // another owner holds the lock
inline constexpr char kTimeout[] = "timeout";                   // no reply in time: it may still happen
inline constexpr char kConnection[] = "connection";             // refused or broken (live)
inline constexpr char kError[] = "error";                       // the server answered with an error (live)
inline constexpr char kRejected[] = "rejected";                 // storage refused, reason unknown (live)
inline constexpr char kNotOwner[] = "not-owner";                // renew/release of a key held by another
inline constexpr char kNotHeld[] = "not-held";                  // renew/release of a key that is gone (live)
inline constexpr char kReadOnly[] = "read-only";                // a Redis replica answered READONLY
inline constexpr char kNoReplicas[] = "no-replicas";            // min-replicas-to-write not met
inline constexpr char kOutOfMemory[] = "out-of-memory";        // Redis over maxmemory answered -OOM
inline constexpr char kNotReplicated[] = "not-replicated";      // WAIT saw too few replicas
inline constexpr char kNoQuorum[] = "no-quorum";                // Redlock: too few instances agreed
inline constexpr char kValidityElapsed[] = "validity-elapsed";  // Redlock: the round took the TTL
inline constexpr char kSessionExpired[] = "session-expired";    // a consensus session ended

// acquire.give_up.
inline constexpr char kMaxTries[] = "max-tries";
// (and kTimeout: the acquire timeout ran out)

// hold.end.
inline constexpr char kReleased[] = "released";
inline constexpr char kExpired[] = "expired";
inline constexpr char kLost[] = "lost";
inline constexpr char kCrash[] = "crash";

// lease.lost.
inline constexpr char kFailover[] = "failover";
inline constexpr char kRestart[] = "restart";
inline constexpr char kOverwritten[] = "overwritten";
inline constexpr char kEvicted[] = "evicted";

// write.reject, effect.reject.
inline constexpr char kStaleToken[] = "stale-token";
inline constexpr char kDuplicateRequest[] = "duplicate-request";
inline constexpr char kNotCurrent[] = "not-current";

}  // namespace locksim::vocabulary::reason
