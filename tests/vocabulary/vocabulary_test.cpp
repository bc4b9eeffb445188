// The vocabulary is the one place the history's words are spelled: its
// tables agree with themselves, and no other source of the program spells
// them again (a copy that compiles is how a misspelled event or a mistyped
// trigger went unnoticed before).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/reason.h"
#include "vocabulary/setup_name.h"

namespace locksim::vocabulary {
namespace {

TEST(Vocabulary, EveryEventKindReadsBackFromItsNameAndNamesAreUnique) {
  std::set<std::string_view> names;
  for (const EventInfo& info : kEvents) {
    EXPECT_EQ(event_kind_from_name(info.name), info.kind) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << info.name << " twice";
  }
  EXPECT_EQ(names.size(), kEventKindCount);
  EXPECT_EQ(event_kind_from_name("lease.granted"), std::nullopt);
  EXPECT_EQ(event_kind_from_name(""), std::nullopt);
  EXPECT_EQ(event_kind_from_name("live.stop"), std::nullopt);  // live's word to its coordinator, no history event
}

TEST(Vocabulary, EveryFaultKindReadsBackFromItsName) {
  for (std::size_t at = 0; at < kFaultKindNames.size(); ++at) {
    EXPECT_EQ(fault_kind_from_name(kFaultKindNames[at]), static_cast<FaultKind>(at));
  }
  EXPECT_EQ(fault_kind_from_name("gc-pause"), std::nullopt);
}

TEST(Vocabulary, CallsPairAnInvokeWithCompletionsOfTheSameName) {
  for (const EventInfo& info : kEvents) {
    if (info.call == CallPart::kNone) continue;
    EXPECT_EQ(info.emitter, Emitter::kWorker) << info.name;
    const std::string_view call = info.name.substr(0, info.name.find('.'));
    const auto invoke = event_kind_from_name(std::string{call} + ".invoke");
    ASSERT_TRUE(invoke.has_value()) << info.name;
    EXPECT_EQ(event_info(*invoke).call, CallPart::kInvoke);
  }
}

// The words a literal elsewhere would spell again. Single words ("crash",
// "held", "pause") are also plain English, in messages and process names:
// the check covers the names a grep can tell apart — every dotted event name
// and every hyphenated fault kind, reason, service kind and workload kind.
std::set<std::string> words_to_find() {
  std::set<std::string> words;
  for (const EventInfo& info : kEvents) {
    if (info.name.find('.') != std::string_view::npos) words.emplace(info.name);
  }
  for (const std::string_view name : kFaultKindNames) {
    if (name.find('-') != std::string_view::npos) words.emplace(name);
  }
  for (const char* name : {reason::kNotOwner, reason::kNotHeld, reason::kReadOnly, reason::kNoReplicas, reason::kOutOfMemory,
                           reason::kNotReplicated, reason::kNoQuorum, reason::kValidityElapsed, reason::kSessionExpired,
                           reason::kMaxTries, reason::kStaleToken, reason::kDuplicateRequest, reason::kNotCurrent,
                           service_kind::kRedisFailover, workload_kind::kWriteOnly}) {
    words.emplace(name);
  }
  return words;
}

// `line` without a trailing // comment (one that starts outside a string).
std::string code_of(const std::string& line) {
  bool in_string = false;
  for (std::size_t at = 0; at + 1 < line.size(); ++at) {
    if (line[at] == '\\') {
      ++at;
    } else if (line[at] == '"') {
      in_string = !in_string;
    } else if (!in_string && line[at] == '/' && line[at + 1] == '/') {
      return line.substr(0, at);
    }
  }
  return line;
}

TEST(Vocabulary, NoSourceOutsideTheVocabularySpellsAnEventFaultKindOrReasonName) {
  const std::set<std::string> words = words_to_find();
  const std::regex quoted{R"re("([a-z_.\-]+)")re"};
  const std::filesystem::path root{LOCKSIM_SOURCE_DIR};
  std::vector<std::string> found;
  std::size_t files = 0;
  for (const char* folder :
       {"sim", "model", "scenario", "checker", "runner", "reports", "explore", "live", "cli", "text"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
      const std::string extension = entry.path().extension().string();
      if (extension != ".cpp" && extension != ".h") continue;
      ++files;
      std::ifstream in{entry.path()};
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        const std::string code = code_of(line);
        for (auto match = std::sregex_iterator(code.begin(), code.end(), quoted); match != std::sregex_iterator();
             ++match) {
          if (words.contains((*match)[1])) {
            found.push_back(std::filesystem::relative(entry.path(), root).string() + ":" + std::to_string(number) +
                            ": \"" + std::string{(*match)[1]} + "\"");
          }
        }
      }
    }
  }
  EXPECT_GT(files, 100u) << "the walk found the sources";
  std::ostringstream list;
  for (const std::string& place : found) list << "\n  " << place;
  EXPECT_TRUE(found.empty()) << "spelled outside vocabulary/ (name it from vocabulary/ instead):" << list.str();
}

}  // namespace
}  // namespace locksim::vocabulary
