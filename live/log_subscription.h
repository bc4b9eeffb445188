#pragma once
// The coordinator's live copy of a lock server's decision log. Every lock
// script publishes its record on the log's channel in the same atomic step
// as it appends it to the log list, so the coordinator hears each grant as
// it happens (an `after-grant` fault is timed from it) and keeps records a
// crash of a server without persistence would wipe from the list.
//
// Redis sends a published message to subscribers in the same event-loop
// turn as the script's reply to its caller: a record nobody received was
// also answered to nobody, so losing it in a crash hides nothing anyone
// acted on — and if persistence kept it, the log list still has it.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "live/asio_coroutines.h"

struct redisReader;

namespace locksim::live {

class LogSubscription {
 public:
  using OnRecord = std::function<void(const std::string& record)>;

  // Subscribes to `channel` on host:port (the connection is made now, blocking,
  // so nothing is published before the subscription stands).
  LogSubscription(asio::io_context& io, std::string host, int port, std::string channel, OnRecord on_record);
  ~LogSubscription();
  LogSubscription(const LogSubscription&) = delete;
  LogSubscription& operator=(const LogSubscription&) = delete;

  // The server restarted: subscribe afresh.
  void resubscribe();
  // Every record received, in arrival order (which is the server's script order).
  [[nodiscard]] const std::vector<std::string>& records() const { return records_; }

 private:
  void subscribe();
  void read_next();

  asio::io_context& io_;
  std::string host_;
  int port_;
  std::string channel_;
  OnRecord on_record_;
  std::unique_ptr<asio::ip::tcp::socket> socket_;
  std::shared_ptr<bool> alive_;
  struct ReaderDeleter {
    void operator()(redisReader* reader) const;
  };
  std::unique_ptr<redisReader, ReaderDeleter> reader_;
  std::vector<std::string> records_;
};

}  // namespace locksim::live
