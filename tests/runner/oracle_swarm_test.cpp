// The oracle swarm: thousands of randomly generated scenarios — every service
// kind, every fault kind, random leases, work, delays and drifts — each run
// with fencing off and on, and for every run the checker's counts must equal
// the in-simulation oracle's, kind by kind. A mismatch is a bug in one of the
// two; the failure message carries the generated scenario to replay it.
//
// The generator draws from the project's own PRNG, from a fixed seed (CI must
// not flicker); LOCKSIM_SWARM_SEED and LOCKSIM_SWARM_SCENARIOS change the seed
// and the size (scripts/soak.sh hunts with fresh seeds).

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runner/seed_run.h"
#include "scenario/fencing_modes.h"
#include "scenario/scenario_parser.h"
#include "sim/random.h"

namespace locksim::runner {
namespace {

using nlohmann::json;

std::uint64_t environment_number(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  return text == nullptr ? fallback : std::strtoull(text, nullptr, 10);
}

class ScenarioGenerator {
 public:
  explicit ScenarioGenerator(std::uint64_t seed) : rng_{sim::RandomStreams{seed}.stream("swarm")} {}

  json next(int number) {
    json scenario{{"name", fmt::format("swarm-{}", number)}, {"duration", "1m"}, {"seeds", 1}};
    const std::string service = pick({"redis", "redis-failover", "redlock", "consensus"});
    scenario["service"] = service_of(service);
    const int workers = static_cast<int>(rng_.between(1, 4));
    scenario["lock"] = chance(10) ? json{{"lease", "none"}} : json{{"lease", milliseconds(200, 15'000)}};
    if (ensemble() && scenario["lock"]["lease"] != "none") {
      scenario["lock"]["lease"] = fmt::format("{}s", rng_.between(2, 15));  // etcd: whole seconds, at least 2 s
    }
    scenario["workers"] = workers_of(service, workers, scenario["lock"]["lease"] != "none");
    scenario["workload"] = workload();
    scenario["storage"] = {{"fencing", "compare"},
                           {"fence_reads", chance(50)},
                           {"validate", service == "redlock" || chance(70) ? "max-seen" : "service"},
                           {"idempotency_keys", chance(30)}};
    scenario["network"] = {{"delay", {{"dist", "lognormal"}, {"median", milliseconds(1, 5)}, {"p99", milliseconds(6, 300)}}},
                           {"drop", chance(20) ? 0.02 : 0.0},
                           {"duplicate", chance(20) ? 0.02 : 0.0},
                           {"partitions", chance(20) ? "drop" : "tcp"}};
    scenario["clocks"] = {{"drift_ppm", rng_.between(0, 500)}};
    json faults = json::array();
    const int fault_count = static_cast<int>(rng_.between(0, 4));
    has_payments_ = scenario["workload"].value("charge", "") == "external";
    for (int index = 0; index < fault_count; ++index) faults.push_back(fault(service, workers));
    scenario["faults"] = faults;
    scenario["allow_inert"] = true;
    return scenario;
  }

 private:
  bool chance(int percent) { return rng_.between(1, 100) <= percent; }

  // Counter most often (it shows the most kinds), billing and write-only sometimes.
  json workload() {
    const std::int64_t roll = rng_.between(1, 100);
    if (roll <= 60) return json{{"kind", "counter"}, {"key", "qty"}, {"jobs", rng_.between(1, 4)}};
    if (roll <= 85) {
      json billing{{"kind", "billing"}, {"customers", rng_.between(1, 5)}};
      // Half the billing runs charge through the payments node, with either key.
      if (chance(50)) billing["charge"] = "external";
      if (chance(50)) billing["idempotency_key"] = pick({"job", "attempt"});
      return billing;
    }
    return json{{"kind", "write-only"}, {"jobs", rng_.between(1, 4)}};
  }
  std::string pick(std::initializer_list<const char*> options) {
    return *(options.begin() + rng_.below(options.size()));
  }
  std::string milliseconds(std::int64_t min, std::int64_t max) { return fmt::format("{}ms", rng_.between(min, max)); }

  json service_of(const std::string& kind) {
    json service{{"kind", kind}};
    if (kind != "consensus") service["persistence"] = pick({"none", "everysec", "always"});
    if (kind == "redis-failover") {
      service["replication_lag"] = milliseconds(1, 500);
      // Sentinel's timing, short enough that failovers finish within the
      // minute; a third near Sentinel's default (30 s), so that a crashed
      // primary's leases run out long before the promotion (issue 24).
      service["down_after"] = chance(30) ? milliseconds(25'000, 35'000) : milliseconds(0, 20'000);
      if (chance(30)) {
        service["min_replicas_to_write"] = 1;
        service["min_replicas_max_lag"] = milliseconds(1'000, 15'000);
      }
      if (chance(30)) service["repl_diskless_sync_delay"] = milliseconds(0, 8'000);
    }
    if (kind == "redlock") {
      service["instances"] = chance(50) ? 3 : 5;
      service["recheck_elapsed"] = chance(50);
      if (chance(30)) service["delayed_restart"] = milliseconds(1'000, 20'000);
    }
    consensus_nodes_ = 0;
    if (kind == "consensus") {
      consensus_nodes_ = chance(30) ? 1 : chance(70) ? 3 : 5;
      service["nodes"] = consensus_nodes_;
    }
    if (kind == "consensus" && chance(50)) service["lock_delay"] = milliseconds(0, 15'000);
    if (kind != "consensus") {
      service["maxmemory_policy"] = pick({"noeviction", "volatile-ttl", "volatile-lru", "allkeys-lru"});
      if (chance(30)) service["maxmemory_samples"] = rng_.between(1, 64);
      if (chance(50)) {
        service["other_keys"] = chance(80) ? rng_.between(1, 3) : rng_.between(100, 2'000);
        service["other_keys_ttl"] = chance(50) ? "none" : milliseconds(1'000, 60'000);
      }
    }
    if (kind == "consensus" && chance(20)) service["etcd_3_4_3_lock_bug"] = true;
    return service;
  }

  json workers_of(const std::string& service, int count, bool has_lease) {
    json workers{{"count", count},
                 {"work", {{"dist", "uniform"}, {"min", "0ms"}, {"max", milliseconds(1, 8'000)}}},
                 {"retry", {{"dist", "uniform"}, {"min", "10ms"}, {"max", milliseconds(11, 1'000)}}},
                 {"between", milliseconds(0, 500)},
                 {"check_before_write", chance(30)},
                 {"clock", pick({"monotonic", "wall"})}};
    // Clients that give up: a timeout, a cap on tries, both or neither.
    if (chance(25)) workers["acquire_timeout"] = milliseconds(0, 10'000);
    if (chance(25)) workers["max_tries"] = rng_.between(1, 32);
    if (service == "redis" || service == "redis-failover") {
      workers["acquire"] = chance(20) ? "get-then-set" : "set-nx-px";
      if (service == "redis-failover" && chance(30)) workers["sentinel_discovery"] = "on-error";
    }
    workers["release"] = pick({"compare-and-delete", "compare-and-delete", "plain-del", "none"});
    if (service == "redis-failover" && chance(30)) {
      workers["wait_replicas"] = {{"replicas", 1}, {"timeout", milliseconds(1, 2'000)}};
    }
    if (has_lease && service != "consensus" && chance(30)) {
      workers["renew"] = "watchdog";
      workers["renew_every"] = milliseconds(50, 3'000);
      workers["renew_command"] = pick({"compare-and-extend", "pexpire"});
      workers["renew_on_error"] = pick({"retry", "stop"});
      workers["renew_retries"] = rng_.between(0, 4);
      workers["renew_retry_delay"] = {{"dist", "uniform"}, {"min", "0ms"}, {"max", milliseconds(1, 2'000)}};
    }
    return workers;
  }

  std::string node(const std::string& service, int workers) {
    if (chance(50)) return fmt::format("worker-{}", rng_.between(1, workers));
    if (chance(15)) return "storage";
    if (has_payments_ && chance(20)) return "payments";
    if (service == "consensus") {
      return ensemble() ? fmt::format("consensus-{}", rng_.between(0, consensus_nodes_ - 1)) : "consensus";
    }
    // Sentinel's node: a partition from it, or its pause, decides whether a failover happens.
    if (service == "redis-failover" && chance(10)) return "sentinel";
    const int instances = service == "redis" ? 1 : service == "redis-failover" ? 2 : 3;
    return fmt::format("redis-{}", rng_.between(0, instances - 1));
  }

  json trigger(json fault, const std::string& service, int workers) {
    const int choice = static_cast<int>(rng_.between(0, 2));
    if (choice == 0) {
      fault["at"] = milliseconds(0, 30'000);
    } else if (choice == 1) {
      fault["rate"] = fmt::format("{}/min", rng_.between(1, 6));
      if (!fault.contains("target") || fault["target"] == "storage") fault["target"] = "any";
    } else {
      const bool worker_target = fault.contains("target") && fault["target"].get<std::string>().starts_with("worker");
      if (worker_target) {
        fault["when"] = has_payments_ ? pick({"after-acquire", "before-write", "before-reply", "before-charge"})
                                      : pick({"after-acquire", "before-write", "before-reply"});
      } else {
        fault["target"] = service != "consensus" ? "redis-0" : ensemble() ? "consensus-leader" : "consensus";
        fault["when"] = "after-grant";
      }
      fault["delay"] = milliseconds(0, 12'000);
    }
    (void)workers;
    return fault;
  }

  json fault(const std::string& service, int workers) {
    std::vector<const char*> kinds{"pause", "pause", "crash", "clock-jump", "clock-drift", "partition", "delay-spike",
                                   "starve-renewal"};
    kinds.push_back("power-loss");
    if (service == "redis-failover") kinds.push_back("failover");
    if (service != "consensus") kinds.push_back("memory-pressure");
    const std::string kind = kinds[rng_.below(kinds.size())];
    json fault{{"kind", kind}};
    if (kind == "failover") {
      fault["target"] = "redis-0";
      if (chance(50)) {
        // Split brain: a random subset of the workers stays with the old primary.
        fault["primary"] = "partition";
        json with_primary = json::array();
        for (int worker = 1; worker <= workers; ++worker) {
          if (chance(50)) with_primary.push_back(fmt::format("worker-{}", worker));
        }
        fault["with_primary"] = with_primary;
        fault["for"] = milliseconds(100, 40'000);
      }
      if (chance(50)) {
        fault["when"] = "after-grant";
        fault["delay"] = milliseconds(0, 5'000);
      } else {
        fault["at"] = milliseconds(0, 20'000);
      }
      return fault;
    }
    if (kind == "partition") {
      fault["between"] = json::array({json::array({fmt::format("worker-{}", rng_.between(1, workers))}),
                                      json::array({node(service, workers)})});
      if (fault["between"][1][0] == fault["between"][0][0]) fault["between"][1][0] = "storage";
      fault["for"] = milliseconds(100, 20'000);
      fault["at"] = milliseconds(0, 30'000);
      return fault;
    }
    if (kind == "memory-pressure") {
      const int instances = service == "redis" ? 1 : service == "redis-failover" ? 2 : 3;
      fault["target"] = fmt::format("redis-{}", rng_.between(0, instances - 1));
      fault["evict"] = rng_.between(1, 4);
      if (chance(50)) fault["for"] = milliseconds(100, 30'000);  // what was not freed keeps acquires out
      return trigger(fault, service, workers);
    }
    fault["target"] = kind == "starve-renewal" ? fmt::format("worker-{}", rng_.between(1, workers)) : node(service, workers);
    if (kind != "starve-renewal" && ensemble() && chance(30)) fault["target"] = "consensus-leader";
    if (kind == "pause" || kind == "starve-renewal") fault["for"] = milliseconds(10, 25'000);
    // A third of the crashes are for good: a service node's promises must end at their deadlines all the same.
    if ((kind == "crash" || kind == "power-loss") && chance(70)) fault["restart_after"] = milliseconds(10, 15'000);
    if (kind == "clock-jump") fault["by"] = fmt::format("{}ms", rng_.between(-20'000, 20'000));
    if (kind == "clock-drift") fault["ppm"] = rng_.between(-200'000, 200'000);
    if (kind == "delay-spike") {
      fault["extra"] = milliseconds(10, 15'000);
      fault["for"] = milliseconds(100, 10'000);
    }
    return trigger(fault, service, workers);
  }

  sim::Rng rng_;
  bool has_payments_ = false;  // the scenario being generated has the payments node
  [[nodiscard]] bool ensemble() const { return consensus_nodes_ > 1; }
  std::int64_t consensus_nodes_ = 0;  // the scenario being generated: its consensus service's nodes (0: another kind)
};

std::string describe(const std::vector<OracleMismatch>& mismatches) {
  std::string text;
  for (const OracleMismatch& mismatch : mismatches) {
    text += fmt::format(" {}: checker {} oracle {};",
                        mismatch.measure,
                        mismatch.checker_count, mismatch.oracle_count);
  }
  return text;
}

TEST(OracleSwarm, CheckerAndOracleAgreeOnEveryRunOfThousandsOfRandomScenarios) {
  const std::uint64_t seed = environment_number("LOCKSIM_SWARM_SEED", 20261201);
  const auto scenarios = static_cast<int>(environment_number("LOCKSIM_SWARM_SCENARIOS", 2000));
  // Runs shown in full, per mismatching kind.
  const auto kShownPerKind = static_cast<int>(environment_number("LOCKSIM_SWARM_SHOW", 2));
  ScenarioGenerator generator{seed};
  int runs = 0;
  int mismatched_runs = 0;
  std::map<std::string, int> mismatched_runs_by_kind;
  for (int number = 0; number < scenarios; ++number) {
    const json document = generator.next(number);
    scenario::Scenario scenario;
    try {
      scenario = scenario::parse_scenario(document.dump(), fmt::format("swarm-{}.json", number));
    } catch (const scenario::ScenarioError& error) {
      FAIL() << "the generator made a scenario the parser refuses: " << error.what() << "\n" << document.dump();
    }
    for (const model::Fencing fencing : {model::Fencing::kOff, model::Fencing::kOn}) {
      SeedRun run;
      try {
        run = run_seed(scenario, static_cast<std::uint64_t>(number) + 1, fencing);
      } catch (const std::exception& error) {
        if (++mismatched_runs_by_kind["internal error"] <= kShownPerKind) ADD_FAILURE() << "swarm seed " << seed << " scenario " << number << " (run seed " << number + 1 << ") fencing "
               << scenario::fencing_switch_name(fencing) << ": " << error.what() << "\n"
               << document.dump();
        continue;
      }
      ++runs;
      ASSERT_TRUE(run.oracle.has_value());
      if (run.oracle_mismatches.empty()) continue;
      ++mismatched_runs;
      bool first_of_its_kind = false;
      for (const OracleMismatch& mismatch : run.oracle_mismatches) {
        const std::string kind{mismatch.measure};
        first_of_its_kind |= ++mismatched_runs_by_kind[kind] <= kShownPerKind;
      }
      if (first_of_its_kind) {
        ADD_FAILURE() << "swarm seed " << seed << " scenario " << number << " (run seed " << number + 1 << ") fencing "
                      << scenario::fencing_switch_name(fencing) << ":" << describe(run.oracle_mismatches) << "\n"
                      << document.dump();
      }
    }
  }
  std::string by_kind;
  for (const auto& [kind, count] : mismatched_runs_by_kind) by_kind += fmt::format(" {} {};", kind, count);
  EXPECT_EQ(mismatched_runs, 0) << "of " << runs << " runs; runs per mismatching kind:" << by_kind;
  EXPECT_EQ(runs, 2 * scenarios);
}

// Scenarios the swarm once failed on, each with the run seed that failed:
// they must now run cleanly, with checker and oracle agreeing.
struct SwarmRegression {
  const char* file;
  std::uint64_t seed;
};
constexpr SwarmRegression kSwarmRegressions[] = {
    {"consensus-waiters-expire-together.json", 118},
    {"redlock-restart-after-deadline.json", 685},
    {"failover-replication-in-flight.json", 476},
    {"failover-wait-crash-twice.json", 2346},
};

TEST(OracleSwarm, ScenariosTheSwarmOnceFailedOnNowRunCleanlyAndAgree) {
  for (const SwarmRegression& regression : kSwarmRegressions) {
    const scenario::Scenario scenario =
        scenario::load_scenario_file(std::string{LOCKSIM_SWARM_REGRESSION_DIR} + "/" + regression.file);
    for (const model::Fencing fencing : {model::Fencing::kOff, model::Fencing::kOn}) {
      SCOPED_TRACE(fmt::format("{} seed {} fencing {}", regression.file, regression.seed, scenario::fencing_switch_name(fencing)));
      const SeedRun run = run_seed(scenario, regression.seed, fencing);
      EXPECT_EQ(describe(run.oracle_mismatches), "");
    }
  }
}

}  // namespace
}  // namespace locksim::runner
