#pragma once
// Which shard of a sharded run this process runs: `--shard K/N` as given, or
// `--shard auto` (and `auto/N`) read from the job runner's environment, so
// a CI matrix needs no arithmetic of its own:
//   GitLab       CI_NODE_INDEX (1-based) and CI_NODE_TOTAL  (`parallel: N`)
//   Buildkite    BUILDKITE_PARALLEL_JOB (0-based) and BUILDKITE_PARALLEL_JOB_COUNT
//   Kubernetes   JOB_COMPLETION_INDEX (0-based, an Indexed Job); the total
//                is not in the environment, so it must be given: auto/N
// Pure: the environment comes in as a lookup.

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace locksim::runner {

struct ShardChoice {
  std::uint64_t index = 0;  // 0-based: this process runs the seeds with seed % count == index
  std::uint64_t count = 1;
  std::string source;  // where it came from, for the user ("" for an explicit K/N)
};

// A variable's value, or nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Throws std::invalid_argument with a message for the user (what was
// expected, and which variables were read).
[[nodiscard]] ShardChoice choose_shard(std::string_view text, const EnvironmentLookup& environment);

// The process's own environment.
[[nodiscard]] std::optional<std::string> process_environment(const std::string& name);

}  // namespace locksim::runner
