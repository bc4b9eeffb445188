#include "explore/plan_space.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <rapidcheck/Gen.h>
#include <rapidcheck/Seq.h>
#include <rapidcheck/gen/Numeric.h>
#include <rapidcheck/seq/Create.h>
#include <rapidcheck/seq/Transform.h>
#include <rapidcheck/shrink/Shrink.h>
#include <rapidcheck/shrinkable/Create.h>
#include <rapidcheck/shrinkable/Transform.h>

#include "scenario/seed_limits.h"
#include "sim/distribution.h"
#include "sim/random.h"
#include "vocabulary/worker_name.h"

namespace locksim::explore {
namespace {

using scenario::FaultSpec;
using scenario::Scenario;
using sim::Distribution;
using sim::Duration;

constexpr std::int64_t kNanosPerMilli = 1'000'000;
constexpr std::int64_t kNanosPerMicro = 1'000;
// Exponential and log-normal values are never 0: their support starts above
// it, here at the smallest step a constant in their place takes.
constexpr std::int64_t kShortestPositive = kNanosPerMicro;
// A rate fault gets at most this many occurrences to switch on and off.
constexpr std::int64_t kMostOccurrences = 12;

// Where a distribution's values start and where its middle is: shrinking
// moves towards the start; a constant in its place starts at the middle.
struct Support {
  std::int64_t low_ns = 0;
  std::int64_t typical_ns = 0;
};

Support support_of(const Distribution& distribution) {
  return std::visit(
      [](const auto& shape) -> Support {
        using Shape = std::decay_t<decltype(shape)>;
        if constexpr (std::is_same_v<Shape, Distribution::Constant>) {
          return {shape.value.count_ns(), shape.value.count_ns()};
        } else if constexpr (std::is_same_v<Shape, Distribution::Uniform>) {
          return {shape.min.count_ns(), shape.min.count_ns() + (shape.max.count_ns() - shape.min.count_ns()) / 2};
        } else if constexpr (std::is_same_v<Shape, Distribution::Exponential>) {
          return {kShortestPositive, shape.mean.count_ns()};
        } else if constexpr (std::is_same_v<Shape, Distribution::LogNormal>) {
          return {kShortestPositive, shape.median.count_ns()};
        } else {
          // Pareto's median: min · 2^(1/alpha).
          return {shape.min.count_ns(), static_cast<std::int64_t>(static_cast<double>(shape.min.count_ns()) *
                                                            std::pow(2.0, 1.0 / shape.alpha))};
        }
      },
      distribution.shape());
}

bool is_constant(const Distribution& distribution) {
  return std::holds_alternative<Distribution::Constant>(distribution.shape());
}

// `value` shrinks to `low`, then to values between, in whole steps of `step`.
rc::Shrinkable<std::int64_t> shrinking_towards(std::int64_t value, std::int64_t low, std::int64_t step) {
  return rc::shrinkable::shrinkRecur(value, [low, step](std::int64_t current) {
    return rc::seq::map(rc::shrink::towards<std::int64_t>((current - low) / step, 0),
                        [low, step](std::int64_t steps) { return low + steps * step; });
  });
}

rc::Shrinkable<bool> present_with_chance(rc::Random random, double chance) {
  const bool present = static_cast<double>(random.next() % 1'000'000) < chance * 1'000'000;
  if (!present) return rc::shrinkable::just(false);
  return rc::shrinkable::just(true, rc::seq::just(rc::shrinkable::just(false)));
}

// A length drawn by the distribution itself, shrinking to its support's start.
rc::Shrinkable<std::int64_t> length_within(const Distribution& distribution, rc::Random random) {
  if (is_constant(distribution)) return rc::shrinkable::just(support_of(distribution).low_ns);
  sim::Rng rng{random.next()};
  const std::int64_t low = support_of(distribution).low_ns;
  return shrinking_towards(std::max(distribution.sample(rng).count_ns(), low), low, kNanosPerMilli);
}

// Nothing (the distribution as the scenario gives it), shrinking to a
// constant at its middle, then towards its start.
rc::Shrinkable<std::optional<std::int64_t>> constant_in_place_of(const Distribution& distribution) {
  using Maybe = std::optional<std::int64_t>;
  if (is_constant(distribution)) return rc::shrinkable::just(Maybe{});
  const Support support = support_of(distribution);
  const std::int64_t low_us = support.low_ns / kNanosPerMicro;
  rc::Shrinkable<Maybe> constant = rc::shrinkable::map(
      shrinking_towards(std::max(support.typical_ns / kNanosPerMicro, low_us), low_us, 1),
      [](std::int64_t micros) { return Maybe{micros}; });
  return rc::shrinkable::just(Maybe{}, rc::seq::just(std::move(constant)));
}

// Both shrinkables as one value made by `make`: `first` shrinks before `second`.
template <typename A, typename B, typename Make>
auto joined(rc::Shrinkable<A> first, rc::Shrinkable<B> second, Make make) {
  return rc::shrinkable::map(rc::shrinkable::pair(std::move(first), std::move(second)),
                             [make](const std::pair<A, B>& both) { return make(both.first, both.second); });
}

rc::Shrinkable<FaultSlot> slot_of(const Scenario& scenario, std::size_t index, rc::Random& random, double chance) {
  const FaultSpec& fault = scenario.faults[index];
  const auto targets = static_cast<std::int64_t>(scenario::fault_targets(scenario, fault).size());
  rc::Shrinkable<bool> present = present_with_chance(random.split(), chance);
  rc::Shrinkable<std::int64_t> target =
      rc::gen::inRange<std::int64_t>(0, std::max<std::int64_t>(targets, 1))(random.split(), rc::kNominalSize);
  rc::Shrinkable<std::int64_t> at = rc::shrinkable::just(std::int64_t{0});
  if (const auto* fixed = std::get_if<scenario::AtTime>(&fault.trigger)) {
    at = shrinking_towards(fixed->at.count_ns(), 0, kNanosPerMilli);
  } else if (std::holds_alternative<scenario::AtRate>(fault.trigger)) {
    at = rc::shrinkable::map(
        rc::gen::inRange<std::int64_t>(0, std::max<std::int64_t>(scenario.duration.count_ns() / kNanosPerMilli, 1))(
            random.split(), rc::kNominalSize),
        [](std::int64_t millis) { return millis * kNanosPerMilli; });
  }
  rc::Shrinkable<std::int64_t> length = length_within(fault.length, random.split());
  return joined(joined(std::move(present), std::move(target), [](bool p, std::int64_t t) { return std::pair{p, t}; }),
                joined(std::move(at), std::move(length), [](std::int64_t a, std::int64_t l) { return std::pair{a, l}; }),
                [index](const std::pair<bool, std::int64_t>& where, const std::pair<std::int64_t, std::int64_t>& when) {
                  return FaultSlot{index, where.first, static_cast<std::size_t>(where.second), when.first,
                                   when.second};
                });
}

rc::Shrinkable<std::vector<FaultSlot>> slots_of(const Scenario& scenario, rc::Random& random) {
  rc::Shrinkable<std::vector<FaultSlot>> slots = rc::shrinkable::just(std::vector<FaultSlot>{});
  const auto add = [&](rc::Shrinkable<FaultSlot> slot) {
    slots = joined(std::move(slots), std::move(slot), [](std::vector<FaultSlot> all, const FaultSlot& one) {
      all.push_back(one);
      return all;
    });
  };
  for (std::size_t index = 0; index < scenario.faults.size(); ++index) {
    const FaultSpec& fault = scenario.faults[index];
    if (const auto* rate = std::get_if<scenario::AtRate>(&fault.trigger)) {
      const double expected = rate->per_minute * static_cast<double>(scenario.duration.count_ns()) / 60e9;
      const std::int64_t occurrences =
          std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(2 * expected)) + 1, 1, kMostOccurrences);
      const double chance = std::min(1.0, expected / static_cast<double>(occurrences));
      for (std::int64_t occurrence = 0; occurrence < occurrences; ++occurrence) {
        add(slot_of(scenario, index, random, chance));
      }
    } else {
      add(slot_of(scenario, index, random, scenario.swarm ? 0.5 : 0.9));
    }
  }
  return slots;
}

int workload_jobs(const model::Workload& workload) {
  return std::visit(
      [](const auto& kind) {
        if constexpr (std::is_same_v<std::decay_t<decltype(kind)>, model::BillingWorkload>) {
          return kind.customers;
        } else {
          return kind.jobs;
        }
      },
      workload);
}

void set_workload_jobs(model::Workload& workload, int jobs) {
  std::visit(
      [jobs](auto& kind) {
        if constexpr (std::is_same_v<std::decay_t<decltype(kind)>, model::BillingWorkload>) {
          kind.customers = jobs;
        } else {
          kind.jobs = jobs;
        }
      },
      workload);
}

}  // namespace

int fewest_workers(const Scenario& scenario) {
  int fewest = 1;
  const auto count = [&](const std::vector<std::string>& nodes) {
    for (const std::string& node : nodes) fewest = std::max(fewest, vocabulary::worker_number(node));
  };
  for (const FaultSpec& fault : scenario.faults) {
    count({fault.target.node});
    if (const auto* partition = std::get_if<model::faults::Partition>(&fault.params)) {
      count(partition->side_a);
      count(partition->side_b);
    }
    if (const auto* failover = std::get_if<model::faults::Failover>(&fault.params);
        failover && failover->primary == model::FailoverPrimary::kPartition) {
      count(failover->with_primary);
    }
  }
  return std::min(fewest, scenario.system.workers.count);
}

rc::Shrinkable<ExploreCase> draw_case(const Scenario& scenario, const rc::Random& random) {
  rc::Random source = random;
  const std::uint64_t seed =
      source.split().next() % static_cast<std::uint64_t>(scenario::kMostSeeds) + scenario::kFewestSeeds;
  rc::Shrinkable<std::vector<FaultSlot>> slots = slots_of(scenario, source);
  rc::Shrinkable<std::int64_t> workers = rc::gen::inRange<std::int64_t>(
      fewest_workers(scenario), std::int64_t{scenario.system.workers.count} + 1)(source.split(), rc::kNominalSize);
  rc::Shrinkable<std::int64_t> jobs = rc::gen::inRange<std::int64_t>(
      1, std::int64_t{std::max(workload_jobs(scenario.system.workload), 1)} + 1)(source.split(), rc::kNominalSize);
  using Maybe = std::optional<std::int64_t>;
  auto sizes = joined(std::move(workers), std::move(jobs), [](std::int64_t w, std::int64_t j) { return std::pair{w, j}; });
  auto constants = joined(constant_in_place_of(scenario.network.delay), constant_in_place_of(scenario.system.workers.work),
                          [](const Maybe& delay, const Maybe& work) { return std::pair{delay, work}; });
  auto rest = joined(std::move(sizes), std::move(constants),
                     [](const std::pair<std::int64_t, std::int64_t>& s, const std::pair<Maybe, Maybe>& c) {
                       return std::pair{s, c};
                     });
  using Rest = std::pair<std::pair<std::int64_t, std::int64_t>, std::pair<Maybe, Maybe>>;
  return joined(std::move(slots), std::move(rest), [seed](const std::vector<FaultSlot>& faults, const Rest& r) {
    ExploreCase point;
    point.seed = seed;
    point.faults = faults;
    point.workers = static_cast<int>(r.first.first);
    point.jobs = static_cast<int>(r.first.second);
    point.network_delay_us = r.second.first;
    point.work_us = r.second.second;
    return point;
  });
}

RunnableCase runnable(const Scenario& scenario, const ExploreCase& point) {
  Scenario changed = scenario;
  changed.swarm = false;
  changed.system.workers.count = point.workers;
  set_workload_jobs(changed.system.workload, point.jobs);
  if (point.network_delay_us) {
    changed.network.delay = Distribution::constant(Duration::nanoseconds(*point.network_delay_us * kNanosPerMicro));
  }
  if (point.work_us) {
    changed.system.workers.work = Distribution::constant(Duration::nanoseconds(*point.work_us * kNanosPerMicro));
  }
  // The seed's clocks, as `run` would draw them for this many nodes.
  Scenario clocks_only = changed;
  clocks_only.faults.clear();
  scenario::Plan plan = scenario::make_plan(clocks_only, point.seed);

  for (std::size_t index = 0; index < scenario.faults.size(); ++index) {
    const FaultSpec& fault = scenario.faults[index];
    const std::vector<std::string> targets = scenario::fault_targets(changed, fault);
    std::vector<scenario::PlannedFault> occurrences;
    for (const FaultSlot& slot : point.faults) {
      if (slot.fault != index || !slot.present || targets.empty()) continue;
      scenario::PlannedFault planned = scenario::plan_fault(fault, index, targets[slot.target % targets.size()],
                                                              Duration::nanoseconds(slot.length_ns));
      if (const auto* on_event = std::get_if<scenario::OnEvent>(&fault.trigger)) {
        planned.trigger = *on_event;
      } else {
        planned.trigger = scenario::AtTime{Duration::nanoseconds(slot.at_ns)};
      }
      occurrences.push_back(std::move(planned));
    }
    std::stable_sort(occurrences.begin(), occurrences.end(), [](const auto& a, const auto& b) {
      const auto* at_a = std::get_if<scenario::AtTime>(&a.trigger);
      const auto* at_b = std::get_if<scenario::AtTime>(&b.trigger);
      return at_a && at_b && at_a->at < at_b->at;
    });
    for (scenario::PlannedFault& planned : occurrences) plan.faults.push_back(std::move(planned));
  }
  return {std::move(changed), std::move(plan)};
}

std::string run_key(const RunnableCase& runnable_case) {
  const Scenario& scenario = runnable_case.scenario;
  std::string key = fmt::format("seed {} workers {} jobs {} delay {} work {}", runnable_case.plan.seed,
                                scenario.system.workers.count, workload_jobs(scenario.system.workload),
                                scenario.network.delay.describe(), scenario.system.workers.work.describe());
  for (const scenario::PlannedFault& fault : runnable_case.plan.faults) {
    const auto* at = std::get_if<scenario::AtTime>(&fault.trigger);
    key += fmt::format(" | {} {} {} {}", fault.index, fault.target, at ? at->at.count_ns() : -1, fault.length.count_ns());
    key += std::visit(
        [](const auto& kind) {
          // What explore varies: a kind's numbers (by, extra) and a restart.
          std::string numbers;
          for (const model::FaultNumber& number : kind.numbers()) numbers += fmt::format(" {}", number.value);
          if constexpr (requires { kind.restart_after; }) {
            numbers += fmt::format(" {}", kind.restart_after ? kind.restart_after->count_ns() : -1);
          }
          return numbers;
        },
        fault.params);
  }
  return key;
}

}  // namespace locksim::explore
