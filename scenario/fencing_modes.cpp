#include "scenario/fencing_modes.h"

#include <array>
#include <string>

namespace locksim::scenario {
namespace {

struct FencingNames {
  model::Fencing fencing;
  std::string_view mode_name;
  std::string_view switch_name;
};

constexpr std::array<FencingNames, 2> kNames{{
    {model::Fencing::kOff, "fencing-off", "off"},
    {model::Fencing::kOn, "fencing-on", "on"},
}};

constexpr std::string_view kCompare = "compare";

const FencingNames& names_of(model::Fencing fencing) {
  return fencing == model::Fencing::kOn ? kNames[1] : kNames[0];
}

}  // namespace

std::string_view fencing_mode_name(model::Fencing fencing) { return names_of(fencing).mode_name; }

std::optional<model::Fencing> fencing_from_mode_name(std::string_view name) {
  for (const FencingNames& names : kNames) {
    if (names.mode_name == name) return names.fencing;
  }
  return std::nullopt;
}

std::string_view fencing_switch_name(model::Fencing fencing) { return names_of(fencing).switch_name; }

std::optional<std::vector<model::Fencing>> fencing_modes_from_switch(std::string_view text) {
  if (text == kCompare) {
    std::vector<model::Fencing> all;
    for (const FencingNames& names : kNames) all.push_back(names.fencing);
    return all;
  }
  for (const FencingNames& names : kNames) {
    if (names.switch_name == text) return std::vector<model::Fencing>{names.fencing};
  }
  return std::nullopt;
}

std::vector<std::string> fencing_switch_words() {
  std::vector<std::string> words;
  for (const FencingNames& names : kNames) words.emplace_back(names.switch_name);
  words.emplace_back(kCompare);
  return words;
}

}  // namespace locksim::scenario
