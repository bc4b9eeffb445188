#pragma once
// FaultKind: the kinds of fault a scenario injects, with the name the
// scenario file's `kind` and the history's fault.begin / fault.end `kind`
// both use (docs/scenario-format.md, docs/history-format.md).

#include <array>
#include <optional>
#include <string_view>

namespace locksim::vocabulary {

enum class FaultKind {
  kPause,
  kCrash,
  kClockJump,
  kClockDrift,
  kPartition,
  kFailover,
  kDelaySpike,
  kStarveRenewal,
  kPowerLoss,       // a machine crash: as kCrash, and Redis loses what it had not fsynced
  kMemoryPressure,  // a Redis primary must evict keys by its maxmemory policy
};

// In the enum's order.
inline constexpr std::array<std::string_view, 10> kFaultKindNames{
    "pause",    "crash",       "clock-jump",     "clock-drift", "partition",
    "failover", "delay-spike", "starve-renewal", "power-loss",  "memory-pressure"};
static_assert(static_cast<std::size_t>(FaultKind::kMemoryPressure) + 1 == kFaultKindNames.size());

[[nodiscard]] constexpr std::string_view fault_kind_name(FaultKind kind) {
  return kFaultKindNames[static_cast<std::size_t>(kind)];
}

[[nodiscard]] constexpr std::optional<FaultKind> fault_kind_from_name(std::string_view name) {
  for (std::size_t at = 0; at < kFaultKindNames.size(); ++at) {
    if (kFaultKindNames[at] == name) return static_cast<FaultKind>(at);
  }
  return std::nullopt;
}

// A failover's `primary`: what happens to the old primary.
inline constexpr char kFailoverPrimaryCrash[] = "crash";
inline constexpr char kFailoverPrimaryPartition[] = "partition";

}  // namespace locksim::vocabulary
