#pragma once
// A verify counterexample written as a scenario file: the original file with
// `choices` added (scenario.h, ChoiceScript) — the bounds its domains were
// made under and each deviation's position, value index and site. `replay`
// runs it exactly (script_of, check_sites); `run`, which samples seeds,
// refuses it. Its name gains "-counterexample", its seeds are 1.

#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"
#include "verify/verification.h"

namespace locksim::verify {

// Requires `original` to be the JSON text `scenario` was parsed from.
[[nodiscard]] std::string counterexample_file_json(std::string_view original, const scenario::Scenario& scenario,
                                                   const Bounds& bounds, const VerifiedRun& counterexample);

// The bounds and the script a file's `choices` give.
[[nodiscard]] Bounds bounds_of(const scenario::ChoiceScript& choices);
[[nodiscard]] std::vector<std::uint32_t> script_of(const scenario::ChoiceScript& choices);

// Empty when every deviation of `choices` met the site it names in `run`;
// else what differs (the model changed since the file was written).
[[nodiscard]] std::string check_sites(const scenario::ChoiceScript& choices, const VerifiedRun& run);

}  // namespace locksim::verify
