#pragma once
// A Redis connection for a live worker's coroutines: commands are written
// with hiredis's formatter and replies parsed with hiredis's reader, over a
// Boost.Asio TCP socket. One command at a time per connection (a worker's
// job loop and its watchdog each have their own). A connection the server
// closed while it was idle (a crashed instance) is replaced before the next
// command, as Redis clients' pools do (go-redis's connCheck).

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "live/asio_coroutines.h"
#include "live/resp_value.h"

struct redisReader;

namespace locksim::live {

class AsyncRedis {
 public:
  explicit AsyncRedis(asio::any_io_executor executor);
  ~AsyncRedis();
  AsyncRedis(const AsyncRedis&) = delete;
  AsyncRedis& operator=(const AsyncRedis&) = delete;

  // Connects to 127.0.0.1:port (or host). Throws boost::system::system_error on failure.
  asio::awaitable<void> connect(std::string host, int port);

  // From the next command on, talk to `port` on the same host (a
  // Sentinel-aware client after a failover). A command under way finishes
  // on the old connection; the next opens one to the new port.
  void retarget(int port);
  [[nodiscard]] int port() const { return port_; }

  // Sends the command and waits up to `timeout` for its reply; nullopt on a
  // timeout or a broken connection (which is then closed, and reopened by
  // the next call). An error reply is returned as such. `on_sent` runs once
  // the request is written, before its reply is read.
  asio::awaitable<std::optional<RespValue>> command(std::vector<std::string> arguments,
                                                    std::chrono::nanoseconds timeout,
                                                    std::function<void()> on_sent = {});

  // For a subscription: sends a command without waiting, then reads pushed
  // replies one at a time, with no timeout; nullopt when the connection broke.
  asio::awaitable<bool> send(std::vector<std::string> arguments);
  asio::awaitable<std::optional<RespValue>> next_reply();

  // Why the last call gave nullopt: "timeout" (no reply in time; it may
  // still be carried out) or "connection" (refused, or broken: a server that
  // crashed).
  [[nodiscard]] const std::string& failure() const { return failure_; }

  [[nodiscard]] asio::any_io_executor executor() const { return executor_; }

 private:
  asio::awaitable<std::optional<RespValue>> exchange(std::string request, std::function<void()> on_sent);
  asio::awaitable<bool> write(std::string request);
  void reset_connection();
  // The server closed the connection, or sent something nobody asked for.
  [[nodiscard]] bool connection_is_stale();

  asio::any_io_executor executor_;
  asio::ip::tcp::socket socket_;
  std::string host_;
  int port_ = 0;
  redisReader* reader_ = nullptr;
  std::string failure_ = "timeout";
  bool retargeted_ = false;
};

}  // namespace locksim::live
