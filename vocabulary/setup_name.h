#pragma once
// The names run.begin gives the run's setup (docs/history-format.md): its
// `service.kind` and its `workload.kind`. The scenario file spells them the
// same way (service.kind, workload.kind), and the checker reads them to know
// how tokens are counted and which keys are counters.

namespace locksim::vocabulary {

namespace service_kind {
inline constexpr char kRedis[] = "redis";
inline constexpr char kRedisFailover[] = "redis-failover";
inline constexpr char kRedlock[] = "redlock";
inline constexpr char kConsensus[] = "consensus";
}  // namespace service_kind

namespace workload_kind {
inline constexpr char kCounter[] = "counter";
inline constexpr char kBilling[] = "billing";
inline constexpr char kWriteOnly[] = "write-only";
}  // namespace workload_kind

}  // namespace locksim::vocabulary
