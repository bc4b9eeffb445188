#include "explore/critical_event.h"

#include <array>
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "checker/history_line.h"
#include "sim/duration_text.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"

namespace locksim::explore {

using vocabulary::EventKind;
namespace field = vocabulary::field;

namespace {

using scenario::fault_kind_name;
using scenario::FaultKind;

using scenario::PlannedFault;
using sim::Duration;

constexpr Duration kPrecision = Duration::microseconds(1);

// The length that bisection varies: its key's name and where it is in the fault.
struct Length {
  const char* name;
  Duration& (*of)(PlannedFault& fault);
};

std::optional<Length> length_of(const PlannedFault& fault) {
  constexpr auto kFor = [](PlannedFault& planned) -> Duration& { return planned.length; };
  switch (fault.kind()) {
    case FaultKind::kPause:
    case FaultKind::kPartition:
    case FaultKind::kStarveRenewal: return Length{"for", kFor};
    case FaultKind::kMemoryPressure:
      if (fault.length > Duration::zero()) return Length{"for", kFor};  // how long acquires answer -OOM
      return std::nullopt;
    case FaultKind::kFailover:
      if (std::get<model::faults::Failover>(fault.params).primary == model::FailoverPrimary::kPartition) {
        return Length{"for", kFor};
      }
      return std::nullopt;
    case FaultKind::kClockJump:
      return Length{"by", [](PlannedFault& planned) -> Duration& {
                      return std::get<model::faults::ClockJump>(planned.params).by;
                    }};
    case FaultKind::kDelaySpike:
      return Length{"extra", [](PlannedFault& planned) -> Duration& {
                      return std::get<model::faults::DelaySpike>(planned.params).extra;
                    }};
    case FaultKind::kCrash:
    case FaultKind::kPowerLoss:
    case FaultKind::kClockDrift: return std::nullopt;
  }
  return std::nullopt;
}

std::string kind_word(FaultKind kind) {
  switch (kind) {
    case FaultKind::kPause: return "pause";
    case FaultKind::kCrash: return "crash";
    case FaultKind::kClockJump: return "clock jump";
    case FaultKind::kClockDrift: return "clock drift";
    case FaultKind::kPartition: return "partition";
    case FaultKind::kFailover: return "failover";
    case FaultKind::kDelaySpike: return "delay spike";
    case FaultKind::kStarveRenewal: return "renewal starvation";
    case FaultKind::kPowerLoss: return "power loss";
    case FaultKind::kMemoryPressure: return "memory pressure";
  }
  return "fault";
}

// "a pause of 10.2s", "a jump of -3s": what the length is of.
std::string length_phrase(FaultKind kind, Duration length) {
  const std::string value = sim::format_duration(length);
  switch (kind) {
    case FaultKind::kPause: return "a pause of " + value;
    case FaultKind::kPartition: return "a partition of " + value;
    case FaultKind::kFailover: return "a split brain of " + value;
    case FaultKind::kClockJump: return "a clock jump of " + value;
    case FaultKind::kDelaySpike: return "an extra delay of " + value;
    case FaultKind::kStarveRenewal: return "renewals starved for " + value;
    default: return value;
  }
}

RunnableCase with_length(const RunnableCase& base, std::size_t position, const Length& length, Duration value) {
  RunnableCase changed = base;
  length.of(changed.plan.faults[position]) = value;
  return changed;
}

// The same case with `value` in place of `planned`.
using Varied = std::function<RunnableCase(Duration value)>;

// The smallest magnitude (keeping the sign of `planned`) that still shows
// `kind`: the run at `planned` shows it; bisect between 0 and there.
Duration smallest_failing(Duration planned, const Varied& varied, CaseRunner& runner, checker::ViolationKind kind) {
  const std::int64_t sign = planned.count_ns() < 0 ? -1 : 1;
  const auto shows = [&](std::int64_t magnitude) {
    return runner.shows(varied(Duration::nanoseconds(sign * magnitude)), kind);
  };
  std::int64_t passing = 0;
  std::int64_t failing = sign * planned.count_ns();
  if (shows(passing)) return Duration::zero();
  while (failing - passing > kPrecision.count_ns()) {
    // Midpoints on whole microseconds from 0, so the threshold reads cleanly.
    const std::int64_t middle = passing + (failing - passing) / 2 / kPrecision.count_ns() * kPrecision.count_ns();
    (shows(middle) ? failing : passing) = middle;
  }
  return Duration::nanoseconds(sign * failing);
}

// When the `occurrence`-th fault.begin of this kind and target happened, and
// the lease its target last got before it (acquire.ok or renew.ok): how long
// it was and how much of it was left, by true time.
struct LeaseAtFault {
  std::optional<Duration> lease;
  std::optional<Duration> left;
};

LeaseAtFault lease_at_pause(const std::vector<std::string>& history, const std::string& target) {
  LeaseAtFault found;
  std::optional<std::pair<std::int64_t, std::int64_t>> last_lease;  // (t, lease_ns)
  for (const std::string& text : history) {
    const checker::HistoryLine event = checker::read_history_line(text);
    const bool lease_asked = event.kind == EventKind::kAcquireOk || event.kind == EventKind::kRenewOk;
    if (const std::optional<std::int64_t> lease_ns = event.integer(field::kLeaseNs);
        event.proc == target && lease_asked && lease_ns) {
      last_lease = std::pair{event.time_ns, *lease_ns};
    }
    if (event.kind == EventKind::kFaultBegin && event.text(field::kKind) == fault_kind_name(FaultKind::kPause) &&
        event.text(field::kTarget) == target) {
      if (last_lease) {
        found.lease = Duration::nanoseconds(last_lease->second);
        found.left = Duration::nanoseconds(last_lease->second - (event.time_ns - last_lease->first));
      }
      return found;
    }
  }
  return found;
}

std::string setting_statement(const CriticalEvent& event, checker::ViolationKind kind, std::optional<Duration> lease) {
  const std::string violation{checker::violation_kind_name(kind)};
  if (!event.needed) {
    return fmt::format("the plan has no fault, and {} does not matter: it shows {} even at 0s", event.setting, violation);
  }
  std::string text = fmt::format("the plan has no fault: the settings alone show {}; it fails from {} = {} ({} in the plan)",
                                 violation, event.setting, sim::format_duration(*event.threshold), sim::format_duration(*event.length));
  if (lease && event.setting == "workers.work") text += fmt::format("; the lease is {}", sim::format_duration(*lease));
  return text;
}

std::string statement_of(const CriticalEvent& event, checker::ViolationKind kind) {
  const std::string what = fmt::format("{}{}", kind_word(event.kind), event.target.empty() ? "" : " of " + event.target);
  const std::string violation{checker::violation_kind_name(kind)};
  if (!event.needed) return fmt::format("the run shows {} without the {} too", violation, what);
  std::string text = fmt::format("without the {} the run shows no {}", what, violation);
  if (!event.threshold) return text;
  if (event.threshold->count_ns() == 0) {
    return text + fmt::format("; with it, {} fails at any {} (even 0s)", violation, event.length_name);
  }
  text += fmt::format("; it fails from {} ({} {} in the plan)", length_phrase(event.kind, *event.threshold),
                      event.length_name, sim::format_duration(*event.length));
  if (event.lease && event.lease_left) {
    text += fmt::format("; the lease is {} and had {} left when {} froze, ", sim::format_duration(*event.lease),
                        sim::format_duration(*event.lease_left), event.target);
    const Duration beyond = *event.threshold - *event.lease_left;
    text += beyond.count_ns() > 0
                ? fmt::format("so the pause outlasts it by {}", sim::format_duration(beyond))
                : fmt::format("so the pause alone ends {} before the lease does: what {} does after waking carries "
                              "it past the lease",
                              sim::format_duration(-beyond), event.target);
  }
  return text;
}

// A setting a fault-free minimal plan holds constant, to bisect.
struct Setting {
  const char* name;
  sim::Distribution& (*in)(scenario::Scenario&);
};

constexpr std::array kSettings{
    Setting{"workers.work", [](scenario::Scenario& scenario) -> sim::Distribution& { return scenario.system.workers.work; }},
    Setting{"network.delay", [](scenario::Scenario& scenario) -> sim::Distribution& { return scenario.network.delay; }},
};

std::vector<CriticalEvent> setting_events(const RunnableCase& minimal, CaseRunner& runner, checker::ViolationKind kind) {
  std::vector<CriticalEvent> events;
  for (const Setting& setting : kSettings) {
    RunnableCase base = minimal;
    const auto* constant = std::get_if<sim::Distribution::Constant>(&setting.in(base.scenario).shape());
    if (constant == nullptr) continue;
    const auto varied = [&](Duration value) {
      RunnableCase changed = minimal;
      setting.in(changed.scenario) = sim::Distribution::constant(value);
      return changed;
    };
    CriticalEvent event;
    event.setting = setting.name;
    event.length_name = setting.name;
    event.length = constant->value;
    event.threshold = smallest_failing(constant->value, varied, runner, kind);
    event.needed = event.threshold->count_ns() > 0;
    event.statement = setting_statement(event, kind, minimal.scenario.system.lock.lease);
    events.push_back(std::move(event));
  }
  return events;
}

// Neither a fault nor a constant setting: the seed's own draws carry it.
CriticalEvent seed_draws_event(const RunnableCase& minimal, checker::ViolationKind kind) {
  const scenario::Scenario& scenario = minimal.scenario;
  CriticalEvent event;
  event.setting = "seed";
  event.needed = true;
  event.statement = fmt::format(
      "the plan has no fault and no one setting decides it: seed {}'s own draws show {} (workers.work {}, network.delay "
      "{}{})",
      minimal.plan.seed, checker::violation_kind_name(kind), scenario.system.workers.work.describe(),
      scenario.network.delay.describe(),
      scenario.system.lock.lease ? ", lease " + sim::format_duration(*scenario.system.lock.lease) : std::string{});
  return event;
}

}  // namespace

std::vector<CriticalEvent> critical_events(const RunnableCase& minimal, CaseRunner& runner, checker::ViolationKind kind,
                                           const std::vector<std::string>& history) {
  std::vector<CriticalEvent> events;
  for (std::size_t position = 0; position < minimal.plan.faults.size(); ++position) {
    const PlannedFault& fault = minimal.plan.faults[position];
    CriticalEvent event;
    event.fault = fault.index;
    event.kind = fault.kind();
    event.target = fault.target;
    RunnableCase without = minimal;
    without.plan.faults.erase(without.plan.faults.begin() + static_cast<std::ptrdiff_t>(position));
    event.needed = !runner.shows(without, kind);
    if (const std::optional<Length> length = length_of(fault); length && event.needed) {
      event.length_name = length->name;
      PlannedFault planned = fault;
      event.length = length->of(planned);
      event.threshold = smallest_failing(
          event.length.value(), [&](Duration value) { return with_length(minimal, position, *length, value); }, runner,
          kind);
      if (fault.kind() == FaultKind::kPause) {
        const LeaseAtFault lease = lease_at_pause(history, fault.target);
        event.lease = lease.lease;
        event.lease_left = lease.left;
      }
    }
    event.statement = statement_of(event, kind);
    events.push_back(std::move(event));
  }
  if (minimal.plan.faults.empty()) {
    for (CriticalEvent& event : setting_events(minimal, runner, kind)) events.push_back(std::move(event));
    if (std::ranges::none_of(events, [](const CriticalEvent& event) { return event.needed; })) {
      events.push_back(seed_draws_event(minimal, kind));
    }
  }
  return events;
}

}  // namespace locksim::explore
