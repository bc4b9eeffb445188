#include "checker/history_line.h"

#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vocabulary/field_name.h"

namespace locksim::checker {

namespace field = vocabulary::field;

const HistoryField* HistoryLine::field(std::string_view key) const {
  for (const HistoryField& candidate : fields) {
    if (candidate.key == key) return &candidate;
  }
  return nullptr;
}

std::string HistoryLine::text(std::string_view key) const {
  const HistoryField* found = field(key);
  return found == nullptr || found->text == "null" ? std::string{} : found->text;
}

std::optional<std::int64_t> HistoryLine::integer(std::string_view key) const {
  const HistoryField* found = field(key);
  return found == nullptr ? std::nullopt : found->integer;
}

HistoryLine read_history_line(std::string_view text) {
  const nlohmann::ordered_json line = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto has = [&line](const char* key, bool integer) {
    return line.contains(key) && (integer ? line[key].is_number_integer() : line[key].is_string());
  };
  if (!line.is_object() || !has(field::kIndex, true) || !has(field::kTime, true) || !has(field::kProc, false) ||
      !has(field::kEvent, false)) {
    throw std::invalid_argument(
        fmt::format("not a history line (an object with integer i and t, string proc and ev): {}", text));
  }
  HistoryLine read{.index = line[field::kIndex].get<std::int64_t>(),
                   .time_ns = line[field::kTime].get<std::int64_t>(),
                   .proc = line[field::kProc].get<std::string>(),
                   .event = line[field::kEvent].get<std::string>(),
                   .kind = std::nullopt,
                   .fields = {}};
  read.kind = vocabulary::event_kind_from_name(read.event);
  for (const auto& [key, value] : line.items()) {
    if (key == field::kIndex || key == field::kTime || key == field::kProc || key == field::kEvent) continue;
    read.fields.push_back({.key = key,
                           .text = value.is_string() ? value.get<std::string>() : value.dump(),
                           .integer = value.is_number_integer() ? std::optional{value.get<std::int64_t>()} : std::nullopt});
  }
  return read;
}

std::vector<std::string> proc_names(const HistoryLine& line, std::string_view key) {
  const std::string text = line.text(key);
  if (text.empty() || text.front() != '[') return text.empty() ? std::vector<std::string>{} : std::vector{text};
  std::vector<std::string> names;
  const nlohmann::json list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!list.is_array()) return names;
  for (const nlohmann::json& name : list) {
    if (name.is_string()) names.push_back(name.get<std::string>());
  }
  return names;
}

}  // namespace locksim::checker
