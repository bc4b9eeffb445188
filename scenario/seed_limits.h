#pragma once
// How many seeds one run may have: the one limit for a scenario file's
// `seeds` and for `run --seeds`, so the file and the command line agree. And
// the largest first seed (a file's `first_seed`, `--first-seed`, `--seed`):
// with it, every seed of a run, first + count - 1, still fits the signed
// 64-bit integer a history's `seed` is.

#include <cstdint>

namespace locksim::scenario {

inline constexpr std::int64_t kFewestSeeds = 1;
inline constexpr std::int64_t kMostSeeds = 100'000'000;
inline constexpr std::int64_t kLargestFirstSeed = 1'000'000'000'000'000'000;

}  // namespace locksim::scenario
