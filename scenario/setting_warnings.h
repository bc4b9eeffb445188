#pragma once
// Settings a scenario file may state but that cannot work as intended:
//   - /workers/renew_every not shorter than the lease (the watchdog renews
//     after the lease ran out), or stated without `renew: "watchdog"`;
//   - /lock/lease shorter than the network's p99 round trip (2 × the p99 of
//     /network/delay): a grant is mostly over before its reply arrives;
//   - /lock/stuck_after shorter than the lease: a crashed holder's lease that
//     simply runs out already counts as a stuck lock;
//   - /service/request_timeout "none" with a server that crashes: the model
//     waits for a crashed server as for a frozen one, a real client does not.
// The parser stores them in Scenario::warnings; the CLI prints each once per
// scenario as "FILE: warning: POINTER: message". Settings that make a run
// meaningless (renew_every 0) are errors in the parser instead.

#include <vector>

#include "scenario/scenario.h"
#include "sim/distribution.h"

namespace locksim::scenario {

// The warnings for `scenario`, in a fixed order (the order of the list above).
[[nodiscard]] std::vector<SettingWarning> setting_warnings(const Scenario& scenario);

// The 99th percentile of `distribution` (computed from its parameters, clamped
// like its samples to [0, Distribution::kLongestSample]), rounded to the nanosecond.
[[nodiscard]] sim::Duration percentile_99(const sim::Distribution& distribution);

}  // namespace locksim::scenario
