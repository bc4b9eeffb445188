#include "scenario/setting_warnings.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <variant>

#include <fmt/core.h>

#include "sim/duration_text.h"
#include "vocabulary/worker_name.h"

namespace locksim::scenario {
namespace {

using sim::Distribution;
using sim::Duration;

// Computed lengths are shown to the microsecond: "21.544ms", not "21.544347ms".
std::string shown(Duration duration) {
  const std::int64_t micro = (duration.count_ns() + 500) / 1000;
  return sim::format_duration(duration.count_ns() % 1000 == 0 ? duration : Duration::microseconds(micro));
}

Duration clamped(double nanoseconds) {
  const double longest = static_cast<double>(Distribution::kLongestSample.count_ns());
  return Duration::nanoseconds(std::llround(std::clamp(nanoseconds, 0.0, longest)));
}

void check_renew_command(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  const model::WorkerOptions& workers = scenario.system.workers;
  if (workers.renew_command != model::RenewCommand::kPlainPexpire) return;
  if (workers.renew != model::RenewMethod::kWatchdog) {
    warnings.push_back({"/workers/renew_command", "has no effect: workers.renew is \"none\" (nothing renews)"});
  } else if (scenario.system.service.kind == model::ServiceKind::kConsensus) {
    warnings.push_back({"/workers/renew_command",
                        "has no effect: a consensus session is kept alive by its own keep-alives, not PEXPIRE"});
  }
}

void check_renew_on_error(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  const model::WorkerOptions& workers = scenario.system.workers;
  if (workers.renew_on_error != model::RenewOnError::kStop || workers.renew == model::RenewMethod::kWatchdog) return;
  warnings.push_back({"/workers/renew_on_error", "has no effect: workers.renew is \"none\" (nothing renews)"});
}

// renew_retries set where nothing re-sends a renewal: no watchdog, or a
// client that does not re-send (model::resends_renewal_after).
void check_renew_retries(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  const model::WorkerOptions& workers = scenario.system.workers;
  if (workers.renew_retries == model::WorkerOptions{}.renew_retries) return;
  const model::ServiceKind service = scenario.system.service.kind;
  if (workers.renew != model::RenewMethod::kWatchdog) {
    warnings.push_back({"/workers/renew_retries", "has no effect: workers.renew is \"none\" (nothing renews)"});
  } else if (service == model::ServiceKind::kRedlock || service == model::ServiceKind::kConsensus) {
    warnings.push_back({"/workers/renew_retries", "has no effect: only a Redis client (redis, redis-failover) "
                                                  "re-sends a renewal; a Redlock round or a keep-alive is not re-sent"});
  }
}

// request_timeout "none" with a server that crashes: the model's client
// waits for a crashed server's reply as for a frozen one's, but a real one
// gets its connection reset at once (the kernel closes a killed process's
// sockets), so "none" would hang it where the library goes on.
void check_no_timeout_against_crashes(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  if (scenario.system.service.request_timeout != Duration::max()) return;
  const bool server_crashes = std::ranges::any_of(scenario.faults, [](const FaultSpec& fault) {
    const FaultKind kind = fault.kind();
    const bool crash = kind == FaultKind::kCrash || kind == FaultKind::kPowerLoss || kind == FaultKind::kFailover;
    const bool on_a_worker = fault.target.group == TargetGroup::kWorkers ||
                             (fault.target.group == TargetGroup::kNamed && vocabulary::is_worker(fault.target.node));
    return crash && !on_a_worker;
  });
  if (!server_crashes) return;
  warnings.push_back({"/service/request_timeout",
                      "\"none\" with a server that crashes: the model's client waits for a crashed server's reply "
                      "as for a frozen one's, for ever, where a real client's connection is reset at once and it "
                      "goes on; give the timeout a value to model that"});
}

// sentinel_discovery where there is no Sentinel.
void check_sentinel_discovery(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  if (scenario.system.workers.sentinel_discovery == model::WorkerOptions{}.sentinel_discovery) return;
  if (scenario.system.service.kind == model::ServiceKind::kRedisFailover) return;
  warnings.push_back({"/workers/sentinel_discovery", "has no effect: only redis-failover has a Sentinel"});
}

void check_renewal(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  const model::WorkerOptions& workers = scenario.system.workers;
  check_renew_command(scenario, warnings);
  check_renew_on_error(scenario, warnings);
  check_renew_retries(scenario, warnings);
  if (!workers.renew_every) return;
  if (workers.renew != model::RenewMethod::kWatchdog) {
    warnings.push_back({"/workers/renew_every", "has no effect: workers.renew is \"none\" (set \"renew\": "
                                                "\"watchdog\" to renew)"});
    return;
  }
  const std::optional<Duration> lease = scenario.system.lock.lease;
  if (lease && *workers.renew_every >= *lease) {
    warnings.push_back({"/workers/renew_every",
                        fmt::format("the watchdog renews every {}, but the lease is {}: the lease runs out before the "
                                    "first renewal, so a hold longer than the lease is never kept (renew at most "
                                    "every lease / 3, the default)",
                                    sim::format_duration(*workers.renew_every), sim::format_duration(*lease))});
  }
}

void check_lease_against_round_trip(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  const std::optional<Duration> lease = scenario.system.lock.lease;
  if (!lease) return;
  const Duration round_trip = percentile_99(scenario.network.delay) * 2;
  if (*lease < round_trip) {
    warnings.push_back({"/lock/lease",
                        fmt::format("the lease ({}) is shorter than the network's p99 round trip ({}: 2 × the p99 "
                                    "of /network/delay, {}): many grants are over before the client hears of them",
                                    sim::format_duration(*lease), shown(round_trip), scenario.network.delay.describe())});
  }
}

// "lease": 45 is 45 ms: next to work of seconds that nothing renews it is
// most likely meant as seconds.
void check_lease_unit(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  const std::optional<Duration> lease = scenario.system.lock.lease;
  if (!scenario.lease_given_as_number || !lease || scenario.system.workers.renew == model::RenewMethod::kWatchdog) return;
  const Duration work = percentile_99(scenario.system.workers.work);
  if (*lease >= work) return;
  warnings.push_back({"/lock/lease",
                      fmt::format("is {} (a bare number is milliseconds), shorter than the work ({} at its 99th "
                                  "percentile) and nothing renews it: holds outlive their lease; if seconds were meant, "
                                  "write \"{}s\"",
                                  sim::format_duration(*lease), shown(work), lease->count_ns() / 1'000'000)});
}

void check_stuck_after(const Scenario& scenario, std::vector<SettingWarning>& warnings) {
  const std::optional<Duration> lease = scenario.system.lock.lease;
  const Duration stuck_after = scenario.system.lock.stuck_after;
  if (lease && stuck_after < *lease) {
    warnings.push_back({"/lock/stuck_after",
                        fmt::format("{} is shorter than the lease ({}): a crashed holder's lease that simply runs "
                                    "out already counts as a stuck lock",
                                    sim::format_duration(stuck_after), sim::format_duration(*lease))});
  }
}

}  // namespace

Duration percentile_99(const Distribution& distribution) {
  const auto nanoseconds = [](Duration duration) { return static_cast<double>(duration.count_ns()); };
  return std::visit(
      [&](const auto& shape) -> Duration {
        using Shape = std::decay_t<decltype(shape)>;
        if constexpr (std::is_same_v<Shape, Distribution::Constant>) {
          return clamped(nanoseconds(shape.value));
        } else if constexpr (std::is_same_v<Shape, Distribution::Uniform>) {
          return clamped(nanoseconds(shape.min) + 0.99 * (nanoseconds(shape.max) - nanoseconds(shape.min)));
        } else if constexpr (std::is_same_v<Shape, Distribution::Exponential>) {
          return clamped(nanoseconds(shape.mean) * std::log(100.0));  // P(X > x) = e^(-x/mean) = 1 %
        } else if constexpr (std::is_same_v<Shape, Distribution::LogNormal>) {
          return clamped(nanoseconds(shape.p99));
        } else {
          return clamped(nanoseconds(shape.min) * std::pow(100.0, 1.0 / shape.alpha));  // (min / x)^alpha = 1 %
        }
      },
      distribution.shape());
}

std::vector<SettingWarning> setting_warnings(const Scenario& scenario) {
  std::vector<SettingWarning> warnings;
  check_renewal(scenario, warnings);
  check_sentinel_discovery(scenario, warnings);
  check_no_timeout_against_crashes(scenario, warnings);
  check_lease_against_round_trip(scenario, warnings);
  check_stuck_after(scenario, warnings);
  check_lease_unit(scenario, warnings);
  return warnings;
}

}  // namespace locksim::scenario
