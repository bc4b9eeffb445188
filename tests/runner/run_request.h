#pragma once
// Test helper: the request to run a scenario's first `count` seeds.

#include <cstdint>

#include "runner/scenario_run.h"

namespace locksim::runner::testing {

inline RunRequest seeds(std::uint64_t count, unsigned threads = 2) {
  RunRequest request;
  request.seed_count = count;
  request.threads = threads;
  return request;
}

}  // namespace locksim::runner::testing
