#include "live/log_subscription.h"

#include <array>

#include <fmt/format.h>
#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#include "live/redis_client.h"
#include "live/resp_value.h"

namespace locksim::live {

void LogSubscription::ReaderDeleter::operator()(redisReader* reader) const { redisReaderFree(reader); }

LogSubscription::LogSubscription(asio::io_context& io, std::string host, int port, std::string channel,
                                 OnRecord on_record)
    : io_{io}, host_{std::move(host)}, port_{port}, channel_{std::move(channel)}, on_record_{std::move(on_record)},
      alive_{std::make_shared<bool>(true)} {
  subscribe();
}

LogSubscription::~LogSubscription() {
  *alive_ = false;
  if (socket_) {
    boost::system::error_code ignored;
    socket_->close(ignored);
  }
}

void LogSubscription::resubscribe() {
  if (socket_) {
    boost::system::error_code ignored;
    socket_->close(ignored);
  }
  subscribe();
}

void LogSubscription::subscribe() {
  socket_ = std::make_unique<asio::ip::tcp::socket>(io_);
  reader_.reset(redisReaderCreate());
  boost::system::error_code error;
  socket_->connect({asio::ip::make_address(host_), static_cast<unsigned short>(port_)}, error);
  if (error) throw LiveError(fmt::format("cannot subscribe to the lock log on {}:{}: {}", host_, port_, error.message()));
  char* command = nullptr;
  const int length = redisFormatCommand(&command, "SUBSCRIBE %b", channel_.data(), channel_.size());
  const std::string request = length < 0 ? std::string{} : std::string(command, static_cast<std::size_t>(length));
  redisFreeCommand(command);
  asio::write(*socket_, asio::buffer(request), error);
  // The confirmation comes back before any message: wait for it, so the
  // subscription stands before a worker can run a script.
  std::array<char, 512> confirmation{};
  while (!error) {
    void* parsed = nullptr;
    if (redisReaderGetReply(reader_.get(), &parsed) != REDIS_OK) break;
    if (parsed != nullptr) {
      freeReplyObject(parsed);
      read_next();
      return;
    }
    const std::size_t read = socket_->read_some(asio::buffer(confirmation), error);
    if (!error) redisReaderFeed(reader_.get(), confirmation.data(), read);
  }
  throw LiveError(fmt::format("cannot subscribe to the lock log on {}:{}", host_, port_));
}

void LogSubscription::read_next() {
  // Hand out every whole message hiredis has parsed, then wait for more bytes.
  while (true) {
    void* parsed = nullptr;
    if (redisReaderGetReply(reader_.get(), &parsed) != REDIS_OK || parsed == nullptr) break;
    const RespValue message = resp_value(*static_cast<redisReply*>(parsed));
    freeReplyObject(parsed);
    if (message.items.size() == 3 && message.items[0].text == "message") {
      records_.push_back(message.items[2].text);
      on_record_(records_.back());
    }
  }
  auto chunk = std::make_shared<std::array<char, 4096>>();
  socket_->async_read_some(asio::buffer(*chunk), [this, chunk, alive = alive_, socket = socket_.get()](
                                                     const boost::system::error_code& error, std::size_t read) {
    // A crashed server (or a resubscription) ends this connection's reads.
    if (!*alive || error || socket != socket_.get()) return;
    redisReaderFeed(reader_.get(), chunk->data(), read);
    read_next();
  });
}

}  // namespace locksim::live
