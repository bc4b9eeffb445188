// Every workers.* key of the scenario format has a live form, said in one
// table that docs/live.md holds: none is silently ignored live.
#include "live/live_worker_keys.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "scenario/scenario_reference.h"

namespace locksim::live {
namespace {

std::set<std::string> reference_worker_keys() {
  std::set<std::string> keys;
  for (const scenario::KeyReference& entry : scenario::scenario_key_reference()) {
    if (entry.pattern == "/workers" || entry.pattern.starts_with("/workers/")) keys.emplace(entry.pattern);
  }
  return keys;
}

TEST(LiveWorkerKeys, EveryWorkersKeyOfTheReferenceHasItsLiveFormAndNoOtherIsListed) {
  std::set<std::string> listed;
  for (const LiveWorkerKey& key : live_worker_keys()) {
    EXPECT_TRUE(listed.emplace(key.pattern).second) << key.pattern << " is listed twice";
    EXPECT_FALSE(key.live.empty()) << key.pattern;
  }
  const std::set<std::string> reference = reference_worker_keys();
  EXPECT_GE(reference.size(), 18u) << "the walk found the workers keys";
  EXPECT_EQ(listed, reference);
}

TEST(LiveWorkerKeys, TheDocsHoldTheTable) {
  std::ifstream file{std::filesystem::path{LOCKSIM_SOURCE_DIR} / "docs" / "live.md"};
  std::ostringstream text;
  text << file.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- BEGIN workers table: live/live_worker_keys.cpp -->\n";
  const std::size_t from = doc.find(begin);
  const std::size_t to = doc.find("<!-- END workers table -->");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), live_worker_keys_markdown_table());
}

}  // namespace
}  // namespace locksim::live
