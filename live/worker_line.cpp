#include "live/worker_line.h"

#include <fmt/format.h>
#include <optional>

#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"

namespace locksim::live {

using vocabulary::EventKind;
namespace field = vocabulary::field;

namespace {

// Worker events that must name the lock (the checker needs it on some; live
// asks it of all its acquire and hold lines).
bool names_the_lock(EventKind kind) {
  switch (kind) {
    case EventKind::kAcquireInvoke:
    case EventKind::kAcquireOk:
    case EventKind::kAcquireFail:
    case EventKind::kAcquireGiveUp:
    case EventKind::kHoldBegin:
    case EventKind::kHoldEnd:
      return true;
    default:
      return false;
  }
}

// A field of a worker's event whose JSON type is wrong: its name and what it
// should be; empty when every field has its type. `token` is an integer
// fencing token or an opaque string lock id (docs/history-format.md).
std::string field_type_problem(const nlohmann::json& line) {
  struct Expected {
    const char* field;
    bool (*holds)(const nlohmann::json&);
    const char* what;
  };
  static constexpr Expected kTypes[] = {
      {field::kLock, [](const nlohmann::json& value) { return value.is_string(); }, "a string"},
      {field::kReason, [](const nlohmann::json& value) { return value.is_string(); }, "a string"},
      {field::kKey, [](const nlohmann::json& value) { return value.is_string(); }, "a string"},
      {field::kToken, [](const nlohmann::json& value) { return value.is_number_integer() || value.is_string(); },
       "an integer or a string"},
      {field::kLeaseNs, [](const nlohmann::json& value) { return value.is_number_integer(); }, "an integer"},
      {field::kValidityNs, [](const nlohmann::json& value) { return value.is_number_integer(); }, "an integer"},
      {field::kLocalTime, [](const nlohmann::json& value) { return value.is_number_integer(); }, "an integer"},
      {field::kTries, [](const nlohmann::json& value) { return value.is_number_integer(); }, "an integer"},
  };
  for (const Expected& expected : kTypes) {
    const auto found = line.find(expected.field);
    if (found != line.end() && !expected.holds(*found)) {
      const std::string_view type = found->type_name();
      const char* article = type == "null" ? "" : (type == "object" || type == "array") ? "an " : "a ";
      return fmt::format("its \"{}\" is {}{}, not {}", expected.field, article, type, expected.what);
    }
  }
  return "";
}

}  // namespace

std::string worker_line_problem(const nlohmann::json& line, const std::string& worker) {
  if (line.is_discarded() || !line.is_object()) return "it is not a JSON object";
  if (!line.contains(field::kEvent) || !line[field::kEvent].is_string()) return "it has no string \"ev\"";
  const std::string event = line[field::kEvent].get<std::string>();
  const std::optional<EventKind> kind = vocabulary::event_kind_from_name(event);
  const bool worker_event = kind && vocabulary::emitter_of(*kind) == vocabulary::Emitter::kWorker;
  if (!worker_event && event != kLiveStop && event != kLiveHello) {
    return fmt::format("\"ev\" \"{}\" is no worker event (docs/history-format.md, \"Workers\")", event);
  }
  if (event == kLiveHello) return "";
  if (!line.contains(field::kTime) || !line[field::kTime].is_number_integer()) {
    return "it has no integer \"t\" (ns since the run's start_ns on CLOCK_MONOTONIC)";
  }
  if (!line.contains(field::kProc) || line[field::kProc] != worker) {
    return fmt::format("its \"proc\" is not \"{}\"", worker);
  }
  if (event == kLiveStop) {
    return line.contains(field::kFault) && line[field::kFault].is_number_unsigned()
               ? ""
               : "live.stop needs the stop's \"fault\"";
  }
  const bool of_a_call = vocabulary::event_info(*kind).call != vocabulary::CallPart::kNone;
  if (of_a_call && (!line.contains(field::kCall) || !line[field::kCall].is_string())) {
    return fmt::format("{} needs a string \"call\" (the id shared by a call's invoke and its completion)", event);
  }
  if (names_the_lock(*kind) && !line.contains(field::kLock)) return fmt::format("{} needs \"lock\"", event);
  return field_type_problem(line);
}

}  // namespace locksim::live
