#include "runner/seed_run.h"

#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "checker/history_reader.h"
#include "locksim/version.h"
#include "model/consensus_member.h"
#include "model/nemesis.h"
#include "model/system.h"
#include "runner/event_adapter.h"
#include "runner/probes.h"
#include "scenario/fencing_modes.h"
#include "sim/duration_text.h"
#include "text/json_string.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"

namespace locksim::runner {

using vocabulary::EventKind;
namespace field = vocabulary::field;

namespace {

using scenario::PlannedFault;
using scenario::TriggerEvent;

sim::NodeId node_named(const sim::Simulation& simulation, const std::string& name) {
  const std::optional<sim::NodeId> node = simulation.find_node(name);
  if (!node) {
    throw std::logic_error(fmt::format("the plan names node \"{}\", which the system does not have", name));
  }
  return *node;
}

std::vector<sim::NodeId> nodes_named(const sim::Simulation& simulation, const std::vector<std::string>& names) {
  std::vector<sim::NodeId> nodes;
  for (const std::string& name : names) nodes.push_back(node_named(simulation, name));
  return nodes;
}

// A planned fault bound to the running system, once: its nodes by name become nodes.
model::BoundFault bind(const PlannedFault& fault, const sim::Simulation& simulation) {
  std::optional<sim::NodeId> target;
  const bool at_leader = fault.target == model::kConsensusLeader;
  if (!fault.target.empty() && !at_leader) target = node_named(simulation, fault.target);
  return {target, fault.length, std::visit(
                                    [&simulation](const auto& params) -> model::FaultParamsOf<sim::NodeId> {
                                      if constexpr (std::is_same_v<std::decay_t<decltype(params)>,
                                                                   model::faults::Partition>) {
                                        return model::faults::PartitionOf<sim::NodeId>{
                                            nodes_named(simulation, params.side_a),
                                            nodes_named(simulation, params.side_b)};
                                      } else {
                                        return params;
                                      }
                                    },
                                    fault.params),
          at_leader};
}

// Whose events an event trigger counts: its target's, or with
// `consensus-leader`, every member's (only the leader records the service's events).
// A fault's `for` asked of `locksim verify`'s chooser as the fault strikes,
// when the lease left of its target (or of the holder) is known.
sim::Duration chosen_length(sim::Chooser& chooser, const scenario::FaultSpec& spec, const PlannedFault& fault) {
  if (!model::takes_length(fault.params)) return fault.length;
  const std::string subject = fmt::format("faults[{}]", fault.index);
  const std::string_view lease_of = fault.target.empty() ? sim::kLeaseOfHolder : std::string_view{fault.target};
  return chooser.choose_duration({"fault length", subject, lease_of}, spec.length);
}

std::vector<std::string> procs_watched(const std::string& target, const sim::Simulation& simulation,
                                       model::System& system) {
  if (target != model::kConsensusLeader) return {target};
  std::vector<std::string> members;
  for (const sim::NodeId node : system.service().nodes()) members.push_back(simulation.node_name(node));
  return members;
}

sim::Duration drift_allowance(const scenario::Scenario& scenario) {
  constexpr sim::Duration kClockResolution = sim::Duration::milliseconds(2);
  const std::optional<sim::Duration> lease = scenario.system.lock.lease;
  if (!lease) return kClockResolution;
  const auto scaled = static_cast<std::int64_t>(static_cast<double>(lease->count_ns()) *
                                                scenario.system.service.drift_factor);
  return sim::Duration::nanoseconds(scaled) + kClockResolution;
}

// The oracle's view of the scenario, as the models decided it.
OracleSetup oracle_setup(const scenario::Scenario& scenario, model::System& system) {
  OracleSetup setup;
  setup.quorum = system.service().quorum();
  setup.stuck_after = scenario.system.lock.stuck_after;
  std::visit(
      [&setup](const auto& kind) {
        using Kind = std::decay_t<decltype(kind)>;
        setup.workload = std::is_same_v<Kind, model::CounterWorkload>   ? OracleSetup::Workload::kCounter
                         : std::is_same_v<Kind, model::BillingWorkload> ? OracleSetup::Workload::kBilling
                                                                        : OracleSetup::Workload::kWriteOnly;
        setup.counter_key = kind.key;
      },
      scenario.system.workload);
  return setup;
}

std::string workload_json(const model::Workload& workload) {
  // The checker reads the workload to know which keys are counters.
  // The key is the user's text: written through the recorder's JSON escaping.
  fmt::memory_buffer json;
  fmt::format_to(std::back_inserter(json), R"({{"kind":"{}","key":)", model::workload_kind_name(workload));
  text::append_json_string(json, model::workload_key(workload));
  json.push_back('}');
  return fmt::to_string(json);
}

std::string why_stopped(const sim::RunOutcome& outcome, const sim::SimulationOptions& options,
                        std::int64_t unfinished_jobs) {
  const std::string left = fmt::format("{} job{} left", unfinished_jobs, unfinished_jobs == 1 ? "" : "s");
  switch (outcome.reason) {
    case sim::StopReason::kTimeLimit:
      return fmt::format("time limit {} reached with {}", sim::format_duration(options.time_limit), left);
    case sim::StopReason::kEventLimit:
      return fmt::format("event limit of {} events reached with {}", options.event_limit, left);
    case sim::StopReason::kQuiescent: return fmt::format("nothing left to run, with {}", left);
    case sim::StopReason::kStopped: return "every job done";
  }
  return "";
}

// What was still waiting when the run ended: the kernel's blocked processes
// when nothing was left to run; otherwise (a limit stopped it while events
// were pending) each worker with jobs left and the state of its node.
std::vector<std::string> still_waiting(const sim::RunOutcome& outcome, const sim::Simulation& simulation,
                                       const model::System& system) {
  std::vector<std::string> waiting;
  for (const sim::BlockedProcess& process : outcome.blocked) {
    waiting.push_back(fmt::format("{}/{}: {}", process.node, process.process, process.waiting_for));
  }
  if (!waiting.empty()) return waiting;
  const std::vector<sim::NodeId> workers = system.worker_nodes();
  for (std::size_t index = 0; index < workers.size(); ++index) {
    const model::Worker& worker = system.worker(static_cast<int>(index) + 1);
    if (worker.finished()) continue;
    const char* state = !simulation.is_up(workers[index])   ? "node down"
                        : simulation.is_paused(workers[index]) ? "node paused"
                        : worker.holding()                   ? "holding the lock"
                                                             : "not holding the lock";
    waiting.push_back(fmt::format("{}: {} jobs done, {}", worker.name(), worker.jobs_done(), state));
  }
  return waiting;
}

}  // namespace

std::vector<OracleMismatch> compare_with_oracle(const checker::HistoryVerdict& verdict, const OracleCounts& counts) {
  std::vector<OracleMismatch> mismatches;
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    const std::string name{checker::violation_kind_name(kind)};
    const std::optional<std::int64_t> checked = verdict.violation_count(kind);
    if (checked && *checked != counts.of(kind)) mismatches.push_back({name, *checked, counts.of(kind)});
    const std::optional<std::int64_t> incidents = verdict.incident_count(kind);
    if (incidents && *incidents != counts.incidents_of(kind)) {
      mismatches.push_back({"incidents." + name, *incidents, counts.incidents_of(kind)});
    }
  }
  if (verdict.counts.late_writes != counts.late_writes) {
    mismatches.push_back({"late_writes", verdict.counts.late_writes, counts.late_writes});
  }
  return mismatches;
}

SeedRun run_seed(const scenario::Scenario& scenario, std::uint64_t seed, model::Fencing fencing,
                 const LineWatcher& watch, OracleChoice oracle) {
  return run_plan(scenario, scenario::make_plan(scenario, seed), fencing, watch, oracle);
}

SeedRun run_plan(const scenario::Scenario& scenario, const scenario::Plan& plan, model::Fencing fencing,
                 const LineWatcher& watch, OracleChoice oracle_choice, sim::Chooser* chooser) {
  SeedRun result;
  result.seed = plan.seed;
  result.fencing = fencing;

  model::SystemOptions options = scenario.system;
  options.storage.fencing = fencing;
  sim::SimulationOptions simulation_options;
  simulation_options.seed = plan.seed;
  simulation_options.time_limit = scenario.duration;
  simulation_options.event_limit = scenario.event_limit;
  simulation_options.network = scenario.network;
  simulation_options.chooser = chooser;

  // The history's text is made only for a watcher (replay's trace,
  // --history, the reports); the checker reads the typed records.
  const sim::Simulation* running = nullptr;
  sim::HistorySink sink;
  if (watch) {
    sink = [&watch, &running](std::string_view line) { watch(line, *running); };
  }
  sim::Simulation simulation{simulation_options, std::move(sink)};
  running = &simulation;

  checker::CheckOptions check_options;
  check_options.stuck_after_ns = scenario.system.lock.stuck_after.count_ns();
  checker::HistoryChecker checker{check_options};
  EventAdapter adapter;
  simulation.observe([&adapter, &checker, &simulation](std::string_view proc, EventKind event,
                                                       std::span<const sim::Field> fields) {
    const std::uint64_t index = simulation.history().events_recorded() - 1;
    if (auto problem = adapter.adapt(index, simulation.now(), proc, event, fields)) {
      throw std::logic_error(fmt::format("the simulator wrote a history the checker rejects: line {}: {}", index + 1,
                                         *problem));
    }
    checker.observe(adapter.event());
  });
  ProbeCounter probes{drift_allowance(scenario)};
  simulation.observe([&probes](std::string_view proc, EventKind event, std::span<const sim::Field> fields) {
    probes.observe(proc, event, fields);
  });

  model::System system{simulation, options};
  std::optional<Oracle> oracle;
  if (oracle_choice == OracleChoice::kOn) {
    oracle.emplace(oracle_setup(scenario, system));
    simulation.observe(
        [&oracle, &simulation](std::string_view proc, EventKind event, std::span<const sim::Field> fields) {
          oracle->observe(simulation.now(), proc, event, fields);
        });
  }
  // run.begin and run.end are both recorded here: the run's frame is the runner's.
  const std::string service = system.service().describe_json();
  const std::string workload = workload_json(scenario.system.workload);
  simulation.record(vocabulary::proc::kRun, EventKind::kRunBegin,
                    {{field::kScenario, scenario.name},
                     {field::kSeed, static_cast<std::int64_t>(plan.seed)},
                     {field::kFencing, fencing == model::Fencing::kOn},
                     {field::kVersion, kVersion},
                     {field::kService, sim::RawJson{service}},
                     {field::kWorkload, sim::RawJson{workload}},
                     {field::kStuckAfterNs, scenario.system.lock.stuck_after}});
  for (const auto& [node, drift_ppb] : plan.drift_ppb) {
    simulation.set_clock_drift(node_named(simulation, node), drift_ppb);
  }

  for (const auto& [worker, offset] : plan.worker_starts) {
    system.start_worker_after(worker, offset);
  }

  model::Nemesis nemesis{simulation, system};
  std::vector<bool> fired(scenario.faults.size(), false);
  for (const PlannedFault& fault : plan.faults) {
    auto act = [bound = bind(fault, simulation), &fault, &scenario, &nemesis, &fired, chooser]() mutable {
      if (chooser != nullptr) bound.length = chosen_length(*chooser, scenario.faults[fault.index], fault);
      if (nemesis.apply(bound)) fired[fault.index] = true;
    };
    if (const auto* at = std::get_if<scenario::AtTime>(&fault.trigger)) {
      nemesis.at(sim::Time{} + at->at, act);
    } else {
      const auto& on_event = std::get<scenario::OnEvent>(fault.trigger);
      nemesis.after_event(procs_watched(fault.target, simulation, system), scenario::watched_event(on_event.when),
                          on_event.nth, on_event.delay, act);
    }
  }

  const sim::RunOutcome outcome = simulation.run();
  const std::string final_values = system.final_values_json();
  simulation.record(vocabulary::proc::kRun, EventKind::kRunEnd, {{field::kFinal, sim::RawJson{final_values}}});
  result.stop_reason = outcome.reason;
  result.unfinished_jobs = system.unfinished_jobs();
  result.jobs_done = system.jobs_done();
  const model::Worker::Costs costs = system.costs();
  result.calls = costs.calls;
  result.acquire_wait_ns = costs.acquire_wait.count_ns();
  result.stopped_short = outcome.reason == sim::StopReason::kEventLimit ||
                         (outcome.reason == sim::StopReason::kTimeLimit && result.unfinished_jobs > 0);
  result.why_stopped = why_stopped(outcome, simulation_options, result.unfinished_jobs);
  if (result.stopped_short || result.unfinished_jobs > 0) result.blocked = still_waiting(outcome, simulation, system);

  const std::string name =
      fmt::format("{} seed {} fencing {}", scenario.name, plan.seed, scenario::fencing_switch_name(fencing));
  result.verdict = checker.finish(name, adapter.summary());
  if (oracle) {
    result.oracle = oracle->finish(system.storage().values());
    result.oracle_mismatches = compare_with_oracle(result.verdict, *result.oracle);
  }

  for (std::size_t index = 0; index < fired.size(); ++index) {
    if (fired[index]) result.faults_fired.push_back(index);
  }
  result.probes = probes.counts();
  result.events = outcome.events;
  result.virtual_ns = simulation.now().ns();
  result.history_hash = simulation.history().hash();
  if (watch) result.text_hash = simulation.history().text_hash();
  result.history_events = simulation.history().events_recorded();
  return result;
}

}  // namespace locksim::runner
