#pragma once
// The contract with a user's own worker program (workers.command,
// docs/live.md "Your own worker program"): what it is told when it starts,
// as one JSON object in the environment variable LOCKSIM_WORKER_CONFIG.
//
// It is live-worker's configuration (worker_config.h) and, so that a
// program in any language needs neither the scenario file nor locksim's key
// scheme, the resolved facts: its jobs, the lock's Redis key and scaled lease,
// the request timeout, its work lengths drawn from the seed, the etcd
// cluster's endpoints for a `consensus` service, and the storage scripts —
// locksim's own, loaded into storage with SCRIPT LOAD, to be run by EVALSHA
// with the KEYS given here. Storage decisions are judged only from those
// scripts' log; the lock is the program's own code.

#include <string>

#include "live/worker_config.h"
#include "scenario/scenario.h"

namespace locksim::live {

// The name of the environment variable a user's program reads its configuration from.
inline constexpr const char* kUserWorkerConfigVariable = "LOCKSIM_WORKER_CONFIG";

// SHA1s of locksim's storage scripts in the storage server's script cache.
struct StorageScriptShas {
  std::string read;
  std::string write;
};

// Loads the storage scripts (SCRIPT LOAD: idempotent, touches no key). Throws LiveError.
[[nodiscard]] StorageScriptShas load_storage_scripts(const std::string& host, int port);

[[nodiscard]] std::string user_worker_config_json(const WorkerConfig& config, const scenario::Scenario& scenario,
                                                  const StorageScriptShas& scripts);

}  // namespace locksim::live
