#include "model/system.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace locksim::model {

System::System(sim::Simulation& simulation, SystemOptions options)
    : simulation_{&simulation},
      options_{std::move(options)},
      service_{add_lock_service(simulation, options_)},
      storage_{options_.storage, options_.lock.name, options_.service.request_timeout},
      storage_node_{simulation.add_node("storage", storage_.boot())} {
  storage_.set_validators([service = service_.get()] { return service->validators(); });
  for (int number = 1; number <= options_.workers.count; ++number) {
    clients_.push_back(service_->make_client());
    workers_.emplace_back(fmt::format("worker-{}", number), options_, *clients_.back(), storage_node_,
                          [this] { on_worker_finished(); });
    worker_nodes_.push_back(simulation.add_node(workers_.back().name(), workers_.back().boot()));
  }
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
  simulation_->record(simulation_->node_name(node), "crash", {});
  if (Worker* worker = worker_on(node)) {
    worker->before_crash(*simulation_);
  }
  simulation_->crash(node);
}

void System::restart(sim::NodeId node) {
  if (simulation_->is_up(node)) {
    return;
  }
  simulation_->record(simulation_->node_name(node), "restart", {});
  simulation_->restart(node);
}

bool System::failover() { return service_->failover(*simulation_); }

std::string System::final_values_json() const {
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (const auto& [key, value] : storage_.values()) {
    values[key] = value;
  }
  return values.dump();
}

void System::record_run_end() {
  const std::string final_values = final_values_json();
  simulation_->record("run", "run.end", {{"final", sim::RawJson{final_values}}});
}

}  // namespace locksim::model
