#pragma once
// HistoryRecorder: writes what happened in a run as the JSON Lines of
// docs/history-format.md — one object per event with `i`, `t`, `proc`, `ev` first,
// then the event's fields in the order given.
//
// Lines go to a sink as they are made (a file, a vector in tests), so
// recording never holds the whole history. Without a sink no text is made at
// all: a run that is only checked hands the typed records to the checker
// (runner/event_adapter.h) and never formats a line.
//
// Every record feeds a 64-bit running hash, which is how two runs of one seed
// are compared without keeping either history (the determinism self-check).
// It hashes the typed record, not its text, so that it costs no formatting:
// a canonical serialisation of exactly what the line is made of, in the
// line's order — `i`, `t`, `proc`, `ev`, then each field's key, type and
// value (an integer's 64 bits, a string's or raw JSON's bytes, each with its
// length). The line is a pure function of those same inputs, so equal
// records give equal lines, and a line that differs differs in a record and
// changes this hash. When text is made, text_hash() is the hash of the lines
// themselves (what the golden histories pin, tests/golden).

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include "time.h"

#include "vocabulary/event_kind.h"

namespace locksim::sim {

using vocabulary::EventKind;

// A value that is already JSON (an object or array), written as is.
struct RawJson {
  std::string_view text;
};

using FieldValue = std::variant<std::int64_t, bool, std::string_view, RawJson>;

struct Field {
  std::string_view key;
  FieldValue value;

  Field(std::string_view name, std::string_view text) : key{name}, value{text} {}
  Field(std::string_view name, const char* text) : key{name}, value{std::string_view{text}} {}
  Field(std::string_view name, const std::string& text) : key{name}, value{std::string_view{text}} {}
  Field(std::string_view name, std::int64_t number) : key{name}, value{number} {}
  Field(std::string_view name, int number) : key{name}, value{std::int64_t{number}} {}
  Field(std::string_view name, std::uint64_t number) : key{name}, value{static_cast<std::int64_t>(number)} {}
  Field(std::string_view name, bool flag) : key{name}, value{flag} {}
  Field(std::string_view name, Duration length) : key{name}, value{length.count_ns()} {}
  Field(std::string_view name, LocalTime reading) : key{name}, value{reading.ns()} {}
  Field(std::string_view name, RawJson json) : key{name}, value{json} {}
};

// Receives each finished line, without its trailing newline.
using HistorySink = std::function<void(std::string_view line)>;

class HistoryRecorder {
 public:
  // With an empty sink the recorder only counts and hashes.
  explicit HistoryRecorder(HistorySink sink = {}) : sink_{std::move(sink)} {}

  // Appends event number events_recorded() at true time `t`. Requires `t` not
  // before the previous event's (the history is in true-time order).
  void record(Time t, std::string_view proc, EventKind event, std::span<const Field> fields);
  void record(Time t, std::string_view proc, EventKind event, std::initializer_list<Field> fields) {
    record(t, proc, event, std::span{fields.begin(), fields.size()});
  }

  [[nodiscard]] std::uint64_t events_recorded() const { return events_recorded_; }
  // A hash of every record so far (see above): equal for equal histories.
  [[nodiscard]] std::uint64_t hash() const { return hash_; }
  // A hash of every line written to the sink: equal for byte-identical
  // histories. Meaningful only with a sink (without one no line is made).
  [[nodiscard]] std::uint64_t text_hash() const { return text_hash_; }

 private:
  HistorySink sink_;
  fmt::memory_buffer line_;
  std::uint64_t events_recorded_ = 0;
  std::uint64_t hash_ = 0x6A09E667F3BCC908ULL;
  std::uint64_t text_hash_ = 0x6A09E667F3BCC908ULL;
  Time last_time_;
};

// Appends record number `index` as its history line (no newline): `i`, `t`,
// `proc`, `ev`, then the fields in order, as docs/history-format.md says.
void format_history_line(fmt::memory_buffer& out, std::uint64_t index, Time t, std::string_view proc, EventKind event,
                         std::span<const Field> fields);

}  // namespace locksim::sim
