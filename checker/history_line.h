#pragma once
// One history line with every field it carries, for those who tell a run to
// people (the replay trace, the timelines, explore's story and critical
// events): the checker's reader (history_reader.h) keeps only the fields the
// checks need and validates a whole file; this keeps them all, in the line's
// order, as text. The lines it reads are the recorder's, so a bad one is a
// bug, not bad input: it throws.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vocabulary/event_kind.h"

namespace locksim::checker {

// One field of a history line besides i, t, proc and ev.
struct HistoryField {
  std::string key;
  std::string text;                     // a string's contents, any other JSON value as JSON text
  std::optional<std::int64_t> integer;  // set iff the value is a JSON integer
};

struct HistoryLine {
  std::int64_t index = 0;    // `i`
  std::int64_t time_ns = 0;  // `t`, true time
  std::string proc;
  std::string event;                          // `ev` as written
  std::optional<vocabulary::EventKind> kind;  // nullopt for an `ev` the contract lacks
  std::vector<HistoryField> fields;           // in the line's order

  // The field called `key`, or nullptr.
  [[nodiscard]] const HistoryField* field(std::string_view key) const;
  // Its text; empty when the line lacks it or it is null.
  [[nodiscard]] std::string text(std::string_view key) const;
  // Its value when it is an integer.
  [[nodiscard]] std::optional<std::int64_t> integer(std::string_view key) const;
};

// Reads one history line (a JSON object with i, t, proc, ev). Throws
// std::invalid_argument naming what is wrong with anything else.
[[nodiscard]] HistoryLine read_history_line(std::string_view line);

// A field holding one proc or a JSON list of them (a fault's `target`): the names.
[[nodiscard]] std::vector<std::string> proc_names(const HistoryLine& line, std::string_view key);

}  // namespace locksim::checker
