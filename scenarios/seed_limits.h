#pragma once
// How many seeds one run may have: the one limit for a scenario file's
// `seeds` and for `run --seeds`, so the file and the command line agree.

#include <cstdint>

namespace locksim::scenarios {

inline constexpr std::int64_t kFewestSeeds = 1;
inline constexpr std::int64_t kMostSeeds = 100'000'000;

}  // namespace locksim::scenarios
