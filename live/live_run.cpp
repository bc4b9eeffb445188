#include "live/live_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "live/asio_coroutines.h"
#include "live/client_side_leases.h"
#include "live/consensus_service.h"
#include "live/failover_service.h"
#include "live/fault_proxy.h"
#include "live/live_fault_forms.h"
#include "live/live_history.h"
#include "live/live_keys.h"
#include "live/log_subscription.h"
#include "live/redis_client.h"
#include "live/time_scale.h"
#include "live/user_worker_config.h"
#include "live/worker_config.h"
#include "live/worker_launch.h"
#include "live/worker_line.h"
#include "locksim/version.h"
#include "model/client_rules.h"
#include "model/redlock_service.h"
#include "scenario/plan.h"
#include "scenario/saved_plan.h"
#include "sim/duration_text.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"
#include "vocabulary/reason.h"
#include "vocabulary/worker_name.h"

namespace locksim::live {

using vocabulary::EventKind;
using vocabulary::event_kind_name;
using vocabulary::fault_kind_name;
namespace field = vocabulary::field;
namespace reason = vocabulary::reason;

namespace {

using Json = nlohmann::ordered_json;
using scenario::FaultKind;
using scenario::PlannedFault;
using std::chrono::nanoseconds;

// How long before t = 0 locksim's own workers are started.
constexpr std::chrono::milliseconds kHeadStart{250};
// t = 0 this long after the last program said it was ready: the time to
// write every program its start line.
constexpr std::chrono::milliseconds kReadyMargin{20};
// The longest line a worker may print, in bytes (locksim's are a few hundred).
constexpr std::size_t kLongestWorkerLine = 1 << 20;

std::int64_t clock_ns(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Where a worker's trigger is: the line the coordinator watches for (a
// fault with a delay), and the point at which the worker stops itself for a
// fault with none.
struct TriggerPoint {
  std::string_view watched;
  std::string_view self_stop;
  // before-reply's delay (the model's 500 us) only lands the pause between
  // the send and the replies: live, the worker stops itself right there,
  // once every request is written (`acquire.sent`, no history line).
  bool before_reply = false;

  [[nodiscard]] bool self_stops_despite(sim::Duration delay) const {
    return before_reply && delay < sim::Duration::milliseconds(1);
  }
};

TriggerPoint trigger_point(scenario::TriggerEvent when) {
  const std::string_view watched = event_kind_name(scenario::watched_event(when));
  switch (when) {
    case scenario::TriggerEvent::kBeforeWrite:
    case scenario::TriggerEvent::kBeforeCharge:
      return {watched, watched};
    case scenario::TriggerEvent::kBeforeReply:
      return {watched, kAcquireSent, true};
    default: break;
  }
  // After an acquire (or a grant): the worker stops once it acts as the holder.
  return {watched, event_kind_name(EventKind::kHoldBegin)};
}

class Coordinator {
 public:
  Coordinator(const scenario::Scenario& scenario, model::Fencing mode, const LiveRunSettings& settings)
      : scenario_{scenario}, mode_{mode}, settings_{settings}, plan_{scenario::make_plan(scenario, settings.seed)} {}

  // Whatever happens, no worker outlives the run, and the lock servers are left running.
  ~Coordinator() {
    join_restarts();
    for (auto& worker : workers_) {
      if (worker->input >= 0) ::close(worker->input);
      if (worker->running) {
        signal_worker(worker->pid, SIGKILL);
        ::waitpid(worker->pid, nullptr, 0);
      }
    }
    for (auto& instance : instances_) {
      if (instance->server == nullptr) continue;
      instance->server->thaw();
      try {
        instance->server->restart();  // a no-op unless a crash left it down
      } catch (const LiveError&) {
        // the next run says so when it cannot reach it
      }
    }
  }
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  LiveRunResult run() {
    const auto wall_started = std::chrono::steady_clock::now();
    // Ctrl-C (or a TERM) ends the run cleanly: the workers are killed and it is reported as interrupted.
    asio::signal_set interrupts{io_, SIGINT, SIGTERM};
    interrupts.async_wait([this](const boost::system::error_code& error, int signal) {
      if (error) return;
      interrupted_by_ = signal;
      end_everything();
    });
    proxy_.emplace(io_, scenario_.network.delay, settings_.time_scale, settings_.seed);
    if (failover_service()) start_failover_service();  // before t = 0 is set: the cluster takes a while to form
    if (consensus_service()) start_consensus_service();  // likewise
    const std::int64_t realtime_minus_monotonic = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
    fired_.assign(scenario_.faults.size(), false);
    for (std::size_t index = 0; index < settings_.lock_instances.size(); ++index) {
      auto instance = std::make_unique<LockInstance>();
      instance->name = fmt::format("redis-{}", index);
      instance->endpoint = settings_.lock_instances[index];
      if (index < settings_.own_lock_servers.size()) instance->server = settings_.own_lock_servers[index];
      instance->log.emplace(io_, instance->endpoint.host, instance->endpoint.port, LiveKeys{settings_.prefix}.log(),
                            [this, slot = instance.get()](const std::string& record) { on_lock_record(*slot, record); });
      instances_.push_back(std::move(instance));
    }
    for (int index = 1; index <= scenario_.system.workers.count; ++index) {
      auto worker = std::make_unique<WorkerSlot>(vocabulary::worker_name(index), io_);
      if (failover_) worker->sentinel = failover_->open_worker_links(worker->name, worker->lock_ports.emplace_back());
      if (consensus_) worker->lock_ports = consensus_->open_worker_links(worker->name);
      for (const auto& instance : instances_) {
        worker->lock_ports.push_back(
            proxy_->open_link(worker->name, instance->name, instance->endpoint.host, instance->endpoint.port));
      }
      worker->storage_port = proxy_->open_link(worker->name, "storage", settings_.storage.host, settings_.storage.port);
      worker->begin_ns = begin_of(worker->name);
      workers_.push_back(std::move(worker));
    }
    // t = 0 comes once every worker can act on it: a process's start-up
    // (fork, exec, loading a library, connecting) is no part of the scenario
    // and must not shift a fault's time against the workers. locksim's own
    // workers start in a few ms and are given t = 0 a little ahead; a user's
    // program says when it is ready (live.hello) and is told t = 0 then.
    // A worker's stops are in its configuration: every fault is armed before the first starts.
    for (const PlannedFault& fault : plan_.faults) arm(fault);
    if (user_program()) {
      user_scripts_ = load_storage_scripts(settings_.storage.host, settings_.storage.port);
      for (auto& worker : workers_) start(*worker, -1);
      ready_limit_.expires_after(settings_.ready_timeout);
      ready_limit_.async_wait([this](const boost::system::error_code& error) {
        if (error || start_ns_ != 0) return;
        for (const auto& worker : workers_) {
          if (!worker->said_hello) {
            notices_.push_back(fmt::format("{} had not said it was ready (live.hello) {} after it was started: the run "
                                           "began without it (--ready-timeout)",
                                           worker->name, sim::format_duration(sim::Duration::milliseconds(settings_.ready_timeout.count()))));
          }
        }
        begin_scenario();
      });
    } else {
      set_start(clock_ns(CLOCK_MONOTONIC) + nanoseconds{kHeadStart}.count());
      for (auto& worker : workers_) start(*worker, -1);
      begin_scenario();
    }
    io_.run();

    LiveRunResult result;
    result.stopped_short = stopped_short_;
    result.why_stopped = why_stopped_;
    result.notices = notices_;
    for (const auto& worker : workers_) result.unfinished_jobs += std::max(0, jobs_per_worker() - worker->jobs_done);
    for (std::size_t index = 0; index < fired_.size(); ++index) {
      if (fired_[index]) result.faults_fired.push_back(index);
    }
    result.history = live_history(records(start_ns_ + realtime_minus_monotonic));
    std::string text;
    for (const std::string& line : result.history) text += line + "\n";
    checker::CheckOutcome outcome = checker::check_history_text(text, "live history", checker::CheckOptions{});
    if (outcome.error && user_program()) {
      throw WorkerProgramError(fmt::format("the history made of the lines of workers.command {} is one the checker rejects: {}",
                                  command_text(scenario_.worker_command), outcome.error->message()));
    }
    if (outcome.error) throw LiveError("the live run wrote a history the checker rejects (a bug in locksim): " + outcome.error->message());
    result.verdict = std::move(outcome.verdict);
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_started).count();
    return result;
  }

 private:
  struct WorkerSlot {
    WorkerSlot(std::string worker_name, asio::io_context& io) : name{std::move(worker_name)}, output{io} {}
    std::string name;
    std::vector<int> lock_ports;  // its links through the fault proxy: one per lock instance
    int storage_port = 0;
    pid_t pid = -1;
    asio::posix::stream_descriptor output;
    int input = -1;  // our end of its stdin: a user's program reads t = 0 there
    bool said_hello = false;  // this process said live.hello: it is ready
    bool restarted = false;   // this process is a restart (t = 0 is past for it by design)
    bool running = false;
    bool finished = false;        // its job loop ended by itself
    bool restart_pending = false;
    int jobs_done = 0;
    int jobs_given_up = 0;  // acquire.give_up: failed jobs, never done
    std::optional<Json> holding;  // the token of the hold it is in, as the worker wrote it (an integer or a string)
    // Its events so far, by name, over all its processes: the model counts
    // a target's nth event over the whole run, a restart included.
    std::map<std::string, int> seen;
    bool takes_own_stops = false;         // a user's program said so (live.hello)
    std::size_t lines = 0;                // lines it printed
    std::optional<SentinelRoute> sentinel;  // redis-failover: how it finds the primary
    std::int64_t begin_ns = 0;  // its job loop begins this long after t = 0, a restart's too (begin_of)
  };

  void set_start(std::int64_t monotonic_ns) {
    start_ns_ = monotonic_ns;
    start_point_ = std::chrono::steady_clock::time_point{nanoseconds{start_ns_}};
  }

  // t = 0: the faults are armed, the time limit set, and every ready program told.
  void begin_scenario() {
    if (time_is_up_) return;  // a program broke the contract while the others got ready
    ready_limit_.cancel();
    if (start_ns_ == 0) set_start(clock_ns(CLOCK_MONOTONIC) + nanoseconds{kReadyMargin}.count());
    if (consensus_) consensus_->watch();  // from revision 1: nothing is missed, and every sighting is timed from t = 0
    order_tied_starts();
    for (const PlannedFault& fault : timed_faults_) {
      auto timer = std::make_shared<asio::steady_timer>(io_);
      timer->expires_at(start_point_ + scaled(std::get<scenario::AtTime>(fault.trigger).at));
      timer->async_wait([this, timer, fault](const boost::system::error_code& error) {
        if (!error) act(fault);
      });
    }
    time_limit_.expires_at(start_point_ + scaled(scenario_.duration));
    time_limit_.async_wait([this](const boost::system::error_code& error) {
      if (!error) end_at_time_limit();
    });
    for (auto& worker : workers_) {
      if (worker->said_hello) tell_start(*worker);
    }
  }

  // A user's program that said it is ready learns t = 0 (its start line, docs/live.md).
  void on_hello(WorkerSlot& worker) {
    worker.said_hello = true;
    if (start_ns_ != 0) {
      if (!worker.restarted && now() > 0) {
        notices_.push_back(fmt::format("{} said it was ready {} after t = 0: its first job began that late",
                                       worker.name, sim::format_duration(sim::Duration::nanoseconds(now()))));
      }
      tell_start(worker);
    } else if (std::ranges::all_of(workers_, [](const auto& slot) { return slot->said_hello; })) {
      begin_scenario();
    }
  }

  void tell_start(WorkerSlot& worker) {
    if (worker.input < 0) return;
    send_line(worker.input, Json{{"start_ns", start_ns_}}.dump());  // a program that is gone is reaped by its reader
    ::close(worker.input);
    worker.input = -1;
  }

  [[nodiscard]] bool failover_service() const { return scenario_.system.service.kind == model::ServiceKind::kRedisFailover; }
  [[nodiscard]] bool consensus_service() const { return scenario_.system.service.kind == model::ServiceKind::kConsensus; }
  void start_consensus_service() {
    consensus_.emplace(io_, *proxy_, scenario_, LiveKeys{settings_.prefix}.lock(scenario_.system.lock.name) + "/",
                       [this] { return now(); });
    consensus_restarting_ = std::vector<std::thread>(consensus_->cluster().member_count());
  }
  void start_failover_service() {
    const LiveKeys keys{settings_.prefix};
    failover_.emplace(io_, *proxy_, scenario_, settings_.time_scale, keys.lock(scenario_.system.lock.name), keys.log(),
                      [this](const std::string& instance, const std::string& record) { on_failover_record(instance, record); },
                      [this](Json line) { record(std::move(line)); }, [this] { return now(); });
  }

  // A grant a redis-failover server decided: an after-grant fault on it counts it.
  void on_failover_record(const std::string& instance, const std::string& text) {
    const nlohmann::json record = nlohmann::json::parse(text, nullptr, false);
    if (record.is_discarded() || record.value("ev", std::string{}) != "grant") return;
    const int seen = ++failover_grants_[instance];
    for (const Watch& watch : grant_watches_) {
      if (watch.fault.target == instance && watch.nth == seen) after(scaled(watch.delay), [this, fault = watch.fault] { act(fault); });
    }
  }

  // A lock-service instance as the run sees it.
  struct LockInstance {
    std::string name;  // redis-0 …
    Endpoint endpoint;
    RedisServer* server = nullptr;  // locksim's own (a fault may crash, freeze, restart it); null for --redis
    std::optional<LogSubscription> log;
    std::vector<LockRestart> restarts;
    std::thread restarting;  // a restart under way
    int grants_seen = 0;
    int memory_pressures = 0;  // lasting ones under way: maxmemory is 1 byte meanwhile, also after a restart
  };

  [[nodiscard]] bool user_program() const { return !scenario_.worker_command.empty(); }
  [[nodiscard]] std::string who(const WorkerSlot& worker) const {
    return user_program() ? fmt::format("{} (workers.command {})", worker.name, command_text(scenario_.worker_command))
                          : worker.name;
  }

  // 0 for billing, whose customers are shared (its unfinished jobs are the unbilled customers).
  [[nodiscard]] int jobs_per_worker() const { return model::jobs_per_worker(scenario_.system.workload).value_or(0); }
  [[nodiscard]] std::int64_t now() const { return clock_ns(CLOCK_MONOTONIC) - start_ns_; }
  [[nodiscard]] nanoseconds scaled(sim::Duration duration) const { return live::scaled(duration, settings_.time_scale); }

  // When a worker's job loop begins: its planned start, scaled.
  std::int64_t begin_of(const std::string& worker) const { return scaled(plan_.worker_starts.at(worker)).count(); }

  // Workers planned to start at the same instant reach the lock service in
  // worker order, as the simulator's tie over a constant delay has them
  // (FaultProxy::take_turns). With a random delay the simulator's order
  // among them comes from the delays drawn, and live from the proxy's.
  void order_tied_starts() {
    if (!std::holds_alternative<sim::Distribution::Constant>(scenario_.network.delay.shape())) return;
    std::map<sim::Duration, std::vector<std::string>> starting_at;
    for (const auto& worker : workers_) starting_at[plan_.worker_starts.at(worker->name)].push_back(worker->name);
    std::set<std::string> lock_servers;
    for (const auto& instance : instances_) lock_servers.insert(instance->name);
    if (failover_) lock_servers.merge(failover_->lock_servers());
    if (consensus_) lock_servers.merge(consensus_->member_names());
    for (const auto& [start, tied] : starting_at) {
      if (tied.size() > 1) proxy_->take_turns(tied, start_point_ + scaled(start), lock_servers);
    }
  }

  WorkerSlot* worker_named(const std::string& name) {
    for (auto& worker : workers_) {
      if (worker->name == name) return worker.get();
    }
    return nullptr;
  }

  void record(Json line) { coordinator_lines_.push_back(std::move(line)); }
  void record_nemesis(EventKind event, Json fields) {
    Json line{
        {field::kTime, now()}, {field::kProc, vocabulary::proc::kNemesis}, {field::kEvent, event_kind_name(event)}};
    for (auto& [key, value] : fields.items()) line[key] = value;
    record(std::move(line));
  }

  // Sets up one planned fault: a timer for a time, a watch for an event, or
  // (a pause right at a fault point) a stop the worker takes itself.
  void arm(const PlannedFault& fault) {
    if (!no_live_form(fault, fault_context()).empty()) return;
    if (std::holds_alternative<scenario::AtTime>(fault.trigger)) {
      timed_faults_.push_back(fault);  // its timer is set at t = 0 (begin_scenario)
      return;
    }
    const auto& on_event = std::get<scenario::OnEvent>(fault.trigger);
    if (on_event.when == scenario::TriggerEvent::kAfterGrant) {
      grant_watches_.push_back({fault, "grant", on_event.nth, on_event.delay});
      return;
    }
    const TriggerPoint point = trigger_point(on_event.when);
    // At a fault point itself (no delay) the worker stops there and says so,
    // so the fault is in place before its next request leaves: a pause then
    // lasts its length, any other fault lets it go on at once.
    const bool at_the_point = on_event.delay == sim::Duration::zero() || point.self_stops_despite(on_event.delay);
    if (at_the_point && targets_a_worker(fault) &&
        (fault.kind() == FaultKind::kPause || fault.kind() == FaultKind::kPartition ||
         fault.kind() == FaultKind::kDelaySpike)) {
      self_stops_[fault.target].push_back({std::string{point.self_stop}, on_event.nth, fault.index});
      // A user's program that does not take its stops itself is stopped from
      // here on seeing the line: a little later than the line (docs/live.md).
      if (user_program()) watches_.push_back({fault, std::string{point.self_stop}, on_event.nth, on_event.delay, true});
      return;
    }
    watches_.push_back({fault, std::string{point.watched}, on_event.nth, on_event.delay});
  }

  // `hold`: a spike a worker's fault point started also holds the request it sends next.
  void act(const PlannedFault& fault, SpikeHold hold = SpikeHold::kItsLength) {
    std::visit(
        [&](const auto& params) {
          using Kind = std::decay_t<decltype(params)>;
          if constexpr (std::is_same_v<Kind, model::faults::Failover>) {
            if (failover_ && failover_->act(fault)) fired_[fault.index] = true;
          } else if constexpr (std::is_same_v<Kind, model::faults::DelaySpike>) {
            spike(fault, params, hold);
          } else if constexpr (std::is_same_v<Kind, model::faults::Partition>) {
            partition(fault, params);
          } else if constexpr (std::is_same_v<Kind, model::faults::Pause> || std::is_same_v<Kind, model::faults::Crash>) {
            pause_or_crash(fault);
          } else if constexpr (std::is_same_v<Kind, model::faults::MemoryPressure>) {
            fill_memory(fault);
          }
          // Every other kind is refused before the run (no_live_form).
        },
        fault.params);
  }

  void pause_or_crash(const PlannedFault& fault) {
    if (consensus_ && is_consensus_target(fault.target)) {
      act_on_consensus_member(fault);
      return;
    }
    if (targets_a_lock_instance(fault)) {
      if (failover_) {
        act_on_failover_server(fault);
      } else if (LockInstance* instance = instance_named(fault.target)) {
        act_on_lock_instance(*instance, fault);
      }
      return;
    }
    WorkerSlot* worker = worker_named(fault.target);
    if (worker == nullptr || !worker->running) return;
    if (fault.kind() == FaultKind::kPause) {
      signal_worker(worker->pid, SIGSTOP);
      record_nemesis(EventKind::kFaultBegin, fault_begin_fields(fault, worker->name));
      resume_after(*worker, scaled(fault.length));
    } else {
      crash(*worker, std::get<model::faults::Crash>(fault.params));
    }
    fired_[fault.index] = true;
  }

  // A grant a lock instance published: an after-grant fault on it counts it.
  void on_lock_record(LockInstance& instance, const std::string& text) {
    const nlohmann::json record = nlohmann::json::parse(text, nullptr, false);
    if (record.is_discarded() || record.value("ev", std::string{}) != "grant") return;
    ++instance.grants_seen;
    for (const Watch& watch : grant_watches_) {
      if (watch.fault.target != instance.name || watch.nth != instance.grants_seen) continue;
      after(scaled(watch.delay), [this, fault = watch.fault] { act(fault); });
    }
  }

  void after(nanoseconds length, std::function<void()> action) {
    auto timer = std::make_shared<asio::steady_timer>(io_);
    timer->expires_after(length);
    timer->async_wait([timer, action = std::move(action)](const boost::system::error_code& error) {
      if (!error) action();
    });
  }

  // A fault.begin's fields: its kind, target, the kind's own numbers (scaled durations) and, if it lasts, `for`.
  Json fault_begin_fields(const PlannedFault& fault, Json target) const {
    Json fields{{field::kKind, fault_kind_name(fault.kind())}, {field::kTarget, std::move(target)}};
    std::visit(
        [&](const auto& params) {
          for (const model::FaultNumber& number : params.numbers()) {
            fields[number.field] = number.is_duration ? scaled(sim::Duration::nanoseconds(number.value)).count()
                                                      : number.value;
          }
          if constexpr (model::kTakesLength<std::decay_t<decltype(params)>>) {
            fields[field::kForNs] = scaled(fault.length).count();
          }
        },
        fault.params);
    return fields;
  }

  void spike(const PlannedFault& fault, const model::faults::DelaySpike& params, SpikeHold hold) {
    fired_[fault.index] = true;
    const Json target = Json::array({fault.target});
    record_nemesis(EventKind::kFaultBegin, fault_begin_fields(fault, target));
    proxy_->spike({fault.target}, scaled(params.extra), scaled(fault.length), hold, [this, target] {
      record_nemesis(EventKind::kFaultEnd,
                     {{field::kKind, fault_kind_name(FaultKind::kDelaySpike)}, {field::kTarget, target}});
    });
  }

  void partition(const PlannedFault& fault, const model::faults::Partition& params) {
    fired_[fault.index] = true;
    const int cut = consensus_ ? proxy_->cut(consensus_->expanded(params.side_a), consensus_->expanded(params.side_b))
                               : proxy_->cut(params.side_a, params.side_b);
    Json target = Json::array();
    for (const auto& side : {params.side_a, params.side_b}) {
      for (const std::string& node : side) target.push_back(node);
    }
    Json fields = fault_begin_fields(fault, target);
    fields[field::kBetween] = Json::array({params.side_a, params.side_b});
    record_nemesis(EventKind::kFaultBegin, fields);
    after(scaled(fault.length), [this, cut, target] {
      proxy_->heal(cut);
      record_nemesis(EventKind::kFaultEnd,
                     {{field::kKind, fault_kind_name(FaultKind::kPartition)}, {field::kTarget, target}});
    });
  }

  // A pause, crash or restart of a redis-failover server: Sentinel fails a
  // primary over if it stays unreachable; a restarted server resyncs as Redis does.
  void act_on_failover_server(const PlannedFault& fault) {
    const std::size_t index = fault.target == instance_name(1) ? 1 : 0;
    RedisServer& server = failover_->server(index);
    // A fault that finds it down does nothing, as in the model.
    if (!server.running() || failover_restarting_[index].joinable()) return;
    fired_[fault.index] = true;
    if (fault.kind() == FaultKind::kPause) {
      pause_server([&server] { server.freeze(); }, [&server] { server.thaw(); }, fault.target, fault);
      return;
    }
    const std::int64_t crashed_at = crash_server([&server] { server.crash(); }, fault.target);
    if (const auto& restart_after = std::get<model::faults::Crash>(fault.params).restart_after) {
      after(scaled(*restart_after), [this, index, crashed_at] {
        if (time_is_up_) return;
        const std::int64_t restarted_at = now();
        record(Json{{field::kTime, restarted_at},
                    {field::kProc, instance_name(index)},
                    {field::kEvent, event_kind_name(EventKind::kRestart)}});
        restart_server([this, index] { failover_->server(index).restart(); }, failover_restarting_[index],
                       [this, index, crashed_at, restarted_at] {
          failover_->restarted(index, LockRestart{crashed_at, restarted_at, std::nullopt});
          record_nemesis(EventKind::kFaultEnd,
                         {{field::kKind, fault_kind_name(FaultKind::kCrash)}, {field::kTarget, instance_name(index)}});
        });
      });
    }
  }

  // A pause or crash (and restart) of a consensus member, `consensus-leader`
  // being the member last seen leading; etcd reacts by itself (an election).
  void act_on_consensus_member(const PlannedFault& fault) {
    const std::optional<std::size_t> member = consensus_->member_of(fault.target);
    // A fault that finds its member down (or no leader known) does nothing, as in the model.
    if (!member || consensus_restarting_[*member].joinable()) return;
    EtcdCluster& cluster = consensus_->cluster();
    if (cluster.pid(*member) <= 0 || cluster.paused(*member)) return;
    fired_[fault.index] = true;
    const std::string name = consensus_->member_name(*member);
    if (fault.kind() == FaultKind::kPause) {
      pause_server([&cluster, member] { cluster.pause(*member); }, [&cluster, member] { cluster.resume(*member); }, name,
                   fault);
      return;
    }
    (void)crash_server([&cluster, member] { cluster.crash(*member); }, name);
    const auto& restart_after = std::get<model::faults::Crash>(fault.params).restart_after;
    if (!restart_after) return;
    after(scaled(*restart_after), [this, member = *member, name] {
      if (time_is_up_) return;
      record(Json{{field::kTime, now()}, {field::kProc, name}, {field::kEvent, event_kind_name(EventKind::kRestart)}});
      restart_server([this, member] { consensus_->cluster().restart(member); }, consensus_restarting_[member],
                     [this, name] {
                       record_nemesis(EventKind::kFaultEnd,
                                      {{field::kKind, fault_kind_name(FaultKind::kCrash)}, {field::kTarget, name}});
                     });
    });
  }

  // Starts a server again (`start`) on a thread of its own (redis-server
  // takes some milliseconds to answer, etcd a second or more to rejoin, and
  // the workers' lines must be read meanwhile), then does `then` on the run's loop.
  void restart_server(std::function<void()> start, std::thread& restarting, std::function<void()> then) {
    restarting = std::thread{[this, start = std::move(start), &restarting, then = std::move(then)] {
      std::string failure;
      try {
        start();
      } catch (const LiveError& error) {
        failure = error.what();
      }
      asio::post(io_, [this, &restarting, failure, then] {
        restarting.join();
        if (!failure.empty()) {
          failure_ = failure;
          end_everything();
          return;
        }
        then();
      });
    }};
  }

  // SIGSTOP (`freeze`) for the fault's length, then SIGCONT (`thaw`), with its fault.begin and fault.end.
  void pause_server(const std::function<void()>& freeze, std::function<void()> thaw, const std::string& name,
                    const PlannedFault& fault) {
    freeze();
    record_nemesis(EventKind::kFaultBegin, fault_begin_fields(fault, name));
    after(scaled(fault.length), [this, thaw = std::move(thaw), name] {
      thaw();
      record_nemesis(EventKind::kFaultEnd, {{field::kKind, fault_kind_name(FaultKind::kPause)}, {field::kTarget, name}});
    });
  }

  // SIGKILL (`kill`), with its fault.begin and the server's crash; returns the crash's time.
  std::int64_t crash_server(const std::function<void()>& kill, const std::string& name) {
    record_nemesis(EventKind::kFaultBegin, {{field::kKind, fault_kind_name(FaultKind::kCrash)}, {field::kTarget, name}});
    kill();
    const std::int64_t crashed_at = now();
    record(Json{{field::kTime, crashed_at}, {field::kProc, name}, {field::kEvent, event_kind_name(EventKind::kCrash)}});
    return crashed_at;
  }

  void act_on_lock_instance(LockInstance& instance, const PlannedFault& fault) {
    RedisServer& server = *instance.server;
    // A fault that finds it down does nothing, as in the model.
    if (!server.running() || instance.restarting.joinable()) return;
    fired_[fault.index] = true;
    if (fault.kind() == FaultKind::kPause) {
      pause_server([&server] { server.freeze(); }, [&server] { server.thaw(); }, instance.name, fault);
      return;
    }
    instance.restarts.push_back({crash_server([&server] { server.crash(); }, instance.name), 0, std::nullopt});
    // Redlock's delayed restart: the instance stays down that much longer
    // (the model's answers nothing meanwhile; live, it refuses connections).
    if (const auto& restart_after = std::get<model::faults::Crash>(fault.params).restart_after) {
      after(scaled(*restart_after) + scaled(scenario_.system.service.delayed_restart),
            [this, slot = &instance] { restart_lock_instance(*slot); });
    }
  }

  // Starts the instance again, then subscribes to its log afresh.
  void restart_lock_instance(LockInstance& instance) {
    if (time_is_up_) return;
    instance.restarts.back().restarted_ns = now();
    record(Json{{field::kTime, instance.restarts.back().restarted_ns},
                {field::kProc, instance.name},
                {field::kEvent, event_kind_name(EventKind::kRestart)}});
    restart_server([server = instance.server] { server->restart(); }, instance.restarting, [this, slot = &instance] {
      slot->log->resubscribe();
      if (slot->memory_pressures > 0) set_maxmemory(*slot, "1");  // the other applications' data is back too
      RedisClient client{slot->endpoint.host, slot->endpoint.port};
      const RespValue kept = client.command({"GET", LiveKeys{settings_.prefix}.lock(scenario_.system.lock.name)});
      if (kept.type == RespValue::Type::kString) slot->restarts.back().kept_value = kept.text;
      record_nemesis(EventKind::kFaultEnd,
                     {{field::kKind, fault_kind_name(FaultKind::kCrash)}, {field::kTarget, slot->name}});
    });
  }

  // Memory pressure under noeviction (live_fault_forms.cpp): maxmemory
  // lowered to 1 byte for the fault's length, then back to none. A server
  // that is down or frozen takes no command meanwhile, as in the model.
  void fill_memory(const PlannedFault& fault) {
    LockInstance* instance = instance_named(fault.target);
    if (instance == nullptr || !instance->server->running() || instance->server->frozen()) return;
    fired_[fault.index] = true;
    record_nemesis(EventKind::kFaultBegin, fault_begin_fields(fault, instance->name));
    if (fault.length <= sim::Duration::zero()) return;  // relieved at once: noeviction refused nothing meanwhile
    if (instance->memory_pressures++ == 0) set_maxmemory(*instance, "1");
    after(scaled(fault.length), [this, instance] {
      record_nemesis(EventKind::kFaultEnd,
                     {{field::kKind, fault_kind_name(FaultKind::kMemoryPressure)}, {field::kTarget, instance->name}});
      if (--instance->memory_pressures == 0) relieve_memory(*instance);
    });
  }

  // A frozen server would block the command: it is relieved when it thaws.
  void relieve_memory(LockInstance& instance) {
    if (instance.memory_pressures > 0) return;  // pressed again meanwhile
    if (instance.server->frozen()) {
      after(std::chrono::milliseconds(10), [this, slot = &instance] { relieve_memory(*slot); });
      return;
    }
    set_maxmemory(instance, "0");
  }

  // A server that is down needs nothing now: its restart sets it again.
  static void set_maxmemory(LockInstance& instance, const char* bytes) {
    if (!instance.server->running()) return;
    RedisClient{instance.server->host(), instance.server->port()}.command({"CONFIG", "SET", "maxmemory", bytes});
  }

  void resume_after(WorkerSlot& worker, nanoseconds length) {
    auto timer = std::make_shared<asio::steady_timer>(io_);
    timer->expires_after(length);
    timer->async_wait([this, timer, slot = &worker](const boost::system::error_code& error) {
      if (error) return;
      if (slot->running) signal_worker(slot->pid, SIGCONT);
      record_nemesis(EventKind::kFaultEnd,
                     {{field::kKind, fault_kind_name(FaultKind::kPause)}, {field::kTarget, slot->name}});
    });
  }

  // Its process is gone (crashed, or it exited by itself): a hold it was in
  // ends there, as the history's `crash` says; its lease runs on in Redis.
  void record_process_end(WorkerSlot& worker) {
    if (worker.holding) {
      // The token the worker itself wrote on its hold.begin: a string lock id stays one.
      Json end{{field::kTime, now()},
               {field::kProc, worker.name},
               {field::kEvent, event_kind_name(EventKind::kHoldEnd)},
               {field::kLock, scenario_.system.lock.name}};
      if (!worker.holding->is_null()) end[field::kToken] = *worker.holding;
      end[field::kReason] = reason::kCrash;
      record(std::move(end));
      worker.holding.reset();
    }
    record(
        Json{{field::kTime, now()}, {field::kProc, worker.name}, {field::kEvent, event_kind_name(EventKind::kCrash)}});
  }

  void crash(WorkerSlot& worker, const model::faults::Crash& fault) {
    signal_worker(worker.pid, SIGKILL);
    worker.running = false;
    record_nemesis(EventKind::kFaultBegin,
                   {{field::kKind, fault_kind_name(FaultKind::kCrash)}, {field::kTarget, worker.name}});
    record_process_end(worker);
    if (fault.restart_after) {
      worker.restart_pending = true;
      auto timer = std::make_shared<asio::steady_timer>(io_);
      timer->expires_after(scaled(*fault.restart_after));
      timer->async_wait([this, timer, slot = &worker](const boost::system::error_code& error) {
        if (error || time_is_up_) return;
        slot->restart_pending = false;
        record_nemesis(EventKind::kFaultEnd,
                       {{field::kKind, fault_kind_name(FaultKind::kCrash)}, {field::kTarget, slot->name}});
        record(Json{
            {field::kTime, now()}, {field::kProc, slot->name}, {field::kEvent, event_kind_name(EventKind::kRestart)}});
        // Billing's jobs are the shared customers (the cursor says what is left): -1, all.
        start(*slot, jobs_per_worker() == 0 ? -1
                                            : std::max(0, jobs_per_worker() - slot->jobs_done - slot->jobs_given_up));
      });
    }
  }

  void start(WorkerSlot& worker, int jobs_left) {
    WorkerConfig config;
    config.scenario_file = scenario_.file;
    config.name = worker.name;
    config.fencing = mode_;
    config.host = "127.0.0.1";  // the fault proxy's end of its links
    config.lock_port = worker.lock_ports.front();
    config.lock_ports = worker.lock_ports;
    config.storage_port = worker.storage_port;
    config.prefix = settings_.prefix;
    config.start_ns = start_ns_;  // 0 for a user's program, which is told t = 0 when it is ready
    config.begin_ns = worker.begin_ns;
    config.time_scale = settings_.time_scale;
    config.seed = settings_.seed;
    config.jobs_left = jobs_left;
    config.jobs_done = worker.jobs_done;
    config.sentinel = worker.sentinel;
    if (consensus_) config.first_member = static_cast<int>(clients_made_++ % worker.lock_ports.size());
    config.stops = stops_still_ahead(worker);
    LaunchedWorker launched;
    try {
      launched = launch_worker(launch_for(config), worker.name);
    } catch (const LiveError& error) {
      if (user_program()) throw WorkerProgramError(error.what());
      throw;
    }
    worker.restarted = worker.pid != -1;
    worker.pid = launched.pid;
    worker.running = true;
    worker.holding.reset();
    worker.takes_own_stops = false;
    worker.said_hello = false;
    if (worker.input >= 0) ::close(worker.input);
    worker.input = launched.input;
    if (!user_program()) {
      ::close(worker.input);  // locksim's own worker has t = 0 in its configuration
      worker.input = -1;
    }
    if (worker.output.is_open()) worker.output.close();
    worker.output.assign(launched.output);
    // An exception in the reader is locksim's own fault (a worker's bad line
    // is refused before anything reads it): it ends the run, not just the reader.
    asio::co_spawn(io_, read_lines(worker, launched.pid), [this, &worker](const std::exception_ptr& error) {
      if (!error) return;
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& exception) {
        internal_failure_ = fmt::format("reading {}'s output: {}", who(worker), exception.what());
      }
      end_everything();
    });
  }

  // The self-taken stops a (re)started process has ahead of it: its count
  // of each event starts at 0, the run's goes on from what its earlier
  // processes printed. `acquire.sent` has no line; one follows each
  // acquire.invoke.
  std::vector<SelfStop> stops_still_ahead(WorkerSlot& worker) {
    std::vector<SelfStop> ahead;
    for (const SelfStop& stop : self_stops_[worker.name]) {
      const int already =
          worker
              .seen[stop.after == kAcquireSent ? std::string{event_kind_name(EventKind::kAcquireInvoke)} : stop.after];
      if (stop.nth > already) ahead.push_back({stop.after, stop.nth - already, stop.fault});
    }
    return ahead;
  }

  // locksim's own worker, or the user's program with its configuration in the environment.
  [[nodiscard]] WorkerLaunch launch_for(const WorkerConfig& config) const {
    if (!user_program()) {
      return WorkerLaunch{{settings_.worker_program, "live-worker", "--config", worker_config_json(config)}, {}, ""};
    }
    return WorkerLaunch{scenario_.worker_command,
                        {fmt::format("{}={}", kUserWorkerConfigVariable,
                                     user_worker_config_json(config, scenario_, *user_scripts_))},
                        std::filesystem::path{scenario_.file}.parent_path().string()};
  }

  asio::awaitable<void> read_lines(WorkerSlot& worker, pid_t pid) {
    std::string buffer;
    while (true) {
      boost::system::error_code error;
      const std::size_t length = co_await asio::async_read_until(
          worker.output, asio::dynamic_buffer(buffer, kLongestWorkerLine), '\n', asio::redirect_error(asio::use_awaitable, error));
      if (error == asio::error::not_found && !time_is_up_) {
        failure_ = fmt::format("{} printed a line longer than {} bytes (a history line is one JSON object): {}...",
                               who(worker), kLongestWorkerLine, buffer.substr(0, 200));
        end_everything();
      }
      if (error) break;
      const std::string line = buffer.substr(0, length - 1);
      buffer.erase(0, length);
      observe(worker, line);
    }
    // Its stdout is closed, but it may live on (a program that closed it and
    // sleeps): wait without blocking the run, whose time limit still ends it.
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      asio::steady_timer poll{io_};
      poll.expires_after(std::chrono::milliseconds{5});
      co_await poll.async_wait(asio::use_awaitable);
    }
    if (worker.pid == pid) {
      const bool killed_by_us = !worker.running;  // crash() marks it so before its SIGKILL
      worker.running = false;
      // It ended by itself, not by a crash or the run's end.
      if (!time_is_up_ && !killed_by_us) {
        const bool failed = WIFSIGNALED(status) || WEXITSTATUS(status) != 0;
        const std::string how = WIFSIGNALED(status) ? fmt::format("was killed by signal {} ({}), which locksim did not send",
                                                                   WTERMSIG(status), ::strsignal(WTERMSIG(status)))
                                                    : fmt::format("exited with status {}", WEXITSTATUS(status));
        // locksim's own worker failing is a bug; a user's program that never
        // got going is broken. One that worked and then quit (redis-semaphore
        // ends the process when it loses its lock) is a worker that ended.
        if (user_program() && !worker.said_hello) {
          failure_ = fmt::format("{} {} before it said live.hello{}", who(worker), how,
                                 failed ? " (its message is above)" : "");
          end_everything();
          co_return;
        }
        if (failed && !user_program()) {
          failure_ = fmt::format("{} {} (its message is above)", who(worker), how);
          end_everything();
          co_return;
        }
        if (failed) {
          const int left = std::max(0, jobs_per_worker() - worker.jobs_done - worker.jobs_given_up);
          notices_.push_back(fmt::format("{} {} at {}{}, with {} job{} left (its message is above): its end is recorded "
                                         "as a crash of the worker, and the run went on without it",
                                         worker.name, how, sim::format_duration(sim::Duration::nanoseconds(now())),
                                         worker.holding ? " inside its hold" : "", left, left == 1 ? "" : "s"));
          record_process_end(worker);
        }
        worker.finished = true;
      }
    }
    if (std::ranges::none_of(workers_, [](const auto& slot) { return slot->running || slot->restart_pending; })) {
      end_when_network_is_quiet();
    }
  }

  // Every worker is done, but a request may still be in the network (a
  // spike's late write): as the simulator does, the run ends when nothing
  // is on its way any more (or at its time limit).
  void end_when_network_is_quiet() {
    if (time_is_up_ || proxy_->quiet()) {
      io_.stop();
      return;
    }
    after(std::chrono::milliseconds{1}, [this] { end_when_network_is_quiet(); });
  }

  void observe(WorkerSlot& worker, const std::string& text) {
    nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
    if (const std::string problem = worker_line_problem(line, worker.name); !problem.empty()) {
      if (time_is_up_) return;  // the run is already over (or failed first, for another reason)
      failure_ = fmt::format("{} printed a line that is not one of its history events ({}): {}", who(worker), problem,
                             text.size() > 300 ? text.substr(0, 300) + "..." : text);
      end_everything();
      return;
    }
    ++worker.lines;
    const std::string event = line[field::kEvent].get<std::string>();
    if (event == kLiveHello) {
      worker.takes_own_stops = line.value("self_stops", false);
      if (user_program()) on_hello(worker);
      return;
    }
    if (user_program() && !worker.said_hello) {
      if (time_is_up_) return;
      failure_ = fmt::format("{} printed {} before its live.hello: a program says live.hello when it is ready, then "
                             "reads t = 0 from stdin (docs/live.md, \"The start\")",
                             who(worker), event);
      end_everything();
      return;
    }
    if (event == event_kind_name(EventKind::kWriteInvoke)) notice_string_token_under_fencing(worker, line);
    if (event == kLiveStop) {
      const std::size_t index = line[field::kFault].get<std::size_t>();
      const PlannedFault* fault = planned(index, worker.name);
      if (fault != nullptr && fault->kind() != FaultKind::kPause) {
        act(*fault, SpikeHold::kTheNextRequestToo);
        // It said so just before stopping: a SIGCONT sent before it stopped would be lost.
        wait_until_stopped(worker.pid);
        signal_worker(worker.pid, SIGCONT);
      } else if (fault != nullptr) {
        Json begin{{field::kTime, line[field::kTime]},
                   {field::kProc, vocabulary::proc::kNemesis},
                   {field::kEvent, event_kind_name(EventKind::kFaultBegin)}};
        begin.update(fault_begin_fields(*fault, worker.name));
        coordinator_lines_.push_back(std::move(begin));
        fired_[index] = true;
        resume_after(worker, scaled(fault->length));
      }
      return;
    }
    if (event == event_kind_name(EventKind::kHoldBegin)) {
      worker.holding = line.contains(field::kToken) ? Json::parse(line[field::kToken].dump()) : Json{};
    }
    if (event == event_kind_name(EventKind::kHoldEnd)) worker.holding.reset();
    if (event == event_kind_name(EventKind::kWriteOk)) ++worker.jobs_done;
    if (event == event_kind_name(EventKind::kAcquireGiveUp)) ++worker.jobs_given_up;
    const int seen = ++worker.seen[event];
    worker_lines_.push_back(std::move(line));
    for (const Watch& watch : watches_) {
      if (watch.fault.target != worker.name || watch.event != event || watch.nth != seen) continue;
      if (watch.unless_self_stopping && worker.takes_own_stops) continue;
      auto timer = std::make_shared<asio::steady_timer>(io_);
      timer->expires_after(scaled(watch.delay));
      timer->async_wait([this, timer, fault = watch.fault](const boost::system::error_code& error) {
        if (!error) act(fault);
      });
    }
  }

  // Storage's script compares tokens as numbers: under fencing a string
  // token is turned away every time. Said once per run, at the first.
  void notice_string_token_under_fencing(const WorkerSlot& worker, const nlohmann::json& line) {
    if (said_string_token_ || mode_ != model::Fencing::kOn) return;
    const auto token = line.find(field::kToken);
    if (token == line.end() || !token->is_string()) return;
    said_string_token_ = true;
    notices_.push_back(fmt::format(
        "{} sent storage the string token {} with fencing on: storage orders writes by number, so it turns every "
        "such write away as stale-token. A lock with opaque ids (redis-py, node-redlock, redis-semaphore) has no "
        "fencing token: run it with fencing off, or keep a counter (lock.token_key) and send that",
        worker.name, token->dump()));
  }

  // A worker that said it stops itself is stopped a moment later; one that
  // does not (a broken user program) is not waited for beyond a second.
  static void wait_until_stopped(pid_t pid) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{1};
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG | WUNTRACED) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds{20});
    }
  }

  const PlannedFault* planned(std::size_t index, const std::string& target) const {
    for (const PlannedFault& fault : plan_.faults) {
      if (fault.index == index && fault.target == target) return &fault;
    }
    return nullptr;
  }

  void end_at_time_limit() {
    if (std::ranges::any_of(workers_, [](const auto& slot) { return slot->running || slot->restart_pending; })) {
      stopped_short_ = true;
      why_stopped_ = fmt::format("time limit {} reached with jobs left", sim::format_duration(scenario_.duration));
      for (const auto& worker : workers_) {
        if (worker->lines == 0) why_stopped_ += fmt::format("; {} printed no line", who(*worker));
      }
    }
    end_everything();
  }

  void join_restarts() {
    for (auto& instance : instances_) {
      if (instance->restarting.joinable()) instance->restarting.join();
    }
    for (std::thread& restarting : failover_restarting_) {
      if (restarting.joinable()) restarting.join();
    }
    for (std::thread& restarting : consensus_restarting_) {
      if (restarting.joinable()) restarting.join();
    }
  }

  void end_everything() {
    time_is_up_ = true;
    for (auto& worker : workers_) {
      worker->restart_pending = false;
      if (worker->running) {
        signal_worker(worker->pid, SIGKILL);
      }
    }
    if (std::ranges::none_of(workers_, [](const auto& slot) { return slot->running; })) io_.stop();
  }

  LiveRecords records(std::int64_t realtime_at_start) {
    join_restarts();
    if (!internal_failure_.empty()) throw std::logic_error(internal_failure_);
    if (interrupted_by_ != 0) throw LiveInterrupted(interrupted_by_);
    if (!failure_.empty() && user_program()) throw WorkerProgramError(failure_);
    if (!failure_.empty()) throw LiveError(failure_);
    const LiveKeys keys{settings_.prefix};
    RedisClient storage{settings_.storage.host, settings_.storage.port};
    LiveRecords records;
    const std::string& key = model::workload_key(scenario_.system.workload);
    records.run_begin =
        Json{{field::kScenario, scenario_.name},
             {field::kSeed, settings_.seed},
             {field::kFencing, mode_ == model::Fencing::kOn},
             {field::kVersion, kVersion},
             {field::kLive, true},
             {field::kService, service_description()},
             {field::kWorkload,
              {{field::kKind, model::workload_kind_name(scenario_.system.workload)},
               {field::kKey, key}}},
             {field::kStuckAfterNs, scaled(scenario_.system.lock.stuck_after).count()}};
    records.worker_lines = std::move(worker_lines_);
    for (Json& line : coordinator_lines_) records.coordinator_lines.push_back(std::move(line));
    for (auto& instance : instances_) records.lock_instances.push_back(instance_records(*instance, keys));
    if (consensus_) {
      consensus_->finish();
      // The watch-derived lines assume locksim's own Mutex recipe (keys under
      // `<lock key>/` whose value is the worker's name); a user's program
      // keeps its own keys, so its lines are its acquire.ok's (below).
      if (!user_program()) records.lease_lines = consensus_->lease_lines(records.worker_lines);
    }
    if (failover_) {
      failover_->collect_unheard();
      records.lock_instances = failover_->lock_instances();
      records.role_changes = failover_->role_changes();
    }
    for (const RespValue& item : storage.command({"LRANGE", keys.log(), "0", "-1"}).items) {
      records.storage_log.push_back(nlohmann::json::parse(item.text));
    }
    records.lock_name = scenario_.system.lock.name;
    if (user_program()) {
      // The user's lock code logs nothing in Redis (nor in keys locksim
      // knows, on etcd): its grants are its own acquire.ok lines, written as
      // the service's proc — redis-0, or consensus / consensus-0 (the
      // members' names, sorted: member 0's first).
      const std::int64_t lease_ns =
          scenario_.system.lock.lease ? std::max<std::int64_t>(1, scaled(*scenario_.system.lock.lease).count() / 1'000'000) * 1'000'000 : 0;
      const std::string instance = consensus_ ? *consensus_->member_names().begin() : "redis-0";
      records.lease_lines = client_side_leases(records.worker_lines, {records.lock_name, instance, lease_ns, now()});
    }
    records.realtime_minus_run_ns = realtime_at_start;
    records.end_ns = now();
    records.final_values = Json::object();
    const RespValue final_value = storage.command({"GET", keys.data(key)});
    if (final_value.type == RespValue::Type::kString) records.final_values[key] = std::stoll(final_value.text);
    return records;
  }

  // What the subscription heard, and what the log list kept (a restart
  // without persistence empties it), each record once.
  LockInstanceRecords instance_records(LockInstance& instance, const LiveKeys& keys) {
    if (instance.server != nullptr) {
      // A crash without a restart (or with one the run's end cut short) leaves the log to read on a server that is up.
      instance.server->thaw();
      instance.server->restart();
    }
    RedisClient lock{instance.endpoint.host, instance.endpoint.port};
    std::set<std::string> log{instance.log->records().begin(), instance.log->records().end()};
    for (const RespValue& item : lock.command({"LRANGE", keys.log(), "0", "-1"}).items) log.insert(item.text);
    LockInstanceRecords records{instance.name, {}, instance.restarts};
    for (const std::string& text : log) records.log.push_back(nlohmann::json::parse(text));
    return records;
  }

  // A user's program's grants are its own acquire.ok lines (client_side_leases):
  // each already means a quorum of Redlock's instances, so its history's quorum is 1.
  [[nodiscard]] Json service_description() const {
    if (consensus_) return consensus_->service_description();
    if (failover_)
      return Json{{field::kKind, model::service_kind_name(model::ServiceKind::kRedisFailover)},
                  {field::kInstances, FailoverCluster::kInstances},
                  {field::kQuorum, 1}};
    const int instances = static_cast<int>(instances_.size());
    const bool redlock = scenario_.system.service.kind == model::ServiceKind::kRedlock;
    return Json{{field::kKind, model::service_kind_name(redlock ? model::ServiceKind::kRedlock : model::ServiceKind::kRedis)},
                {field::kInstances, instances},
                {field::kQuorum, redlock && !user_program() ? model::RedlockService::quorum_of(instances) : 1}};
  }

  [[nodiscard]] LiveFaultContext fault_context() const {
    return live_fault_context(scenario_, !settings_.own_lock_servers.empty());
  }

  LockInstance* instance_named(const std::string& name) {
    for (auto& instance : instances_) {
      if (instance->name == name) return instance.get();
    }
    return nullptr;
  }

  struct Watch {
    PlannedFault fault;
    std::string event;
    int nth = 1;
    sim::Duration delay;
    bool unless_self_stopping = false;  // a user program's stop, taken here unless it takes its own
  };

  const scenario::Scenario& scenario_;
  model::Fencing mode_;
  const LiveRunSettings& settings_;
  scenario::Plan plan_;
  asio::io_context io_;
  std::int64_t start_ns_ = 0;  // CLOCK_MONOTONIC at t = 0; 0 until it is set
  asio::steady_timer ready_limit_{io_};  // the wait for every user program's live.hello
  asio::steady_timer time_limit_{io_};   // the scenario's (scaled) duration
  int interrupted_by_ = 0;               // SIGINT or SIGTERM ended the run
  std::vector<std::string> notices_;     // what the user should know of this run (LiveRunResult::notices)
  std::chrono::steady_clock::time_point start_point_;  // the same instant (steady_clock is CLOCK_MONOTONIC)
  std::vector<std::unique_ptr<WorkerSlot>> workers_;
  std::map<std::string, std::vector<SelfStop>> self_stops_;
  std::vector<Watch> watches_;
  std::vector<Watch> grant_watches_;  // after-grant faults on the lock server
  std::vector<PlannedFault> timed_faults_;  // faults at a time: their timers start at t = 0
  std::vector<std::unique_ptr<LockInstance>> instances_;  // redis-0 first
  std::optional<FaultProxy> proxy_;  // after io_: gone before it
  std::optional<FailoverService> failover_;  // redis-failover: after proxy_, gone before it
  std::optional<ConsensusService> consensus_;  // consensus: likewise
  std::size_t clients_made_ = 0;  // consensus: worker processes started, each a new client (WorkerConfig::first_member)
  std::map<std::string, int> failover_grants_;  // by instance, for after-grant faults
  std::array<std::thread, 2> failover_restarting_;  // a redis-failover server's restart under way
  std::vector<std::thread> consensus_restarting_;   // by member: a consensus member's restart under way
  std::optional<StorageScriptShas> user_scripts_;
  std::vector<bool> fired_;
  std::vector<nlohmann::json> worker_lines_;
  std::vector<Json> coordinator_lines_;
  bool stopped_short_ = false;
  bool time_is_up_ = false;
  bool said_string_token_ = false;
  std::string why_stopped_;
  std::string failure_;
  std::string internal_failure_;  // a bug of locksim's, met while the run went on: exit 3
};

// Deletes every key under the run's prefix (SCAN MATCH prefix*), and nothing else.
void delete_run_keys(const Endpoint& endpoint, const std::string& prefix) {
  RedisClient client{endpoint.host, endpoint.port};
  std::string cursor = "0";
  do {
    const RespValue page = client.command({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"});
    cursor = page.items.at(0).text;
    std::vector<std::string> doomed{"DEL"};
    for (const RespValue& key : page.items.at(1).items) doomed.push_back(key.text);
    if (doomed.size() > 1) client.command(doomed);
  } while (cursor != "0");
}

}  // namespace

LiveInterrupted::LiveInterrupted(int signal)
    : LiveError(fmt::format("interrupted by {}: every worker process was killed", signal == SIGINT ? "SIGINT" : "SIGTERM")),
      signal_{signal} {}

std::string live_unsupported(const scenario::Scenario& scenario) {
  const model::ServiceKind kind = scenario.system.service.kind;
  if (kind == model::ServiceKind::kConsensus) {
    if (const std::string why = consensus_unsupported(scenario); !why.empty()) return why;
  }
  if (!scenario.worker_command.empty() && std::holds_alternative<model::BillingWorkload>(scenario.system.workload)) {
    return "/workers/command: a worker program of your own runs the counter and write-only workloads so far "
           "(the billing workload runs with locksim's own worker)";
  }
  if (scenario.system.storage.validate != model::Validation::kMaxSeen) {
    return "/storage/validate: live storage validates by the highest token seen so far";
  }
  if (scenario.network.partition_effect == sim::PartitionEffect::kDrop) {
    return "/network/partitions: \"drop\" has no live form: TCP never loses bytes of an open connection (it "
           "retransmits them, or resets the connection), and live runs are real TCP connections";
  }
  return "";
}

std::vector<std::string> faults_without_live_form(const scenario::Scenario& scenario, bool own_lock_servers) {
  const LiveFaultContext context = live_fault_context(scenario, own_lock_servers);
  std::vector<std::string> lines;
  const scenario::Plan plan = scenario::make_plan(scenario, 1);
  std::vector<bool> named(scenario.faults.size(), false);
  for (const PlannedFault& fault : plan.faults) {
    const std::string why = no_live_form(fault, context);
    if (why.empty() || named[fault.index]) continue;
    named[fault.index] = true;
    lines.push_back(fmt::format("faults[{}] ({}): {}", fault.index, scenario::fault_kind_name(fault.kind()), why));
  }
  return lines;
}

int lock_instance_count(const scenario::Scenario& scenario) {
  if (scenario.system.service.kind != model::ServiceKind::kRedlock) return 1;
  return model::RedlockService::instance_count(scenario.system.service);
}

ServerPersistence server_persistence(const scenario::Scenario& scenario) {
  switch (scenario.system.service.persistence) {
    case model::Persistence::kEverySecond: return ServerPersistence::kEverySecond;
    case model::Persistence::kAlways: return ServerPersistence::kAlways;
    default: return ServerPersistence::kNone;
  }
}

LiveRunResult run_live(const scenario::Scenario& scenario, model::Fencing mode, const LiveRunSettings& settings) {
  Coordinator coordinator{scenario, mode, settings};
  std::optional<LiveRunResult> result;
  std::exception_ptr failure;
  try {
    result = coordinator.run();
  } catch (...) {
    failure = std::current_exception();
  }
  try {
    for (const Endpoint& instance : settings.lock_instances) delete_run_keys(instance, settings.prefix);
    delete_run_keys(settings.storage, settings.prefix);
  } catch (const LiveError&) {
    if (!failure) throw;  // the run's own failure (a server gone after Ctrl-C) says more
  }
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace locksim::live
