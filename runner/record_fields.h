#pragma once
// Reading the typed fields of a history record (sim::Field) as the runner's
// observers see them, before any JSON text exists.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>

#include "sim/history_recorder.h"

namespace locksim::runner {

// The text of field `key`; empty if absent or not text.
[[nodiscard]] inline std::string_view text_field(std::span<const sim::Field> fields, std::string_view key) {
  for (const sim::Field& field : fields) {
    if (field.key == key) {
      if (const auto* text = std::get_if<std::string_view>(&field.value)) return *text;
    }
  }
  return {};
}

// The integer of field `key`; nullopt if absent or not an integer.
[[nodiscard]] inline std::optional<std::int64_t> integer_field(std::span<const sim::Field> fields,
                                                               std::string_view key) {
  for (const sim::Field& field : fields) {
    if (field.key == key) {
      if (const auto* number = std::get_if<std::int64_t>(&field.value)) return *number;
    }
  }
  return std::nullopt;
}

}  // namespace locksim::runner
