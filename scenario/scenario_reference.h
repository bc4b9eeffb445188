#pragma once
// The scenario format's key reference: one entry per key a scenario file may
// hold, named by its JSON pointer pattern (the path form every scenario error
// uses), with its type, unit, default, the limits the parser enforces and what
// it means. The one source for `locksim explain /JSON/POINTER` and for the key
// table in docs/scenario-format.md (a test compares the two, and another that
// every key the parser accepts has an entry here).
//
// Pattern segments: a key; `N` = any array index; `MODE` = an expectation
// mode (fencing-off, fencing-on, any); `MEASURE` = an expectation measure (a
// violation kind or a run outcome). Members of any distribution are listed
// once under the prefix `DISTRIBUTION`.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"  // kCurrentFormatVersion

namespace locksim::scenario {

struct KeyReference {
  std::string_view pattern;        // "/workers/retry", "/faults/N/for", "DISTRIBUTION/min"
  std::string_view type;           // "duration", "distribution", "\"redis\" | \"consensus\"", …
  std::string_view unit;           // "" when the value has none
  std::string_view default_value;  // "required", "none", or the default the parser fills in
  std::string_view limits;         // what the parser enforces; "" when nothing beyond the type
  std::string_view meaning;
};

// Every entry, in document order.
[[nodiscard]] std::span<const KeyReference> scenario_key_reference();

// The entry for a concrete JSON pointer ("/faults/0/for", "/expect/any/stale_write",
// "/workers/retry/max"), or nullopt if the format has no such key.
[[nodiscard]] std::optional<KeyReference> find_key_reference(std::string_view pointer);

// Patterns near `pointer` (for "did you mean"), nearest first; empty when none is close.
[[nodiscard]] std::vector<std::string> similar_key_patterns(std::string_view pointer);

// What `locksim explain` prints for `pointer`: the entry's fields, one per line.
[[nodiscard]] std::string key_reference_text(std::string_view pointer, const KeyReference& entry);

// The Markdown table of every entry (docs/scenario-format.md holds it verbatim).
[[nodiscard]] std::string key_reference_markdown_table();

// The Markdown table of the fault kinds, their parameters and what each does,
// from their types (model/fault.h); docs/scenario-format.md holds it verbatim.
[[nodiscard]] std::string fault_kind_markdown_table();

}  // namespace locksim::scenario
