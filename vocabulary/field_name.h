#pragma once
// The field names (JSON keys) of history lines, docs/history-format.md: the
// one place each is spelled. Producers write `{field::kLock, name}`; readers
// compare keys with these.

namespace locksim::vocabulary::field {

// Every line.
inline constexpr char kIndex[] = "i";
inline constexpr char kTime[] = "t";
inline constexpr char kProc[] = "proc";
inline constexpr char kEvent[] = "ev";

// run.begin / run.end.
inline constexpr char kScenario[] = "scenario";
inline constexpr char kSeed[] = "seed";
inline constexpr char kFencing[] = "fencing";
inline constexpr char kVersion[] = "version";
inline constexpr char kService[] = "service";
inline constexpr char kInstances[] = "instances";
inline constexpr char kQuorum[] = "quorum";
inline constexpr char kWorkload[] = "workload";
inline constexpr char kStuckAfterNs[] = "stuck_after_ns";
inline constexpr char kLive[] = "live";
inline constexpr char kFinal[] = "final";

// Locks and leases.
inline constexpr char kLock[] = "lock";
inline constexpr char kOwner[] = "owner";
inline constexpr char kBy[] = "by";
inline constexpr char kToken[] = "token";
inline constexpr char kLeaseNs[] = "lease_ns";
inline constexpr char kValidityNs[] = "validity_ns";
inline constexpr char kLocalTime[] = "local_t";
inline constexpr char kReason[] = "reason";
inline constexpr char kTries[] = "tries";

// Storage and external effects.
inline constexpr char kKey[] = "key";
inline constexpr char kValue[] = "value";
inline constexpr char kWriter[] = "writer";
inline constexpr char kReader[] = "reader";
inline constexpr char kJob[] = "job";
inline constexpr char kRequestId[] = "request_id";
inline constexpr char kReplayed[] = "replayed";

// fault.begin / fault.end.
inline constexpr char kKind[] = "kind";
inline constexpr char kTarget[] = "target";
inline constexpr char kForNs[] = "for_ns";
inline constexpr char kByNs[] = "by_ns";
inline constexpr char kExtraNs[] = "extra_ns";
inline constexpr char kPpm[] = "ppm";
inline constexpr char kBetween[] = "between";
inline constexpr char kEvict[] = "evict";
inline constexpr char kPrimary[] = "primary";

// Live mode's worker lines (live/worker_line.h): a call's id, a stop's fault.
inline constexpr char kCall[] = "call";
inline constexpr char kFault[] = "fault";

}  // namespace locksim::vocabulary::field
