#include "live/async_redis.h"

#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <memory>

#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#include "vocabulary/reason.h"

namespace locksim::live {

namespace reason = vocabulary::reason;

namespace {

std::string formatted(const std::vector<std::string>& arguments) {
  std::vector<const char*> pointers;
  std::vector<std::size_t> lengths;
  for (const std::string& argument : arguments) {
    pointers.push_back(argument.data());
    lengths.push_back(argument.size());
  }
  char* command = nullptr;
  const long long length =
      redisFormatCommandArgv(&command, static_cast<int>(arguments.size()), pointers.data(), lengths.data());
  std::string text = length < 0 ? std::string{} : std::string(command, static_cast<std::size_t>(length));
  redisFreeCommand(command);
  return text;
}

}  // namespace

AsyncRedis::AsyncRedis(asio::any_io_executor executor)
    : executor_{executor}, socket_{executor}, reader_{redisReaderCreate()} {}

AsyncRedis::~AsyncRedis() { redisReaderFree(reader_); }

void AsyncRedis::reset_connection() {
  boost::system::error_code ignored;
  socket_.close(ignored);
  redisReaderFree(reader_);
  reader_ = redisReaderCreate();
}

asio::awaitable<void> AsyncRedis::connect(std::string host, int port) {
  host_ = std::move(host);
  port_ = port;
  const asio::ip::tcp::endpoint endpoint{asio::ip::make_address(host_), static_cast<unsigned short>(port_)};
  co_await socket_.async_connect(endpoint, asio::use_awaitable);
  socket_.set_option(asio::ip::tcp::no_delay{true});
}

void AsyncRedis::retarget(int port) {
  if (port == port_) return;
  port_ = port;
  retargeted_ = true;
}

bool AsyncRedis::connection_is_stale() {
  pollfd idle{socket_.native_handle(), POLLIN, 0};
  if (::poll(&idle, 1, 0) <= 0) return false;  // nothing to read: as good as it looks
  // Readable before anything was asked: the end of the stream, a reset, or
  // something left over. Either way not a connection to send on.
  char byte = 0;
  const ssize_t peeked = ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return peeked != -1 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

asio::awaitable<bool> AsyncRedis::write(std::string request) {
  boost::system::error_code error;
  if (retargeted_) {
    retargeted_ = false;
    reset_connection();
  }
  if (socket_.is_open() && connection_is_stale()) reset_connection();
  if (!socket_.is_open()) {
    const asio::ip::tcp::endpoint endpoint{asio::ip::make_address(host_), static_cast<unsigned short>(port_)};
    co_await socket_.async_connect(endpoint, asio::redirect_error(asio::use_awaitable, error));
    if (error) {
      failure_ = error == asio::error::operation_aborted ? reason::kTimeout : reason::kConnection;
      co_return false;
    }
    socket_.set_option(asio::ip::tcp::no_delay{true});
  }
  co_await asio::async_write(socket_, asio::buffer(request), asio::redirect_error(asio::use_awaitable, error));
  if (error) failure_ = error == asio::error::operation_aborted ? reason::kTimeout : reason::kConnection;
  co_return !error;
}

asio::awaitable<std::optional<RespValue>> AsyncRedis::next_reply() {
  std::array<char, 4096> buffer{};
  while (true) {
    void* parsed = nullptr;
    if (redisReaderGetReply(reader_, &parsed) != REDIS_OK) {
      failure_ = reason::kConnection;
      reset_connection();
      co_return std::nullopt;
    }
    if (parsed != nullptr) {
      RespValue value = resp_value(*static_cast<redisReply*>(parsed));
      freeReplyObject(parsed);
      co_return value;
    }
    boost::system::error_code error;
    const std::size_t read =
        co_await socket_.async_read_some(asio::buffer(buffer), asio::redirect_error(asio::use_awaitable, error));
    if (error) {
      failure_ = error == asio::error::operation_aborted ? reason::kTimeout : reason::kConnection;
      reset_connection();  // out of step: the next command opens a fresh one
      co_return std::nullopt;
    }
    redisReaderFeed(reader_, buffer.data(), read);
  }
}

asio::awaitable<std::optional<RespValue>> AsyncRedis::exchange(std::string request, std::function<void()> on_sent) {
  const bool sent = co_await write(std::move(request));
  if (!sent) co_return std::nullopt;
  if (on_sent) on_sent();
  std::optional<RespValue> reply = co_await next_reply();
  co_return reply;
}

asio::awaitable<bool> AsyncRedis::send(std::vector<std::string> arguments) {
  std::string request = formatted(arguments);
  const bool sent = co_await write(std::move(request));
  if (!sent) reset_connection();
  co_return sent;
}

asio::awaitable<std::optional<RespValue>> AsyncRedis::command(std::vector<std::string> arguments,
                                                              std::chrono::nanoseconds timeout,
                                                              std::function<void()> on_sent) {
  // The timer cancels the socket's wait; its handler may run after this
  // coroutine is gone, so it shares its flag and reaches the socket only if
  // this call is still waiting. A reply already in the socket's buffer came
  // in time (only this process was late to read it: it was frozen), so it
  // is read, not timed out.
  auto waiting = std::make_shared<bool>(true);
  asio::steady_timer timer{executor_};
  timer.expires_after(timeout);
  timer.async_wait([this, waiting](const boost::system::error_code& error) {
    if (!error && *waiting) {
      boost::system::error_code ignored;
      if (socket_.is_open() && socket_.available(ignored) > 0) return;
      socket_.cancel(ignored);
    }
  });
  std::optional<RespValue> reply = co_await exchange(formatted(arguments), std::move(on_sent));
  *waiting = false;
  timer.cancel();
  // No reply in time (it may still come) or a broken connection: this
  // connection is out of step, so the next command opens a fresh one.
  if (!reply) reset_connection();
  co_return reply;
}

}  // namespace locksim::live
