#pragma once
// What the coordinator accepts from a worker process's stdout, one JSON
// object per line: a history event of that worker (docs/history-format.md,
// "Workers") with `t` (ns since the run's t = 0 on CLOCK_MONOTONIC), `proc`
// (its own name), `ev` and the event's fields, plus `call` on every
// invoke and its completion; or a word to the coordinator (`live.stop`,
// `live.hello`, docs/live.md). Anything else is refused with the line, so a
// user's worker program that prints something else is told so at once.

#include <string>

#include <nlohmann/json.hpp>

namespace locksim::live {

// The words to the coordinator, which are no history events.
inline constexpr char kLiveHello[] = "live.hello";  // the worker's first line: what it can do
inline constexpr char kLiveStop[] = "live.stop";    // it stops itself now, for fault `fault`

// Why `line` (parsed from `text`; discarded if it did not parse) cannot come
// from `worker`; "" when it can.
[[nodiscard]] std::string worker_line_problem(const nlohmann::json& line, const std::string& worker);

}  // namespace locksim::live
