#include "reports/scenario_parameters.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenario/scenario_reference.h"

namespace locksim::reports {
namespace {

using Json = nlohmann::ordered_json;

// Keys that say how the file is run or named, not what it models.
constexpr std::array kNotModelled = {"name", "description", "seeds", "first_seed", "format_version",
                                     "probes_required", "allow_inert", "duration", "swarm"};

std::string value_text(const Json& value);

// {"dist": "uniform", "min": "100ms", "max": "2s"} → "uniform 100ms–2s".
std::string distribution_text(const Json& object) {
  const std::string dist = object.at("dist").get<std::string>();
  if (dist == "uniform" && object.contains("min") && object.contains("max")) {
    return fmt::format("uniform {}–{}", value_text(object.at("min")), value_text(object.at("max")));
  }
  std::string text = dist;
  for (const auto& [key, item] : object.items()) {
    if (key != "dist") text += fmt::format(" {} {}", key, value_text(item));
  }
  return text;
}

std::string object_text(const Json& object) {
  if (object.contains("dist") && object.at("dist").is_string()) return distribution_text(object);
  std::string text;
  for (const auto& [key, item] : object.items()) {
    if (!text.empty()) text += ", ";
    text += item.is_object() && !item.contains("dist") ? fmt::format("{} ({})", key, value_text(item))
                                                        : fmt::format("{} {}", key, value_text(item));
  }
  return text;
}

std::string value_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object()) return object_text(value);
  if (value.is_array()) {
    std::string text;
    for (const Json& item : value) {
      if (!text.empty()) text += ", ";
      text += value_text(item);
    }
    return text;
  }
  return value.dump();
}

// "fencing-off: stale_write >0, double_holder >0; fencing-on: stale_write ==0".
std::string expect_text(const Json& expect) {
  std::string text;
  for (const auto& [mode, bounds] : expect.items()) {
    if (!text.empty()) text += "; ";
    text += mode + ":";
    bool first = true;
    for (const auto& [measure, bound] : bounds.items()) {
      text += fmt::format("{} {} {}", first ? "" : ",", measure, value_text(bound));
      first = false;
    }
  }
  return text;
}

// The settings every page names even when the file leaves them to their
// defaults: what the lock service is, the lease, the workers and their work,
// and whether storage fences.
constexpr std::array kAlwaysShown = {"/service/kind", "/lock/lease", "/workers/count", "/workers/work", "/storage/fencing"};

// "kind redis (default)", from the key reference (the one home of defaults).
void add_defaults(const Json& file, std::vector<ParameterRow>& rows) {
  for (const std::string_view pointer : kAlwaysShown) {
    if (file.contains(Json::json_pointer{std::string{pointer}})) continue;
    const std::optional<scenario::KeyReference> key = scenario::find_key_reference(pointer);
    if (!key) continue;
    const std::size_t slash = pointer.rfind('/');
    const std::string section{pointer.substr(1, slash - 1)};
    std::string value{key->default_value};
    std::erase(value, '"');
    const std::string text = fmt::format("{} {} (default)", pointer.substr(slash + 1), value);
    const auto existing = std::ranges::find(rows, section, &ParameterRow::section);
    if (existing != rows.end()) {
      existing->text += ", " + text;
    } else {
      rows.push_back({section, text});
    }
  }
}

}  // namespace

std::vector<ParameterRow> scenario_parameters(std::string_view file_text) {
  const Json file = Json::parse(file_text);
  std::vector<ParameterRow> rows;
  for (const auto& [section, value] : file.items()) {
    if (std::ranges::find(kNotModelled, section) != kNotModelled.end()) continue;
    if (section == "faults") {
      for (std::size_t index = 0; index < value.size(); ++index) {
        rows.push_back({fmt::format("faults[{}]", index), value_text(value[index])});
      }
    } else if (section == "expect") {
      rows.push_back({"expect", expect_text(value)});
    } else {
      rows.push_back({section, value_text(value)});
    }
  }
  add_defaults(file, rows);
  return rows;
}

}  // namespace locksim::reports
