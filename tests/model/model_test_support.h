#pragma once
// Runs a modelled system with a hand-built fault plan and gives the tests its
// history as parsed JSON events, with small finders so that each hazard test
// reads as the sentence it checks.

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/nemesis.h"
#include "model/system.h"
#include "sim/simulation.h"
#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::model::testing {

using Event = nlohmann::json;

struct History {
  std::vector<Event> events;

  // Every event named `ev` (and, if given, by `proc`), in history order.
  [[nodiscard]] std::vector<Event> all(const std::string& ev, const std::string& proc = "") const {
    std::vector<Event> found;
    for (const Event& event : events) {
      if (event["ev"] == ev && (proc.empty() || event["proc"] == proc)) found.push_back(event);
    }
    return found;
  }
  // The first event named `ev` by `proc` for which `matches` holds, if any.
  [[nodiscard]] std::optional<Event> first(const std::string& ev, const std::string& proc = "",
                                           const std::function<bool(const Event&)>& matches = {}) const {
    for (const Event& event : all(ev, proc)) {
      if (!matches || matches(event)) return event;
    }
    return std::nullopt;
  }
  [[nodiscard]] std::size_t count(const std::string& ev, const std::string& proc = "") const { return all(ev, proc).size(); }
  [[nodiscard]] Event final_values() const { return all("run.end").at(0)["final"]; }

  // How many times a hold.begin found another worker's hold still open.
  [[nodiscard]] int overlapping_holds() const {
    std::map<std::string, bool> holding;
    int overlaps = 0;
    for (const Event& event : events) {
      const std::string proc = event["proc"];
      if (event["ev"] == "hold.begin") {
        for (const auto& [other, open] : holding) {
          if (open && other != proc) ++overlaps;
        }
        holding[proc] = true;
      } else if (event["ev"] == "hold.end" || event["ev"] == "crash") {
        holding[proc] = false;
      }
    }
    return overlaps;
  }

  // The service's promises (docs/history-format.md), followed across instances: a
  // lease.adopt continues the grant it copies, so the lease ends once,
  // whichever instance ends it. These runs have one lock, and tokens that do
  // not repeat (a failover that loses the grant repeats them: H7).
  struct PromiseCheck {
    int double_grants = 0;        // a grant while another owner's lease was promised
    int ended_twice = 0;          // an expire or release of a lease already ended
    int adopted_unknown = 0;      // an adopt of a lease nobody granted, or one already ended
    int ends_without_promise = 0; // an expire or release of a lease this history never granted
  };
  [[nodiscard]] PromiseCheck promises() const {
    struct Promise {
      std::string owner;
      std::int64_t until_ns = 0;  // true time the promise runs to if nothing ends it
      bool ended = false;
    };
    std::map<std::int64_t, Promise> by_token;
    PromiseCheck check;
    for (const Event& event : events) {
      const std::string ev = event["ev"];
      if (!event.contains("token") || !event.contains("lock")) continue;
      const std::int64_t t = event["t"];
      const std::int64_t token = event["token"];
      const auto promise = by_token.find(token);
      const std::int64_t lease_ns = event.contains("lease_ns") ? event["lease_ns"].get<std::int64_t>()
                                                                : std::numeric_limits<std::int64_t>::max() / 2;
      if (ev == "lease.grant") {
        for (const auto& [other_token, other] : by_token) {
          if (!other.ended && other.owner != event["owner"] && other.until_ns > t) ++check.double_grants;
        }
        by_token[token] = Promise{event["owner"], t + lease_ns, false};
      } else if (ev == "lease.adopt") {
        if (promise == by_token.end() || promise->second.ended || promise->second.owner != event["owner"]) {
          ++check.adopted_unknown;
        }
      } else if (ev == "lease.renew" && promise != by_token.end()) {
        promise->second.until_ns = t + lease_ns;
      } else if (ev == "lease.expire" || ev == "lease.release") {
        if (promise == by_token.end()) {
          ++check.ends_without_promise;
        } else if (promise->second.ended) {
          ++check.ended_twice;
        } else {
          promise->second.ended = true;
        }
      }
    }
    return check;
  }

  // Accepted writes whose writer's lease was already superseded: another
  // owner had been granted the lock (lease.grant) before the write.accept. A
  // writer never granted the lock counts too (it cannot be fenced correctly).
  // These runs have one lock, so "the latest grant" needs no lock name.
  [[nodiscard]] std::vector<Event> stale_accepts() const {
    std::map<std::string, bool> ever_granted;
    std::string latest_owner;
    std::vector<Event> stale;
    for (const Event& event : events) {
      if (event["ev"] == "lease.grant") {
        latest_owner = event["owner"];
        ever_granted[latest_owner] = true;
      } else if (event["ev"] == "write.accept") {
        const std::string writer = event["writer"];
        if (!ever_granted[writer] || latest_owner != writer) stale.push_back(event);
      }
    }
    return stale;
  }
};

using Plan = std::function<void(Nemesis& nemesis, System& system)>;

struct RunSettings {
  std::uint64_t seed = 1;
  sim::Duration time_limit = sim::Duration::minutes(10);
  sim::NetworkOptions network = [] {
    sim::NetworkOptions options;
    options.delay = sim::Distribution::constant(sim::Duration::milliseconds(1));
    return options;
  }();
};

// When an event of a history happened, in nanoseconds of virtual time.
inline std::int64_t at_ns(const Event& event) { return event["t"].get<std::int64_t>(); }

// Builds the system, applies `plan`, runs to completion (or the time limit)
// and returns the history, run.begin and run.end included.
inline History run_system(const SystemOptions& options, const Plan& plan = {}, RunSettings settings = {}) {
  History history;
  sim::SimulationOptions simulation_options;
  simulation_options.seed = settings.seed;
  simulation_options.time_limit = settings.time_limit;
  simulation_options.network = settings.network;
  sim::Simulation simulation{simulation_options,
                             [&history](std::string_view line) { history.events.push_back(nlohmann::json::parse(line)); }};
  simulation.record("run", EventKind::kRunBegin,
                    {{"scenario", "test"},
                     {"seed", static_cast<std::int64_t>(settings.seed)},
                     {"fencing", options.storage.fencing == Fencing::kOn}});
  System system{simulation, options};
  Nemesis nemesis{simulation, system};
  if (plan) plan(nemesis, system);
  simulation.run();
  simulation.record("run", EventKind::kRunEnd, {{"final", sim::RawJson{system.final_values_json()}}});
  return history;
}

// Two workers, one job each, a 10 s lease, short work: the base most hazard tests vary.
inline SystemOptions two_workers_one_job() {
  SystemOptions options;
  options.lock.lease = sim::Duration::seconds(10);
  options.workers.count = 2;
  options.workers.work = sim::Distribution::constant(sim::Duration::milliseconds(100));
  options.workers.retry = sim::Distribution::constant(sim::Duration::milliseconds(200));
  options.workload = CounterWorkload{"qty", 1};
  return options;
}

inline SystemOptions with_fencing(SystemOptions options) {
  options.storage.fencing = Fencing::kOn;
  return options;
}

}  // namespace locksim::model::testing
