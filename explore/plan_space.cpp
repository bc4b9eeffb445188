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
#include "vocabulary/proc_name.h"
#include "vocabulary/worker_name.h"

namespace locksim::explore {
namespace {

using scenario::FaultSpec;
using scenario::Scenario;
using scenario::TriggerEvent;
using sim::Distribution;
using sim::Duration;

constexpr std::int64_t kNanosPerMilli = 1'000'000;
constexpr std::int64_t kNanosPerMicro = 1'000;
// Exponential and log-normal values are never 0: their support starts above
// it, here at the smallest step a constant in their place takes.
constexpr std::int64_t kShortestPositive = kNanosPerMicro;
// A rate fault gets at most this many occurrences to switch on and off.
constexpr std::int64_t kMostOccurrences = 12;
// An anchor's delay, when it has one, is drawn up to this: enough to land
// anywhere in a hold of the built-in scenarios' work lengths, and 0 (right
// at the event) is as likely as all the others together.
constexpr std::int64_t kLongestAnchorDelayMillis = 2'000;

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

// Every anchor any of the fault's possible targets has (in TriggerEvent's order).
std::vector<TriggerEvent> fault_anchors(const Scenario& scenario, const FaultSpec& fault) {
  std::vector<TriggerEvent> anchors;
  for (const std::string& node : scenario::fault_targets(scenario, fault)) {
    for (const TriggerEvent when : anchors_of_node(scenario, node)) {
      if (std::ranges::find(anchors, when) == anchors.end()) anchors.push_back(when);
    }
  }
  std::ranges::sort(anchors);
  return anchors;
}

// An anchor shrinks to its first event and no delay; it does not shrink
// back to the file's trigger: "a pause right before the write" is the
// simpler story, not the harder one.
rc::Shrinkable<std::optional<Anchor>> shrinking_anchor(std::optional<Anchor> anchor) {
  if (!anchor) return rc::shrinkable::just(std::optional<Anchor>{});
  const TriggerEvent when = anchor->when;
  return joined(shrinking_towards(anchor->nth, 1, 1), shrinking_towards(anchor->delay_ns, 0, kNanosPerMilli),
                [when](std::int64_t nth, std::int64_t delay_ns) {
                  return std::optional<Anchor>{Anchor{when, static_cast<int>(nth), delay_ns}};
                });
}

// Half the slots keep the file's trigger; the others fire at one of the
// anchors the fault's targets have, at its 1st to jobs-th event.
rc::Shrinkable<std::optional<Anchor>> anchor_for(const Scenario& scenario, const FaultSpec& fault, rc::Random random) {
  const std::vector<TriggerEvent> anchors = fault_anchors(scenario, fault);
  if (anchors.empty() || random.next() % 2 == 0) return rc::shrinkable::just(std::optional<Anchor>{});
  Anchor anchor;
  anchor.when = anchors[random.next() % anchors.size()];
  anchor.nth = 1 + static_cast<int>(random.next() % static_cast<std::uint64_t>(std::max(workload_jobs(scenario.system.workload), 1)));
  if (random.next() % 2 == 1) {
    anchor.delay_ns = static_cast<std::int64_t>(random.next() % kLongestAnchorDelayMillis) * kNanosPerMilli;
  }
  return shrinking_anchor(anchor);
}

// One slot from its parts' shrinkables: leaving it out shrinks first, then
// its target, its time, its length and its anchor.
rc::Shrinkable<FaultSlot> slot_from(std::size_t index, rc::Shrinkable<bool> present, rc::Shrinkable<std::int64_t> target,
                                    rc::Shrinkable<std::int64_t> at, rc::Shrinkable<std::int64_t> length,
                                    rc::Shrinkable<std::optional<Anchor>> anchor) {
  auto where = joined(std::move(present), std::move(target), [](bool p, std::int64_t t) { return std::pair{p, t}; });
  auto when = joined(std::move(at), std::move(length), [](std::int64_t a, std::int64_t l) { return std::pair{a, l}; });
  auto place = joined(std::move(where), std::move(when),
                      [](const std::pair<bool, std::int64_t>& w, const std::pair<std::int64_t, std::int64_t>& t) {
                        return std::pair{w, t};
                      });
  using Place = std::pair<std::pair<bool, std::int64_t>, std::pair<std::int64_t, std::int64_t>>;
  return joined(std::move(place), std::move(anchor), [index](const Place& p, const std::optional<Anchor>& a) {
    return FaultSlot{index, p.first.first, static_cast<std::size_t>(p.first.second), p.second.first, p.second.second, a};
  });
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
  return slot_from(index, std::move(present), std::move(target), std::move(at), std::move(length),
                   anchor_for(scenario, fault, random.split()));
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

std::vector<TriggerEvent> anchors_of_node(const Scenario& scenario, const std::string& node) {
  namespace proc = vocabulary::proc;
  if (vocabulary::is_worker(node)) {
    std::vector<TriggerEvent> anchors{TriggerEvent::kAfterAcquire, TriggerEvent::kBeforeWrite, TriggerEvent::kBeforeReply};
    const std::vector<std::string> nodes = scenario::scenario_node_names(scenario);
    if (std::ranges::find(nodes, proc::kPayments) != nodes.end()) anchors.push_back(TriggerEvent::kBeforeCharge);
    return anchors;
  }
  if (node.empty() || node == proc::kStorage || node == proc::kPayments || node == proc::kSentinel) return {};
  return {TriggerEvent::kAfterGrant};
}

namespace {

// A case from its parts' shrinkables: its faults shrink first, then its
// sizes, then the constants in place of its distributions.
rc::Shrinkable<ExploreCase> case_from(const Scenario& scenario, std::uint64_t seed,
                                      rc::Shrinkable<std::vector<FaultSlot>> slots, rc::Shrinkable<std::int64_t> workers,
                                      rc::Shrinkable<std::int64_t> jobs) {
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

// A planned occurrence as a slot that plans it again exactly, and shrinks
// as a drawn one does.
rc::Shrinkable<FaultSlot> slot_of_planned(const Scenario& scenario, const scenario::PlannedFault& planned) {
  const FaultSpec& fault = scenario.faults[planned.index];
  const std::vector<std::string> targets = scenario::fault_targets(scenario, fault);
  const auto found = std::ranges::find(targets, planned.target);
  const auto target = static_cast<std::int64_t>(found == targets.end() ? 0 : found - targets.begin());
  const auto* at = std::get_if<scenario::AtTime>(&planned.trigger);
  const std::int64_t length_ns = planned.length.count_ns();
  rc::Shrinkable<std::int64_t> length =
      is_constant(fault.length)
          ? rc::shrinkable::just(length_ns)
          : shrinking_towards(length_ns, std::min(length_ns, support_of(fault.length).low_ns), kNanosPerMilli);
  return slot_from(planned.index, rc::shrinkable::just(true, rc::seq::just(rc::shrinkable::just(false))),
                   shrinking_towards(target, 0, 1),
                   at ? shrinking_towards(at->at.count_ns(), 0, kNanosPerMilli) : rc::shrinkable::just(std::int64_t{0}),
                   std::move(length), rc::shrinkable::just(std::optional<Anchor>{}));
}

}  // namespace

rc::Shrinkable<ExploreCase> draw_case(const Scenario& scenario, const rc::Random& random) {
  rc::Random source = random;
  const std::uint64_t seed =
      source.split().next() % static_cast<std::uint64_t>(scenario::kMostSeeds) + scenario::kFewestSeeds;
  rc::Shrinkable<std::vector<FaultSlot>> slots = slots_of(scenario, source);
  rc::Shrinkable<std::int64_t> workers = rc::gen::inRange<std::int64_t>(
      fewest_workers(scenario), std::int64_t{scenario.system.workers.count} + 1)(source.split(), rc::kNominalSize);
  rc::Shrinkable<std::int64_t> jobs = rc::gen::inRange<std::int64_t>(
      1, std::int64_t{std::max(workload_jobs(scenario.system.workload), 1)} + 1)(source.split(), rc::kNominalSize);
  return case_from(scenario, seed, std::move(slots), std::move(workers), std::move(jobs));
}

rc::Shrinkable<ExploreCase> case_of_plan(const Scenario& scenario, const scenario::Plan& plan) {
  rc::Shrinkable<std::vector<FaultSlot>> slots = rc::shrinkable::just(std::vector<FaultSlot>{});
  for (const scenario::PlannedFault& planned : plan.faults) {
    slots = joined(std::move(slots), slot_of_planned(scenario, planned), [](std::vector<FaultSlot> all, const FaultSlot& one) {
      all.push_back(one);
      return all;
    });
  }
  return case_from(scenario, plan.seed, std::move(slots),
                   shrinking_towards(scenario.system.workers.count, fewest_workers(scenario), 1),
                   shrinking_towards(std::max(workload_jobs(scenario.system.workload), 1), 1, 1));
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
      if (slot.anchor && std::ranges::count(anchors_of_node(changed, planned.target), slot.anchor->when) > 0) {
        planned.trigger = scenario::OnEvent{slot.anchor->when, slot.anchor->nth, Duration::nanoseconds(slot.anchor->delay_ns)};
      } else if (const auto* on_event = std::get_if<scenario::OnEvent>(&fault.trigger)) {
        planned.trigger = *on_event;
      } else {
        planned.trigger = scenario::AtTime{Duration::nanoseconds(slot.at_ns)};
      }
      occurrences.push_back(std::move(planned));
    }
    // Timed occurrences in time order (as make_plan has a rate's), then the
    // anchored ones as the slots have them.
    std::stable_sort(occurrences.begin(), occurrences.end(), [](const auto& a, const auto& b) {
      const auto* at_a = std::get_if<scenario::AtTime>(&a.trigger);
      const auto* at_b = std::get_if<scenario::AtTime>(&b.trigger);
      if (!at_a || !at_b) return at_a != nullptr && at_b == nullptr;
      return at_a->at < at_b->at;
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
    if (const auto* on_event = std::get_if<scenario::OnEvent>(&fault.trigger)) {
      key += fmt::format(" on {} {} {}", static_cast<int>(on_event->when), on_event->nth, on_event->delay.count_ns());
    }
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
