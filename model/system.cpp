#include "model/system.h"

#include <algorithm>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "model/client_rules.h"
#include "model/consensus_member.h"
#include "model/redis_instance.h"
#include "model/redlock_service.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"
#include "vocabulary/worker_name.h"

namespace locksim::model {

using vocabulary::EventKind;

namespace {

bool charges_externally(const Workload& workload) {
  const auto* billing = std::get_if<BillingWorkload>(&workload);
  return billing != nullptr && billing->charge == Charge::kExternal;
}

}  // namespace

System::System(sim::Simulation& simulation, SystemOptions options)
    : simulation_{&simulation},
      options_{std::move(options)},
      service_{add_lock_service(simulation, options_)},
      storage_{options_.storage, options_.lock.name, options_.service.request_timeout},
      storage_node_{simulation.add_node(vocabulary::proc::kStorage, storage_.boot())} {
  storage_.set_validators([service = service_.get()] { return service->validators(); });
  if (charges_externally(options_.workload)) {
    payments_ = std::make_unique<Payments>(options_.storage.idempotency_keys);
    payments_node_ = simulation.add_node(vocabulary::proc::kPayments, payments_->boot());
  }
  if (std::holds_alternative<BillingWorkload>(options_.workload)) {
    // The accepted charges (storage's, or the payments node's), to know which
    // customers were never charged.
    simulation.observe([this](std::string_view proc, EventKind event, std::span<const sim::Field> fields) {
      const bool charge = (proc == vocabulary::proc::kStorage && event == EventKind::kWriteAccept) ||
                          (proc == vocabulary::proc::kPayments && event == EventKind::kEffectAccept);
      if (!charge) return;
      for (const sim::Field& field : fields) {
        if (field.key != vocabulary::field::kJob) continue;
        if (const auto* customer = std::get_if<std::int64_t>(&field.value)) charged_customers_.insert(*customer);
      }
    });
  }
  for (int number = 1; number <= options_.workers.count; ++number) {
    clients_.push_back(service_->make_client());
    clients_.back()->set_lease_clock(options_.workers.clock);
    workers_.emplace_back(vocabulary::worker_name(number), options_, *clients_.back(), storage_node_, payments_node_,
                          [this] { on_worker_finished(); });
    worker_nodes_.push_back(simulation.add_node(workers_.back().name(), workers_.back().boot()));
  }
}

void System::start_worker_after(std::string_view worker, sim::Duration offset) {
  const auto named = std::find_if(workers_.begin(), workers_.end(), [worker](const Worker& w) { return w.name() == worker; });
  LOCKSIM_ASSERT(named != workers_.end(), "start offset for a worker the system does not have");
  named->start_after(offset);
}

bool System::all_workers_finished() const {
  return std::all_of(workers_.begin(), workers_.end(), [](const Worker& worker) { return worker.finished(); });
}

void System::on_worker_finished() {
  if (all_workers_finished()) {
    stop_when_network_is_quiet();
  }
}

void System::stop_when_network_is_quiet() {
  // Messages still in flight (a delayed stale write, say) land before the run
  // ends; stopping at the last job would hide them.
  if (simulation_->messages_in_flight() == 0) {
    simulation_->stop();
    return;
  }
  simulation_->schedule(simulation_->now() + kQuietCheckInterval, [this] { stop_when_network_is_quiet(); });
}

Worker* System::worker_on(sim::NodeId node) {
  for (std::size_t index = 0; index < worker_nodes_.size(); ++index) {
    if (worker_nodes_[index] == node) {
      return &workers_[index];
    }
  }
  return nullptr;
}

void System::crash(sim::NodeId node) {
  if (!simulation_->is_up(node)) {
    return;
  }
  simulation_->record(simulation_->node_name(node), EventKind::kCrash, {});
  if (Worker* worker = worker_on(node)) {
    worker->before_crash(*simulation_);
  }
  simulation_->crash(node);
}

void System::restart(sim::NodeId node) {
  if (simulation_->is_up(node)) {
    return;
  }
  simulation_->record(simulation_->node_name(node), EventKind::kRestart, {});
  simulation_->restart(node);
}

void System::power_loss(sim::NodeId node) {
  if (!simulation_->is_up(node)) {
    return;
  }
  if (RedisInstance* instance = service_->redis_instance_on(node)) {
    instance->lose_power();
  }
  crash(node);
}

bool System::can_press_memory(sim::NodeId node) {
  const RedisInstance* instance = service_->redis_instance_on(node);
  // A paused instance handles no command, so nothing pushes its memory over the limit meanwhile.
  return instance != nullptr && simulation_->is_up(node) && !simulation_->is_paused(node) &&
         instance->role() == RedisRole::kPrimary;
}

bool System::press_memory(sim::NodeId node, int keys) {
  if (!can_press_memory(node)) return false;
  return service_->redis_instance_on(node)->evict(simulation_->context_of(node), keys) == keys;
}

void System::hold_over_maxmemory(sim::NodeId node, int pressures) {
  if (RedisInstance* instance = service_->redis_instance_on(node)) instance->hold_over_maxmemory(pressures);
}

bool System::failover(const FailoverFault& fault) { return service_->failover(*simulation_, fault); }

std::string System::final_values_json() const {
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (const auto& [key, value] : storage_.values()) {
    values[key] = value;
  }
  return values.dump();
}

std::int64_t System::unfinished_jobs() const {
  if (const auto* billing = std::get_if<BillingWorkload>(&options_.workload)) {
    const auto charged = std::count_if(charged_customers_.begin(), charged_customers_.end(),
                                       [billing](std::int64_t customer) { return customer < billing->customers; });
    return billing->customers - static_cast<std::int64_t>(charged);
  }
  const int jobs = jobs_per_worker(options_.workload).value_or(0);
  std::int64_t left = 0;
  for (const Worker& worker : workers_) left += std::max(0, jobs - worker.jobs_done());
  return left;
}

std::int64_t System::jobs_done() const {
  if (const auto* billing = std::get_if<BillingWorkload>(&options_.workload)) {
    return billing->customers - unfinished_jobs();
  }
  const std::optional<int> jobs = jobs_per_worker(options_.workload);
  std::int64_t done = 0;
  for (const Worker& worker : workers_) done += jobs ? std::min(*jobs, worker.jobs_done()) : worker.jobs_done();
  return done;
}

Worker::Costs System::costs() const {
  Worker::Costs total{storage_.validation_calls(), sim::Duration::zero()};
  for (const Worker& worker : workers_) {
    total.calls += worker.costs().calls;
    total.acquire_wait += worker.costs().acquire_wait;
  }
  return total;
}

std::vector<std::string> System::node_names(const SystemOptions& options) {
  std::vector<std::string> names;
  int instances = 0;
  switch (options.service.kind) {
    case ServiceKind::kRedis: instances = 1; break;
    case ServiceKind::kRedisFailover: instances = 2; break;
    case ServiceKind::kRedlock: instances = RedlockService::instance_count(options.service); break;
    case ServiceKind::kConsensus:
      if (options.service.nodes <= 1) names.emplace_back("consensus");
      for (int index = 0; options.service.nodes > 1 && index < options.service.nodes; ++index) {
        names.push_back(consensus_member_name(index));
      }
      break;
  }
  for (int index = 0; index < instances; ++index) names.push_back(fmt::format("redis-{}", index));
  if (options.service.kind == ServiceKind::kRedisFailover) names.emplace_back(vocabulary::proc::kSentinel);
  names.emplace_back(vocabulary::proc::kStorage);
  if (charges_externally(options.workload)) names.emplace_back(vocabulary::proc::kPayments);
  for (int number = 1; number <= options.workers.count; ++number) names.push_back(vocabulary::worker_name(number));
  return names;
}

}  // namespace locksim::model
