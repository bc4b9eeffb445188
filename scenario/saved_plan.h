#pragma once
// A seed's plan written back as a scenario file (`replay --save-plan`): the
// original file with every fault made explicit — its target, its time or
// trigger, its lengths — and the clock drifts as clock-drift faults at 0 s.
// It needs no random draws for its faults, so a failure found today can be
// re-checked after the code and its random streams change. Work lengths and
// network delays still come from the seed's own streams, so the file records
// the seed as `first_seed` (with `seeds` 1): `run`/`replay` of it use that
// seed unless --seed/--first-seed says otherwise.

#include <string>
#include <string_view>

#include "scenario/plan.h"
#include "scenario/scenario.h"

namespace locksim::scenario {

// Requires `original` to be the JSON text `scenario` was parsed from.
[[nodiscard]] std::string saved_plan_json(std::string_view original, const Scenario& scenario, const Plan& plan);

}  // namespace locksim::scenario
