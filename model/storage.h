#pragma once
// The protected resource: a key-value store of integers that the workers read
// and write, and that may check fencing tokens.
//
// Requests are served one at a time, so a token check and the write it guards
// are one atomic step (Kleppmann's storage rule). With fencing on it keeps,
// per key, the highest token it has processed and rejects a lower one; with
// fenced reads a read registers its token too; with `validate: service` it
// asks the lock service whether the token is still current instead (Chubby's
// CheckSequencer); with idempotency keys it drops a repeated request_id.
// Every request that reaches it is recorded: `read.accept` (with `token` only
// when reads are fenced) or `read.reject`, `write.accept` or `write.reject`.
// Storage is durable: its data outlives a crash of the node.

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/options.h"
#include "model/protocol.h"
#include "sim/simulation.h"

namespace locksim::model {

class Storage {
 public:
  Storage(StorageOptions options, std::string lock_name, sim::Duration request_timeout);

  // Under `validate: service`, each validation asks the nodes `current_validators`
  // returns at that moment, in order (so it follows a failover).
  void set_validators(std::function<std::vector<sim::NodeId>()> current_validators) {
    current_validators_ = std::move(current_validators);
  }

  [[nodiscard]] sim::NodeBoot boot();
  [[nodiscard]] const std::map<std::string, std::int64_t>& values() const { return values_; }
  // Its calls to the lock service (validate: service), a cost of the request that made each.
  [[nodiscard]] std::int64_t validation_calls() const { return validation_calls_; }

 private:
  struct Verdict {
    bool accepted = true;
    std::string reason;
  };

  sim::Task<> serve(sim::Context context);
  sim::Task<> handle_read(sim::Context context, sim::Message request);
  sim::Task<> handle_write(sim::Context context, sim::Message request);
  // The token rule for a request on `key` carrying `token`.
  sim::Task<Verdict> check_token(sim::Context context, std::string key, std::optional<std::int64_t> token);
  // StorageMutation::kReadsSkipCompare: the broken guard.
  Verdict register_without_compare(const std::string& key, std::optional<std::int64_t> token);
  sim::Task<bool> token_is_current(sim::Context context, std::int64_t token);

  StorageOptions options_;
  std::string lock_name_;
  sim::Duration request_timeout_;
  std::function<std::vector<sim::NodeId>()> current_validators_;
  std::map<std::string, std::int64_t> values_;
  std::map<std::string, std::int64_t> highest_token_;
  std::set<std::string> seen_request_ids_;
  std::int64_t validation_calls_ = 0;
};

}  // namespace locksim::model
