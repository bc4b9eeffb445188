#pragma once
// The fencing modes' names, one table for all of locksim: "fencing-off" /
// "fencing-on" (summary keys, expectation modes, table rows) and "off" /
// "on" / "compare" (storage.fencing, the --fencing flags, replay commands).
// The mode itself is model::Fencing everywhere; text becomes one here, once,
// at the edge.

#include <optional>
#include <string_view>
#include <vector>

#include "model/options.h"

namespace locksim::scenario {

// "fencing-off" | "fencing-on"
[[nodiscard]] std::string_view fencing_mode_name(model::Fencing fencing);
[[nodiscard]] std::optional<model::Fencing> fencing_from_mode_name(std::string_view name);

// "off" | "on"
[[nodiscard]] std::string_view fencing_switch_name(model::Fencing fencing);

// "off" → {off}, "on" → {on}, "compare" → {off, on} (the order runs and
// reports use); nullopt for anything else.
[[nodiscard]] std::optional<std::vector<model::Fencing>> fencing_modes_from_switch(std::string_view text);

// The words fencing_modes_from_switch accepts, for messages and flag checks.
[[nodiscard]] std::vector<std::string> fencing_switch_words();

}  // namespace locksim::scenario
