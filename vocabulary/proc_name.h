#pragma once
// The fixed `proc` names of a history (docs/history-format.md): the emitters
// that are one of a kind. Workers and service instances carry their node's
// name (`worker-1`, `redis-0`, …).

namespace locksim::vocabulary::proc {

inline constexpr char kRun[] = "run";
inline constexpr char kNemesis[] = "nemesis";
inline constexpr char kStorage[] = "storage";
inline constexpr char kPayments[] = "payments";
inline constexpr char kSentinel[] = "sentinel";  // redis-failover's Sentinel (it records nothing)

}  // namespace locksim::vocabulary::proc
