// workers.client: a preset behaves exactly as the same keys written out in
// the file (the same history, seed for seed), fills only the keys the file
// leaves out, refuses a service kind its library cannot lock with, and the
// table in docs/models.md is the one `locksim explain /workers/client` shows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../text_files.h"
#include "runner/seed_run.h"
#include "scenario/client_presets.h"
#include "scenario/scenario_parser.h"

namespace locksim::scenario {
namespace {

using nlohmann::json;

// A scenario with a pause past a 10 s lease, so that retries, the lease and the timeouts all act.
json base_scenario(const std::string& kind) {
  return json{{"name", "preset"},
              {"duration", "3m"},
              {"service", {{"kind", kind}}},
              {"workers", json::object()},
              {"workload", {{"kind", "counter"}, {"jobs", 3}}},
              {"faults", json::array({{{"kind", "pause"}, {"target", "worker-1"}, {"when", "after-acquire"}, {"for", "20s"}}})}};
}

std::uint64_t history_hash(const json& document, std::uint64_t seed) {
  const Scenario scenario = parse_scenario(document.dump(), "preset.json");
  return runner::run_seed(scenario, seed, model::Fencing::kOff).history_hash;
}

TEST(ClientPresets, APresetRunsAsItsKeysWrittenOutInTheFile) {
  for (const ClientPreset& preset : client_presets()) {
    for (const model::ServiceKind service : preset.services.kinds()) {
      const std::string kind = model::service_kind_name(service);
      json with_preset = base_scenario(kind);
      with_preset["workers"]["client"] = std::string{preset.name};
      json written_out = base_scenario(kind);
      int written = 0;
      for (const PresetSetting& setting : preset.settings) {
        if (!setting.services.empty() && !setting.services.contains(service)) continue;
        written_out[json::json_pointer{std::string{setting.pointer}}] = json::parse(setting.value);
        ++written;
      }
      EXPECT_GE(written, 5) << preset.name << " on " << kind;
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        EXPECT_EQ(history_hash(with_preset, seed), history_hash(written_out, seed)) << preset.name << " on " << kind << ", seed " << seed;
      }
      // And the preset changes something: the same file without it runs otherwise.
      json without = with_preset;
      without["workers"].erase("client");
      EXPECT_NE(history_hash(with_preset, 1), history_hash(without, 1)) << preset.name << " on " << kind;
    }
  }
}

TEST(ClientPresets, TheFilesOwnKeysWin) {
  json document = base_scenario("redis");
  document["workers"]["client"] = "redsync";
  document["lock"] = {{"lease", "30s"}};
  document["workers"]["max_tries"] = 5;
  const Scenario scenario = parse_scenario(document.dump(), "preset.json");
  EXPECT_EQ(scenario.system.lock.lease, sim::Duration::seconds(30)) << "the file's lease, not redsync's 8 s";
  EXPECT_EQ(scenario.system.workers.max_tries, 5);
  EXPECT_EQ(scenario.system.service.request_timeout, sim::Duration::seconds(3)) << "the rest is redsync's";
}

// A file that turns the library's renewal off gets none of the renewal's settings (and no warning that they do nothing).
TEST(ClientPresets, AFileThatSetsTheRenewalItselfGetsNoneOfThePresetsRenewalSettings) {
  json document = base_scenario("redis");
  document["workers"]["client"] = "redis-semaphore";
  document["workers"]["renew"] = "none";
  const Scenario scenario = parse_scenario(document.dump(), "preset.json");
  EXPECT_EQ(scenario.system.workers.renew, model::RenewMethod::kNone);
  EXPECT_TRUE(scenario.warnings.empty()) << scenario.warnings.front().pointer << ": " << scenario.warnings.front().message;
  EXPECT_EQ(scenario.system.workers.acquire_timeout, sim::Duration::seconds(10)) << "the rest is redis-semaphore's";
}

TEST(ClientPresets, RedisPyHasNoLeaseAndNoRequestTimeoutByDefault) {
  json document = base_scenario("redis");
  document["workers"]["client"] = "redis-py";
  const Scenario scenario = parse_scenario(document.dump(), "preset.json");
  EXPECT_FALSE(scenario.system.lock.lease.has_value()) << "Lock(timeout=None): SET NX without PX";
  EXPECT_EQ(scenario.system.service.request_timeout, sim::Duration::max()) << "socket_timeout=None";
  EXPECT_EQ(scenario.system.workers.retry, sim::Distribution::constant(sim::Duration::milliseconds(100))) << "sleep=0.1";
}

// service.request_timeout "none" (redis-py, ioredis): a request to a frozen
// server is answered when it wakes, never given up; with a timeout it fails.
TEST(ClientPresets, WithoutARequestTimeoutARequestToAFrozenServerWaitsForItsReply) {
  const auto acquire_lines = [](const std::string& timeout) {
    json document{{"name", "frozen"},
                  {"duration", "2m"},
                  {"service", {{"request_timeout", timeout}}},
                  {"workers", {{"count", 1}, {"start", "2s"}}},
                  {"workload", {{"kind", "counter"}, {"jobs", 1}}},
                  {"faults", json::array({{{"kind", "pause"}, {"target", "redis-0"}, {"at", "1s"}, {"for", "30s"}}})}};
    const Scenario scenario = parse_scenario(document.dump(), "frozen.json");
    std::vector<std::string> lines;
    (void)runner::run_seed(scenario, 1, model::Fencing::kOff, [&](std::string_view line, const sim::Simulation&) {
      const json event = json::parse(line);
      if (event["ev"].get<std::string>().starts_with("acquire.")) {
        lines.push_back(event["ev"].get<std::string>() + (event.contains("reason") ? " " + event["reason"].get<std::string>() : "") +
                        (event["ev"] == "acquire.ok" ? (event["t"].get<std::int64_t>() >= 31'000'000'000 ? " after the pause" : " during it") : ""));
      }
    });
    return lines;
  };
  EXPECT_EQ(acquire_lines("none"), (std::vector<std::string>{"acquire.invoke", "acquire.ok after the pause"}));
  const std::vector<std::string> with_timeout = acquire_lines("500ms");
  ASSERT_GE(with_timeout.size(), 3u);
  EXPECT_EQ(with_timeout[1], "acquire.fail timeout") << "a 500 ms timeout gives the request up";
}

// The parser's message for a scenario it refuses; "accepted" when it does not.
std::string refusal(const json& document, const std::string& file) {
  try {
    (void)parse_scenario(document.dump(), file);
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(ClientPresets, AnUnknownNameOrAServiceTheLibraryCannotUseIsNamedWithItsPath) {
  json unknown = base_scenario("redis");
  unknown["workers"]["client"] = "jedis";
  const std::string unknown_error = refusal(unknown, "unknown.json");
  EXPECT_NE(unknown_error.find("unknown.json: /workers/client: expected one of \"redis-py\", \"redsync\""),
            std::string::npos)
      << unknown_error;
  json redlock = base_scenario("redlock");
  redlock["workers"]["client"] = "redis-py";
  const std::string redlock_error = refusal(redlock, "redlock.json");
  EXPECT_NE(redlock_error.find("/workers/client: redis-py locks with service kind \"redis\" or "
                               "\"redis-failover\", not \"redlock\""),
            std::string::npos)
      << redlock_error;
}

TEST(ClientPresets, TheDocsTableIsTheOneExplainShows) {
  const std::string doc = test_support::read_text(std::string{LOCKSIM_SOURCE_DIR} + "/docs/models.md");
  const std::string begin = "<!-- BEGIN client presets: generated from scenario/client_presets.cpp -->\n";
  const std::size_t from = doc.find(begin);
  const std::size_t to = doc.find("<!-- END client presets -->");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), client_presets_markdown_table())
      << "regenerate it: the third table of `build/locksim explain --markdown`";
}

}  // namespace
}  // namespace locksim::scenario
