#include "advise/mitigation.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "sim/distribution.h"
#include "sim/duration_text.h"
#include "vocabulary/worker_name.h"

namespace locksim::advise {
namespace {

using nlohmann::json;
using sim::Distribution;
using sim::Duration;

// The largest value `distribution` can draw; nullopt when it has no bound.
std::optional<Duration> largest_draw(const Distribution& distribution) {
  if (const auto* constant = std::get_if<Distribution::Constant>(&distribution.shape())) return constant->value;
  if (const auto* uniform = std::get_if<Distribution::Uniform>(&distribution.shape())) return uniform->max;
  return std::nullopt;
}

bool hits_workers(const scenario::FaultSpec& fault) {
  return fault.target.group == scenario::TargetGroup::kWorkers || fault.target.group == scenario::TargetGroup::kAny ||
         vocabulary::is_worker(fault.target.node);
}

// The longest pause of a worker the file can draw: nullopt without one,
// and a pause without a bound makes the whole answer unbounded.
struct LongestPause {
  bool any = false;
  std::optional<Duration> longest;
};

LongestPause longest_worker_pause(const scenario::Scenario& scenario) {
  LongestPause result;
  for (const scenario::FaultSpec& fault : scenario.faults) {
    if (fault.kind() != scenario::FaultKind::kPause || !hits_workers(fault)) continue;
    const std::optional<Duration> largest = largest_draw(fault.length);
    if (!largest) return {true, std::nullopt};
    result.longest = result.any ? std::max(*result.longest, *largest) : *largest;
    result.any = true;
  }
  return result;
}

std::string seconds_text(Duration length) { return sim::format_duration(length); }

// A lease that outlasts the longest pause, the longest work after it and a
// second for the network and the read: a pause that begins right after the
// grant still ends, and the write still lands, before the lease runs out.
std::optional<Mitigation> longer_lease(const scenario::Scenario& scenario) {
  if (!scenario.system.lock.lease) return std::nullopt;
  const LongestPause pause = longest_worker_pause(scenario);
  const std::optional<Duration> work = largest_draw(scenario.system.workers.work);
  if (!pause.any || !pause.longest || !work) return std::nullopt;
  const Duration needed = *pause.longest + *work + Duration::seconds(1);
  const Duration lease = Duration::seconds((needed.count_ns() + 999'999'999) / 1'000'000'000);
  if (lease <= *scenario.system.lock.lease) return std::nullopt;
  return Mitigation{
      "a longer lease",
      fmt::format("lock.lease: {} (was {})", seconds_text(lease), seconds_text(*scenario.system.lock.lease)),
      fmt::format("the longest pause the file draws ({}) plus the longest work ({}) and a second for the network "
                  "and the read fit in it, so a holder that froze wakes with its lease still held; a crashed holder "
                  "now blocks the lock that much longer, and a longer pause than the file draws still breaks it",
                  seconds_text(*pause.longest), seconds_text(*work)),
      json{{"lock", {{"lease", seconds_text(lease)}}}}};
}

}  // namespace

std::vector<Mitigation> applicable_mitigations(const scenario::Scenario& scenario) {
  std::vector<Mitigation> found;
  const model::StorageOptions& storage = scenario.system.storage;
  const bool fenced = scenario.fencing_modes == std::vector{model::Fencing::kOn};
  const bool reads_fenced = fenced && storage.fence_reads;
  const bool validated = reads_fenced && storage.validate == model::Validation::kService;
  const model::ServiceKind service = scenario.system.service.kind;
  const bool redis = service != model::ServiceKind::kConsensus;
  const bool billing = std::holds_alternative<model::BillingWorkload>(scenario.system.workload);

  if (!fenced) {
    found.push_back({"fence writes", "storage.fencing: on",
                     "storage turns away a write whose token is below the highest it has seen, so a holder that froze "
                     "past its lease cannot overwrite the next holder's write; it does not stop two holders, a read "
                     "acted on late, or an effect outside the store",
                     json{{"storage", {{"fencing", "on"}}}}, "fencing"});
  }
  if (!reads_fenced) {
    found.push_back({"fence reads and writes", "storage.fencing: on, storage.fence_reads: true",
                     "a read with an old token is turned away too, so a superseded holder cannot act on a value the "
                     "next holder has since changed (H22)",
                     json{{"storage", {{"fencing", "on"}, {"fence_reads", true}}}}, "fencing"});
  }
  if (!validated) {
    found.push_back({"validate with the service", "storage.fencing: on, fence_reads: true, validate: service",
                     "storage asks the lock service whether the token is still current, so it refuses a superseded "
                     "holder even before the next holder has written; it costs a call to the service per request",
                     json{{"storage", {{"fencing", "on"}, {"fence_reads", true}, {"validate", "service"}}}}, "fencing"});
  }
  for (Mitigation& fenced_variant : found) {
    fenced_variant.cannot[checker::ViolationKind::kDuplicateEffect] =
        "a double charge is an effect outside the fenced store (the payments API takes no token): only an "
        "idempotency key the API checks stops it";
  }
  if (std::optional<Mitigation> lease = longer_lease(scenario)) found.push_back(std::move(*lease));
  if (scenario.system.lock.lease && scenario.system.workers.renew == model::RenewMethod::kNone) {
    found.push_back({"a watchdog", "workers.renew: watchdog",
                     "the lease is extended while the holder runs, so long work no longer outlives it; a process "
                     "that freezes freezes its watchdog too, so it cannot help against a pause",
                     json{{"workers", {{"renew", "watchdog"}}}}});
  }
  if (!scenario.system.storage.idempotency_keys) {
    json patch{{"storage", {{"idempotency_keys", true}}}};
    if (billing) patch["workload"] = {{"idempotency_key", "job"}};
    found.push_back({"idempotency keys", billing ? "storage.idempotency_keys: true, workload.idempotency_key: job"
                                                 : "storage.idempotency_keys: true",
                     "a repeated request for the same job is dropped by storage and the payments API: it stops a "
                     "job done twice, not a late write of a different value (a replayed stale qty = 6 still "
                     "overwrites qty = 4 when its key is new)",
                     std::move(patch)});
    found.back().cannot[checker::ViolationKind::kStaleWrite] =
        "a stale write carries a new value under a new key, so nothing repeats for storage to drop";
    found.back().cannot[checker::ViolationKind::kLostUpdate] =
        "a lost update is a write of a new value acted on a stale read: no key repeats";
  }
  if (scenario.system.workers.release == model::ReleaseMethod::kPlainDelete) {
    found.push_back({"compare-and-delete release", "workers.release: compare-and-delete",
                     "the release deletes the key only if it still holds this holder's value, so a late release "
                     "cannot free the next holder's lock",
                     json{{"workers", {{"release", "compare-and-delete"}}}}});
  }
  if (scenario.system.workers.renew_command == model::RenewCommand::kPlainPexpire &&
      scenario.system.workers.renew == model::RenewMethod::kWatchdog) {
    found.push_back({"compare-and-extend renewal", "workers.renew_command: compare-and-extend",
                     "a renewal extends the key only if it still holds this holder's value, so an old holder's "
                     "watchdog cannot extend, and believe it holds, the next holder's lease",
                     json{{"workers", {{"renew_command", "compare-and-extend"}}}}});
  }
  if (scenario.system.workers.clock == sim::ClockKind::kWall) {
    found.push_back({"the monotonic clock", "workers.clock: monotonic",
                     "the client times its lease on a clock no one sets, so a wall-clock jump cannot make it believe "
                     "time remains",
                     json{{"workers", {{"clock", "monotonic"}}}}});
  }
  if (service == model::ServiceKind::kRedisFailover) {
    if (!scenario.system.workers.wait_replicas) {
      found.push_back({"WAIT for a replica", "workers.wait_replicas: 1 replica, 1s",
                       "a grant no replica acknowledged is given back, so a failover right after a grant cannot "
                       "promote a replica without it; Redis still calls the replication asynchronous",
                       json{{"workers", {{"wait_replicas", {{"replicas", 1}, {"timeout", "1s"}}}}}}});
    }
    if (scenario.system.service.min_replicas_to_write == 0) {
      found.push_back({"min-replicas-to-write 1", "service.min_replicas_to_write: 1",
                       "a primary cut off from its replica stops taking writes after min_replicas_max_lag, which "
                       "bounds how long an old primary grants beside a new one",
                       json{{"service", {{"min_replicas_to_write", 1}}}}});
    }
  }
  if (redis && scenario.system.service.persistence != model::Persistence::kAlways) {
    found.push_back({"persistence always", "service.persistence: always",
                     "a restarted instance keeps every grant it made, so it cannot grant a held lock again after a "
                     "crash (delayed_restart does the same without the fsync)",
                     json{{"service", {{"persistence", "always"}}}}});
  }
  if (redis) {
    found.push_back({"a consensus service", "service: {\"kind\": \"consensus\"}",
                     "one linearizable service (etcd, ZooKeeper) with leases its own clock ends: no failover that "
                     "loses a grant, no clock vote; a holder that freezes still outlives its lease",
                     // The whole service object replaced: Redis keys mean nothing to it.
                     json::array({json{{"service", nullptr}}, json{{"service", {{"kind", "consensus"}}}}})});
  }
  return found;
}

Mitigation combined(const Mitigation& first, const Mitigation& second) {
  json patches = json::array();
  for (const Mitigation* one : {&first, &second}) {
    if (one->patch.is_array()) {
      for (const json& patch : one->patch) patches.push_back(patch);
    } else {
      patches.push_back(one->patch);
    }
  }
  return {first.name + " + " + second.name, first.change + "; " + second.change,
          "neither alone removes the harm: " + first.name + " and " + second.name + " together", std::move(patches), ""};
}

}  // namespace locksim::advise
