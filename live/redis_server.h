#pragma once
// A redis-server of live mode's own: started on 127.0.0.1 at a free port
// with a throw-away directory and no persistence, stopped (and its directory
// removed) when this object goes away. Nothing listens beyond loopback.

#include <string>
#include <sys/types.h>

namespace locksim::live {

class RedisServer {
 public:
  // Starts `redis-server` (from PATH) and waits until it answers PING.
  // Throws LiveError when it is not installed or does not come up.
  RedisServer();
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] const std::string& host() const { return host_; }

 private:
  void stop();

  std::string host_ = "127.0.0.1";
  int port_ = 0;
  pid_t pid_ = -1;
  std::string directory_;
};

// A TCP port on 127.0.0.1 that was free a moment ago.
[[nodiscard]] int free_loopback_port();

}  // namespace locksim::live
