#pragma once
// The values `locksim verify` tries at a draw: a small domain whose first
// value is the default (the distribution's median, or its fixed value) and
// whose others are the alternatives a deviation may take — the ends of the
// distribution (its support's, or its 1st and 99th percentiles where the
// support is unbounded) and, where a length races a lease, the critical
// values just short of and just past the lease left at that moment.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/distribution.h"
#include "sim/time.h"

namespace locksim::verify {

// How far either side of the lease left a critical value lies.
inline constexpr sim::Duration kCriticalMargin = sim::Duration::milliseconds(1);

struct DomainOptions {
  bool quartiles = false;  // --domain wide: also the 25th and 75th percentiles
};

struct DurationValue {
  sim::Duration value;
  std::string why;  // "median", "min", "lease left + 1ms"
};

// The default first, no value twice, every value within the distribution's support.
[[nodiscard]] std::vector<DurationValue> duration_domain(const sim::Distribution& distribution,
                                                         std::optional<sim::Duration> lease_left,
                                                         const DomainOptions& options);

// For rng.below(bound): every value (`every`: a fault's target or anchor,
// where each is a different story), else the median first, then 0 and bound − 1.
[[nodiscard]] std::vector<std::uint64_t> below_domain(std::uint64_t bound, bool every);

// For rng.chance(p): the likelier outcome first, then the other if it can happen.
[[nodiscard]] std::vector<bool> chance_domain(double probability);

}  // namespace locksim::verify
