#include "live/worker_line.h"

#include <set>

#include <fmt/format.h>

namespace locksim::live {
namespace {

// The events a worker prints; those of a call carry its `call` id.
const std::set<std::string> kCallEvents = {
    "acquire.invoke", "acquire.ok", "acquire.fail", "renew.invoke",  "renew.ok",     "renew.fail",
    "release.invoke", "release.ok", "release.fail", "read.invoke",   "read.ok",      "write.invoke",
    "write.ok",       "write.fail", "effect.invoke", "effect.ok",    "effect.fail"};
const std::set<std::string> kOtherEvents = {"acquire.give_up", "hold.begin", "hold.end", "live.stop", "live.hello"};

}  // namespace

std::string worker_line_problem(const nlohmann::json& line, const std::string& worker) {
  if (line.is_discarded() || !line.is_object()) return "it is not a JSON object";
  if (!line.contains("ev") || !line["ev"].is_string()) return "it has no string \"ev\"";
  const std::string event = line["ev"].get<std::string>();
  if (!kCallEvents.contains(event) && !kOtherEvents.contains(event)) {
    return fmt::format("\"ev\" \"{}\" is no worker event (docs/history-format.md, \"Workers\")", event);
  }
  if (event == "live.hello") return "";
  if (!line.contains("t") || !line["t"].is_number_integer()) {
    return "it has no integer \"t\" (ns since the run's start_ns on CLOCK_MONOTONIC)";
  }
  if (!line.contains("proc") || line["proc"] != worker) return fmt::format("its \"proc\" is not \"{}\"", worker);
  if (event == "live.stop") {
    return line.contains("fault") && line["fault"].is_number_unsigned() ? "" : "live.stop needs the stop's \"fault\"";
  }
  if (kCallEvents.contains(event) && (!line.contains("call") || !line["call"].is_string())) {
    return fmt::format("{} needs a string \"call\" (the id shared by a call's invoke and its completion)", event);
  }
  if ((event.starts_with("acquire.") || event.starts_with("hold.")) && !line.contains("lock")) {
    return fmt::format("{} needs \"lock\"", event);
  }
  return "";
}

}  // namespace locksim::live
