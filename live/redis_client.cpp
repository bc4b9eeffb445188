#include "live/redis_client.h"

#include <utility>

#include <fmt/format.h>
#include <hiredis/hiredis.h>

namespace locksim::live {

RedisClient::RedisClient(const std::string& host, int port, int timeout_ms) : where_{fmt::format("{}:{}", host, port)} {
  const timeval timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  context_ = redisConnectWithTimeout(host.c_str(), port, timeout);
  if (context_ == nullptr || context_->err != 0) {
    const std::string why = context_ == nullptr ? "out of memory" : context_->errstr;
    if (context_ != nullptr) redisFree(context_);
    context_ = nullptr;
    throw LiveError(fmt::format("redis at {}: cannot connect: {}", where_, why));
  }
  redisSetTimeout(context_, timeout);
}

RedisClient::~RedisClient() {
  if (context_ != nullptr) redisFree(context_);
}

RedisClient::RedisClient(RedisClient&& other) noexcept
    : where_{std::move(other.where_)}, context_{std::exchange(other.context_, nullptr)} {}

RedisClient& RedisClient::operator=(RedisClient&& other) noexcept {
  if (this != &other) {
    if (context_ != nullptr) redisFree(context_);
    where_ = std::move(other.where_);
    context_ = std::exchange(other.context_, nullptr);
  }
  return *this;
}

RespValue RedisClient::command(const std::vector<std::string>& arguments) {
  std::vector<const char*> pointers;
  std::vector<std::size_t> lengths;
  for (const std::string& argument : arguments) {
    pointers.push_back(argument.data());
    lengths.push_back(argument.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(context_, static_cast<int>(arguments.size()), pointers.data(), lengths.data()));
  if (reply == nullptr) {
    throw LiveError(fmt::format("redis at {}: {} failed: {}", where_, arguments.front(), context_->errstr));
  }
  RespValue value = resp_value(*reply);
  freeReplyObject(reply);
  if (value.is_error()) throw LiveError(fmt::format("redis at {}: {}: {}", where_, arguments.front(), value.text));
  return value;
}

}  // namespace locksim::live
