#pragma once
// The Redis keys of one live run: all under the run's prefix, so a run
// touches nothing it did not create and can delete exactly what it made.

#include <string>

namespace locksim::live {

struct LiveKeys {
  std::string prefix;

  // On the lock service.
  [[nodiscard]] std::string lock(const std::string& name) const { return prefix + "lock:" + name; }
  [[nodiscard]] std::string token_counter(const std::string& name) const { return prefix + "token:" + name; }
  // On each server: the sequence and log of what its scripts decided.
  [[nodiscard]] std::string sequence() const { return prefix + "seq"; }
  [[nodiscard]] std::string log() const { return prefix + "log"; }
  // On storage.
  [[nodiscard]] std::string data(const std::string& key) const { return prefix + "data:" + key; }
  [[nodiscard]] std::string highest_token(const std::string& key) const { return prefix + "highest:" + key; }
  [[nodiscard]] std::string request(const std::string& id) const { return prefix + "request:" + id; }
  // The payments script's (on the storage server): the idempotency keys it charged.
  [[nodiscard]] std::string payment_request(const std::string& id) const { return prefix + "payment-request:" + id; }
};

}  // namespace locksim::live
