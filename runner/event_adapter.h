#pragma once
// EventAdapter: turns the simulator's history records (the typed fields the
// recorder and the observers see) into the checker's own events
// (checker::Event) without writing or parsing JSON text. It is the bridge
// that lets a run be checked at the speed of the simulation while checker/
// stays independent of sim/: the runner depends on both, the checker on
// neither.
//
// What it promises:
// - For every record that the recorder would write as line L, adapt() gives
//   the event that the history reader gives for L, or the reader's own
//   complaint about L (tests/runner/event_adapter_test.cpp checks this for
//   generated histories). The rules that span lines (`i` in sequence, `t`
//   never decreasing) the recorder already guarantees.
// - Records it does not map field by field — a RawJson value on a field the
//   checker reads (run.begin's `service` and `workload`, run.end's `final`),
//   a field of an unexpected type or out of range — are written as their
//   JSON line and read with checker::LineReader: one decoder, so the two
//   paths cannot disagree. Two lines per run take that way. A record that
//   names `i`, `t`, `proc` or `ev` among its fields is refused (the
//   recorder writes those itself).
// - The event's strings point into the record's fields or the adapter's own
//   buffers: valid until the next adapt() on this thread (the text path's
//   reader is one per thread). No allocation per event once warm.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "checker/event.h"
#include "checker/history_reader.h"
#include "sim/history_recorder.h"
#include "sim/time.h"

namespace locksim::runner {

class EventAdapter {
 public:
  // Adapts record number `index` (0, 1, … in order) made at true time `time`.
  // Returns what the reader would say is wrong with its line, or nullopt and
  // then event() holds it.
  [[nodiscard]] std::optional<std::string> adapt(std::uint64_t index, sim::Time time, std::string_view proc,
                                                 sim::EventKind event, std::span<const sim::Field> fields);

  [[nodiscard]] const checker::Event& event() const { return *current_; }
  // What a reader of the whole history would report: events adapted so far,
  // whether run.begin / run.end were among them.
  [[nodiscard]] const checker::ReadSummary& summary() const { return summary_; }

 private:
  enum class FieldsAdapted : std::uint8_t {
    kMapped,         // every field mapped without text
    kThroughText,    // some field needs the text path
    kOwnFieldGiven,  // a field is named `i`, `t`, `proc` or `ev` (own_field_ says which)
  };
  FieldsAdapted adapt_fields(std::span<const sim::Field> fields);
  std::optional<std::string> adapt_through_text(std::uint64_t index, sim::Time time, std::string_view proc,
                                                sim::EventKind event, std::span<const sim::Field> fields);

  checker::Event event_;
  const checker::Event* current_ = &event_;
  checker::ReadSummary summary_;
  std::string_view own_field_;
  // Text made for the event: integers given as `job` / `request_id`, `value`'s JSON.
  fmt::memory_buffer job_text_;
  fmt::memory_buffer request_id_text_;
  std::string value_text_;
  // The text path's line. Its reader is one per thread (event_adapter.cpp),
  // not one per adapter: a run makes one adapter, and a reader's parser
  // buffers are most of a short run's set-up cost otherwise.
  fmt::memory_buffer line_;
};

}  // namespace locksim::runner
