#pragma once
// A blocking Redis connection for live mode's coordinator (setting up,
// reading the logs, cleaning up): hiredis's synchronous API. Every call
// that fails — no connection, an error reply — throws LiveError with what
// was asked and what the server said.

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "live/resp_value.h"

struct redisContext;

namespace locksim::live {

// Something in the real system did not work (a server that does not start,
// a refused connection, an error reply): what() says what, for the user.
class LiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RedisClient {
 public:
  // Connects to host:port, waiting up to `timeout_ms` for the connection.
  RedisClient(const std::string& host, int port, int timeout_ms = 2000);
  ~RedisClient();
  RedisClient(RedisClient&&) noexcept;
  RedisClient& operator=(RedisClient&&) noexcept;
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Sends one command and returns its reply; an error reply throws.
  RespValue command(const std::vector<std::string>& arguments);

 private:
  std::string where_;
  redisContext* context_ = nullptr;
};

}  // namespace locksim::live
