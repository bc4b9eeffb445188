#pragma once
// Test helper: a summary JSON without what differs between two runs of the
// same seeds by design — the times (wall and CPU) and the determinism
// self-check (each shard rechecks seeds of its own) — so that what is left
// compares equal.

#include <nlohmann/json.hpp>

namespace locksim::test_support {

enum class Recheck { kKeep, kDrop };

inline nlohmann::json summary_without_times(nlohmann::json summary, Recheck recheck = Recheck::kDrop) {
  for (nlohmann::json& scenario : summary["scenarios"]) {
    scenario.erase("stats");
    if (recheck == Recheck::kDrop) scenario.erase("recheck");
    for (auto& [name, mode] : scenario["modes"].items()) mode["stats"].erase("cpu_s");
  }
  return summary;
}

}  // namespace locksim::test_support
