// `locksim demo`: a short run of the kernel alone, printed as its history.
// A client asks a server for the time once a second; a GC-like pause freezes
// the client for 3.5 s, and on resume its held-back work runs at once, with
// its own clock (local_t) showing the gap. It shows what every model builds
// on until the scenario suite replaces it as the main job.

#include <fmt/core.h>

#include "command.h"
#include "sim/simulation.h"
#include "stderr_lines.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"

namespace locksim::cli {

using vocabulary::EventKind;
namespace field = vocabulary::field;

namespace {

using namespace sim::literals;

struct TimeRequest {};
struct TimeReply {
  std::int64_t server_local_ns = 0;
};

sim::Task<> time_server(sim::Context context) {
  while (true) {
    const sim::Message request = co_await context.receive();
    context.reply(request, TimeReply{context.now().ns()});
  }
}

// Reads the server's clock once a second. It records contract events
// (read.invoke / read.ok, key "clock") so that the printed history is one
// `locksim check` reads; like a worker's read, a timed-out one stays
// without a completion.
sim::Task<> time_client(sim::Context context, sim::NodeId server) {
  for (int round = 1; round <= 6; ++round) {
    co_await context.sleep(1_s);
    context.record(EventKind::kReadInvoke, {{field::kKey, "clock"}, {field::kLocalTime, context.now()}});
    const std::optional<sim::Message> reply = co_await context.call(server, TimeRequest{}, 500_ms);
    if (reply) {
      context.record(EventKind::kReadOk, {{field::kKey, "clock"},
                                          {field::kValue, reply->body.get<TimeReply>().server_local_ns},
                                          {field::kLocalTime, context.now()}});
    }
  }
}

ExitCode run_demo() {
  sim::SimulationOptions options;
  options.seed = 1;
  options.network.delay = sim::Distribution::log_normal(1_ms, 20_ms);
  sim::Simulation simulation{options, [](std::string_view line) { fmt::print("{}\n", line); }};
  simulation.record(vocabulary::proc::kRun, EventKind::kRunBegin,
                    {{field::kScenario, "kernel-demo"}, {field::kSeed, 1}, {field::kFencing, false}});
  const sim::NodeId server = simulation.add_node(
      "server", [](sim::Context context) { context.spawn("main", time_server(context)); },
      sim::LocalClock{sim::LocalTime{} + 250_ms});
  const sim::NodeId client = simulation.add_node(
      "worker-1", [server](sim::Context context) { context.spawn("main", time_client(context, server)); });
  simulation.schedule(sim::Time{} + 2200_ms, [&] {
    simulation.record(vocabulary::proc::kNemesis, EventKind::kFaultBegin,
                      {{field::kKind, vocabulary::fault_kind_name(vocabulary::FaultKind::kPause)},
                       {field::kTarget, "worker-1"},
                       {field::kForNs, 3500_ms}});
    simulation.pause(client);
  });
  simulation.schedule(sim::Time{} + 5700_ms, [&] {
    simulation.resume(client);
    simulation.record(
        vocabulary::proc::kNemesis, EventKind::kFaultEnd,
        {{field::kKind, vocabulary::fault_kind_name(vocabulary::FaultKind::kPause)}, {field::kTarget, "worker-1"}});
  });
  const sim::RunOutcome outcome = simulation.run();
  simulation.record(vocabulary::proc::kRun, EventKind::kRunEnd, {{field::kFinal, sim::RawJson{"{}"}}});
  print_to_stderr("demo: {} events in {:.3f} virtual seconds, history hash {:016x}\n", outcome.events,
             outcome.end.seconds_double(), simulation.history().hash());
  return ExitCode::kOk;
}

}  // namespace

void add_demo_command(CLI::App& app, ExitCode& exit_code) {
  CLI::App* demo = app.add_subcommand("demo", "Run a short kernel demonstration and print its history");
  demo->callback([&exit_code] { exit_code = run_demo(); });
}

}  // namespace locksim::cli
