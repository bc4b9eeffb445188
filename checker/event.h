#pragma once
// Event: one line of a history (docs/history-format.md), as the checks see it.
//
// An Event is a typed *view*: its strings point into the reader's buffers and
// are valid only while the visitor that received it runs. A check that needs a
// name later copies it. Fields a line does not carry are empty / nullopt; the
// reader has already rejected lines that lack a field a check relies on (see
// checker/history_reader.h for the list).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "checker/name_ids.h"
#include "vocabulary/event_kind.h"

namespace locksim::checker {

// Every `ev` the contract names (vocabulary/event_kind.h). The reader
// rejects any other name.
using vocabulary::event_kind_from_name;
using vocabulary::event_kind_name;
using vocabulary::EventKind;

// The fields of a line that the checks read (`i`, `t`, `proc`, `ev` and the
// rest of Event's); every other field is kUnknown, which the checks ignore.
enum class EventField : std::uint8_t {
  kUnknown, kIndex, kTime, kProcess, kEvent, kLock, kOwner, kBy, kToken, kLeaseNs, kReason, kKey, kWriter, kReader,
  kJob, kRequestId, kValue, kService, kWorkload, kStuckAfterNs, kFinal,
};

// The field called `name` (a line's JSON key).
[[nodiscard]] EventField event_field_from_name(std::string_view name);

// One entry of run.end's `final` object: a storage key and its value when that
// value is an integer (the counter workload's), nullopt otherwise.
struct FinalValue {
  std::string_view key;
  std::optional<std::int64_t> integer;
};

struct Event {
  // Every line.
  std::int64_t index = 0;     // `i`
  std::int64_t time_ns = 0;   // `t`, true time
  std::string_view process;   // `proc`
  EventKind kind = EventKind::kRunBegin;

  // Lock and lease fields.
  std::string_view lock;
  std::string_view owner;
  std::string_view by;  // lease.release: who asked for the delete
  // `token`: an integer fencing token, or (a recorded real history) an opaque
  // string lock id in token_text, which supports equality only. At most one
  // is set; a history uses one kind throughout (the reader checks).
  std::optional<std::int64_t> token;
  std::string_view token_text;
  // lease_ns absent or 0 both mean "no expiry" (a scenario with `lease: none`).
  std::optional<std::int64_t> lease_ns;
  std::string_view reason;

  // Storage fields.
  std::string_view key;
  std::string_view writer;
  std::string_view reader;      // read.accept / read.reject: whose read it was
  std::string_view job;         // textual even when the JSON held a number
  std::string_view request_id;  // textual even when the JSON held a number
  std::string_view value_json;  // the raw JSON text of `value`, for explanations
  std::optional<std::int64_t> value_integer;

  // run.begin: the service shape, when the recorder knows it.
  std::string_view service_kind;
  std::optional<std::int64_t> service_instances;
  std::optional<std::int64_t> service_quorum;
  // run.begin extensions (optional; docs/history-format.md allows added fields):
  // `workload` ("counter" / "billing", or an object with `kind`) and
  // `stuck_after_ns` (the scenario's lock.stuck_after).
  std::string_view workload_kind;
  std::optional<std::int64_t> stuck_after_ns;

  // run.end: `final`, when present.
  bool has_final = false;
  std::span<const FinalValue> final_values;

  // The interned ids of the name fields the checks key their state by
  // (checker/name_ids.h); kNoName when empty. HistoryChecker fills them
  // before any check sees the event: producers of events leave them be.
  NameId process_id = kNoName;
  NameId lock_id = kNoName;
  NameId owner_id = kNoName;
  NameId writer_id = kNoName;
  NameId reader_id = kNoName;
};

// Why `event` lacks a field the checks rely on for its kind, in the reader's
// words ("expected field `lock` (the lock's name, a string) in a hold.begin
// event"); nullopt when it has them all. The list is in history_reader.h.
[[nodiscard]] std::optional<std::string> missing_required_field(const Event& event);

// `text` as a JSON string literal, quotes included: how Event::value_json
// holds a string `value`, whoever made the event.
[[nodiscard]] std::string json_string_literal(std::string_view text);

}  // namespace locksim::checker
