#pragma once
// The values `locksim verify` tries at a draw: a small domain whose first
// value is the default (the distribution's median, or its fixed value) and
// whose others are the alternatives a deviation may take — the ends of the
// distribution (its support's, or its 1st and 99th percentiles where the
// support is unbounded) and the critical values the run itself defines:
// where a length races a lease, just short of and just past the lease left
// at that moment; where a message to storage races another worker's access,
// a delay that lands just before and just after that access.

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

// A message to storage whose delay is critical: `until` is how long after
// it was sent another worker's next storage access came, in the run made
// without this deviation (verify/landing.h).
struct Landing {
  sim::Duration until;
  std::string whose;  // the other worker
};

// Why a value is in a domain. Words only when a person reads them
// (why_text): a run draws thousands of values and names a few.
enum class ValueReason : std::uint8_t {
  kMedian,
  kFixed,
  kMin,
  kFirstPercentile,
  kMax,
  kNinetyNinthPercentile,
  kFirstQuartile,
  kThirdQuartile,
  kLeaseLeftMinus,
  kLeaseLeftPlus,
  kLandsBefore,
  kLandsAfter,
};

struct DurationValue {
  sim::Duration value;
  ValueReason reason = ValueReason::kMedian;
};

// "median", "the lease left − 1ms", "lands 1ms before worker-3's next storage
// access" (`landing` names the worker of a landing's value).
[[nodiscard]] std::string why_text(ValueReason reason, const std::optional<Landing>& landing = std::nullopt);

// The default first, no value twice, every value within the distribution's
// support; a landing's values only within the span of the others (between
// the min and the max, or the 1st and 99th percentiles): a delay of seconds
// on a link whose 99th percentile is 20 ms is a partition's story, which a
// file tells with a partition or a delay spike.
[[nodiscard]] std::vector<DurationValue> duration_domain(const sim::Distribution& distribution,
                                                         std::optional<sim::Duration> lease_left,
                                                         const DomainOptions& options,
                                                         const std::optional<Landing>& landing = std::nullopt);

// For rng.below(bound): every value (`every`: a fault's target or anchor,
// where each is a different story), else the median first, then 0 and bound − 1.
[[nodiscard]] std::vector<std::uint64_t> below_domain(std::uint64_t bound, bool every);

// For rng.chance(p): the likelier outcome first, then the other if it can happen.
[[nodiscard]] std::vector<bool> chance_domain(double probability);

}  // namespace locksim::verify
