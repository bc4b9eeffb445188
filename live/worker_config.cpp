#include "live/worker_config.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace locksim::live {

std::string worker_config_json(const WorkerConfig& config) {
  nlohmann::ordered_json json{{"scenario_file", config.scenario_file},
                                    {"name", config.name},
                                    {"fencing", config.fencing == model::Fencing::kOn},
                                    {"host", config.host},
                                    {"lock_port", config.lock_port},
                                    {"lock_ports", config.lock_ports},
                                    {"first_member", config.first_member},
                                    {"storage_port", config.storage_port},
                                    {"prefix", config.prefix},
                                    {"start_ns", config.start_ns},
                                    {"begin_ns", config.begin_ns},
                                    {"time_scale", config.time_scale},
                                    {"seed", config.seed},
                                    {"jobs_left", config.jobs_left},
                                    {"jobs_done", config.jobs_done},
                                    {"stops", nlohmann::ordered_json::array()}};
  for (const SelfStop& stop : config.stops) {
    json["stops"].push_back({{"after", stop.after}, {"nth", stop.nth}, {"fault", stop.fault}});
  }
  if (config.sentinel) {
    nlohmann::ordered_json ports = nlohmann::ordered_json::array();
    for (const auto& [announced, link] : config.sentinel->ports) ports.push_back({announced, link});
    json["sentinel"] = {{"port", config.sentinel->sentinel_port}, {"master_name", config.sentinel->master_name},
                        {"ports", ports}};
  }
  return json.dump();
}

WorkerConfig parse_worker_config(const std::string& text) {
  try {
    const nlohmann::json json = nlohmann::json::parse(text);
    WorkerConfig config;
    config.scenario_file = json.at("scenario_file").get<std::string>();
    config.name = json.at("name").get<std::string>();
    config.fencing = json.at("fencing").get<bool>() ? model::Fencing::kOn : model::Fencing::kOff;
    config.host = json.at("host").get<std::string>();
    config.lock_port = json.at("lock_port").get<int>();
    // Without the list (a configuration written by hand), the one instance.
    config.lock_ports = json.value("lock_ports", std::vector<int>{config.lock_port});
    config.first_member = json.value("first_member", 0);
    config.storage_port = json.at("storage_port").get<int>();
    config.prefix = json.at("prefix").get<std::string>();
    config.start_ns = json.at("start_ns").get<std::int64_t>();
    config.begin_ns = json.value("begin_ns", std::int64_t{0});
    config.time_scale = json.at("time_scale").get<double>();
    config.seed = json.at("seed").get<std::uint64_t>();
    config.jobs_left = json.at("jobs_left").get<int>();
    config.jobs_done = json.value("jobs_done", 0);
    for (const nlohmann::json& stop : json.at("stops")) {
      config.stops.push_back(
          {stop.at("after").get<std::string>(), stop.at("nth").get<int>(), stop.at("fault").get<std::size_t>()});
    }
    if (json.contains("sentinel")) {
      const nlohmann::json& sentinel = json["sentinel"];
      SentinelRoute route{sentinel.at("port").get<int>(), sentinel.at("master_name").get<std::string>(), {}};
      for (const nlohmann::json& pair : sentinel.at("ports")) route.ports.emplace_back(pair.at(0).get<int>(), pair.at(1).get<int>());
      config.sentinel = route;
    }
    return config;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string{"live worker configuration: "} + error.what());
  }
}

}  // namespace locksim::live
