#pragma once
// How `live --compare-sim` reports whether live and simulated agree
// (runner/live_agreement.h): lines for people, and the JSON summary's
// "agreement" array.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/live_agreement.h"

namespace locksim::reports {

// A heading, then a line per mode: "agree" with the kinds either side saw,
// or each kind they disagree on with its shares and p.
[[nodiscard]] std::string agreement_to_text(const std::vector<runner::KindAgreement>& agreement);

// One object per mode and kind: mode, kind, live and simulated runs with it
// and runs, p, agree.
[[nodiscard]] nlohmann::ordered_json agreement_to_json(const std::vector<runner::KindAgreement>& agreement);

}  // namespace locksim::reports
