#include "verify/verification.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/core.h>

#include "verify/chosen_plan.h"
#include "verify/landing.h"

namespace locksim::verify {
namespace {

// A first deviation of the run with none: each is explored as its own task.
struct FirstDeviation {
  std::size_t position = 0;
  std::uint32_t index = 0;
};

// What one task found, merged in task order so the result does not depend on threads.
struct TaskResult {
  std::int64_t runs = 0;
  std::int64_t simulations = 0;
  std::map<checker::ViolationKind, std::int64_t> runs_showing;
  std::optional<VerifiedRun> found;
};

bool meets(const explore::ExploreGoal& goal, const runner::SeedRun& run) {
  return std::any_of(goal.kinds.begin(), goal.kinds.end(),
                     [&](checker::ViolationKind kind) { return run.verdict.violation_count(kind).value_or(0) > 0; });
}

void tally(const runner::SeedRun& run, std::map<checker::ViolationKind, std::int64_t>& runs_showing) {
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    if (run.verdict.violation_count(kind).value_or(0) > 0) ++runs_showing[kind];
  }
}

std::vector<std::uint32_t> indices_before(const std::vector<ChoicePoint>& points, std::size_t end) {
  std::vector<std::uint32_t> script;
  script.reserve(end + 1);
  for (std::size_t position = 0; position < end; ++position) script.push_back(points[position].index);
  return script;
}

// `landings` and the landing `ahead` has at `position`, if any.
Landings with_landing(Landings landings, const Landings& ahead, std::size_t position) {
  if (const auto landing = ahead.find(position); landing != ahead.end()) landings.insert(*landing);
  return landings;
}

class LevelSearch {
 public:
  LevelSearch(const scenario::Scenario& scenario, const explore::ExploreGoal& goal, const Bounds& bounds,
              std::atomic<std::int64_t>& runs_done)
      : scenario_{scenario}, goal_{goal}, bounds_{bounds}, runs_done_{runs_done} {}

  // Every run that has `remaining` more deviations after `script`, all after position `last`.
  void visit(std::vector<std::uint32_t> script, Landings landings, std::size_t last, int remaining,
             TaskResult& out) const {
    VerifiedRun made = run_script(scenario_, goal_.mode, std::move(script), bounds_, {}, std::move(landings));
    ++out.simulations;
    if (remaining == 0) {
      ++out.runs;
      runs_done_.fetch_add(1, std::memory_order_relaxed);
      tally(made.run, out.runs_showing);
      if (meets(goal_, made.run)) out.found = std::move(made);
      return;
    }
    const Landings ahead = landings_ahead(made.points, made.storage_accesses, last + 1);
    for (std::size_t position = last + 1; position < made.points.size(); ++position) {
      const std::uint32_t size = domain_size(made.points, position, ahead, bounds_.domain);
      for (std::uint32_t index = 1; index < size; ++index) {
        std::vector<std::uint32_t> child = indices_before(made.points, position);
        child.push_back(index);
        visit(std::move(child), with_landing(made.landings, ahead, position), position, remaining - 1, out);
        if (out.found) return;
      }
    }
  }

 private:
  const scenario::Scenario& scenario_;
  const explore::ExploreGoal& goal_;
  const Bounds& bounds_;
  std::atomic<std::int64_t>& runs_done_;
};

}  // namespace

std::vector<ChoicePoint> VerifiedRun::deviations() const {
  std::vector<ChoicePoint> deviating;
  for (const ChoicePoint& point : points) {
    if (point.index != 0) deviating.push_back(point);
  }
  return deviating;
}

std::vector<std::int64_t> runs_per_level(const VerifiedRun& base, const Bounds& bounds) {
  // The elementary symmetric sums of the alternatives' counts: level d has
  // one run per choice of d points and of an alternative at each.
  constexpr double kMost = static_cast<double>(std::numeric_limits<std::int64_t>::max() / 2);
  std::vector<double> sums(static_cast<std::size_t>(bounds.deviations) + 1, 0.0);
  sums[0] = 1.0;
  const Landings ahead = landings_ahead(base.points, base.storage_accesses, 0);
  for (std::size_t position = 0; position < base.points.size(); ++position) {
    const double alternatives = domain_size(base.points, position, ahead, bounds.domain) - 1.0;
    for (std::size_t level = sums.size() - 1; level >= 1; --level) {
      sums[level] = std::min(kMost, sums[level] + sums[level - 1] * alternatives);
    }
  }
  std::vector<std::int64_t> counts;
  for (const double sum : sums) counts.push_back(static_cast<std::int64_t>(sum));
  return counts;
}

std::optional<scenario::Scenario> with_extra_faults(const scenario::Scenario& scenario, int extra_faults) {
  if (extra_faults == 0) return scenario;
  for (const scenario::FaultKind kind : {scenario::FaultKind::kPause, scenario::FaultKind::kCrash}) {
    const auto like = std::find_if(scenario.faults.begin(), scenario.faults.end(),
                                   [kind](const scenario::FaultSpec& fault) { return fault.kind() == kind; });
    if (like == scenario.faults.end()) continue;
    scenario::Scenario extended = scenario;
    scenario::FaultSpec extra = *like;
    extra.target = {scenario::TargetGroup::kAny, ""};
    for (int count = 0; count < extra_faults; ++count) extended.faults.push_back(extra);
    return extended;
  }
  return std::nullopt;
}

VerifiedRun run_script(const scenario::Scenario& scenario, model::Fencing mode, std::vector<std::uint32_t> script,
                       const Bounds& bounds, const runner::LineWatcher& watch, Landings landings) {
  ScriptedChooser chooser{script, bounds.domain, landings};
  VerifiedRun made;
  made.landings = std::move(landings);
  made.plan = chosen_plan(scenario, chooser, bounds.anchors, bounds.extra_faults);
  made.run = runner::run_plan(scenario, made.plan, mode, watch, runner::OracleChoice::kOn, &chooser);
  if (!made.run.oracle_mismatches.empty()) {
    const runner::OracleMismatch& first = made.run.oracle_mismatches.front();
    throw std::runtime_error(fmt::format("the checker and the oracle disagree on {} (checker {}, oracle {})",
                                         first.measure, first.checker_count, first.oracle_count));
  }
  made.points = chooser.take_points();
  made.storage_accesses = chooser.take_storage_accesses();
  // Kept up to its last deviation: the rest is the default.
  while (!script.empty() && script.back() == 0) script.pop_back();
  made.script = std::move(script);
  return made;
}

VerifiedRun rerun_script(const scenario::Scenario& scenario, model::Fencing mode,
                         const std::vector<std::uint32_t>& script, const Bounds& bounds,
                         const runner::LineWatcher& watch) {
  Landings landings;
  for (std::size_t position = 0; position < script.size(); ++position) {
    if (script[position] == 0) continue;
    const std::vector<std::uint32_t> before(script.begin(), script.begin() + static_cast<std::ptrdiff_t>(position));
    const VerifiedRun parent = run_script(scenario, mode, before, bounds, {}, landings);
    landings = with_landing(std::move(landings), landings_ahead(parent.points, parent.storage_accesses, position),
                            position);
  }
  return run_script(scenario, mode, script, bounds, watch, std::move(landings));
}

Verification verify(const scenario::Scenario& scenario, const explore::ExploreGoal& goal, const Bounds& bounds,
                    int jobs, const ProgressWatcher& progress, std::optional<VerifiedRun> base_run) {
  const auto started = std::chrono::steady_clock::now();
  Verification result;
  result.bounds = bounds;
  result.goal = goal;
  auto finish = [&] {
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  };

  VerifiedRun base = base_run ? std::move(*base_run) : run_script(scenario, goal.mode, {}, bounds);
  result.runs = result.simulations = 1;
  tally(base.run, result.runs_showing);
  if (meets(goal, base.run)) {
    result.counterexample = std::move(base);
    return finish();
  }
  result.levels_done = 1;
  const std::vector<std::int64_t> per_level = runs_per_level(base, bounds);
  std::int64_t expected = 0;
  for (const std::int64_t count : per_level) expected += count;

  const Landings ahead = landings_ahead(base.points, base.storage_accesses, 0);
  std::vector<FirstDeviation> firsts;
  for (std::size_t position = 0; position < base.points.size(); ++position) {
    const std::uint32_t size = domain_size(base.points, position, ahead, bounds.domain);
    for (std::uint32_t index = 1; index < size; ++index) firsts.push_back({position, index});
  }

  std::atomic<std::int64_t> runs_done{1};
  const LevelSearch search{scenario, goal, bounds, runs_done};
  for (int level = 1; level <= bounds.deviations; ++level) {
    std::vector<TaskResult> results(firsts.size());
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> best{firsts.size()};  // the first task that found a run meeting the goal
    std::exception_ptr failure;
    std::mutex failure_mutex;
    const int threads_wanted = std::max(1, jobs);
    std::atomic<int> running{threads_wanted};
    auto work = [&] {
      struct Done {
        std::atomic<int>& running;
        ~Done() { --running; }
      } done{running};
      for (std::size_t task = next++; task < firsts.size(); task = next++) {
        if (task > best.load()) continue;
        try {
          std::vector<std::uint32_t> script(firsts[task].position, 0);
          script.push_back(firsts[task].index);
          search.visit(std::move(script), with_landing({}, ahead, firsts[task].position), firsts[task].position,
                       level - 1, results[task]);
        } catch (...) {
          const std::lock_guard lock{failure_mutex};
          if (!failure) failure = std::current_exception();
          best = 0;
          return;
        }
        if (results[task].found) {
          std::size_t seen = best.load();
          while (task < seen && !best.compare_exchange_weak(seen, task)) {
          }
        }
      }
    };
    std::vector<std::jthread> threads;
    for (int thread = 0; thread < threads_wanted; ++thread) threads.emplace_back(work);
    auto last_report = std::chrono::steady_clock::now();
    while (progress && running.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (std::chrono::steady_clock::now() - last_report >= std::chrono::milliseconds(500)) {
        progress({runs_done.load(), expected, level});
        last_report = std::chrono::steady_clock::now();
      }
    }
    threads.clear();  // joins
    if (failure) std::rethrow_exception(failure);

    const std::size_t last = std::min(best.load(), firsts.size() - 1);
    for (std::size_t task = 0; task <= last && !firsts.empty(); ++task) {
      result.runs += results[task].runs;
      result.simulations += results[task].simulations;
      for (const auto& [kind, count] : results[task].runs_showing) result.runs_showing[kind] += count;
    }
    if (best.load() < firsts.size()) {
      result.counterexample = std::move(results[best.load()].found);
      return finish();
    }
    result.levels_done = level + 1;
  }
  return finish();
}

}  // namespace locksim::verify
