#pragma once
// One RESP reply as a value (hiredis parses the protocol; this is its reply
// copied out of hiredis's own structures, so nothing outlives its parser).

#include <cstdint>
#include <string>
#include <vector>

struct redisReply;

namespace locksim::live {

struct RespValue {
  enum class Type : std::uint8_t { kNil, kInteger, kString, kStatus, kError, kArray };
  Type type = Type::kNil;
  std::int64_t integer = 0;
  std::string text;  // a bulk or simple string, a status, an error
  std::vector<RespValue> items;

  [[nodiscard]] bool is_error() const { return type == Type::kError; }
  // items[index] as an integer, or `fallback` when there is none.
  [[nodiscard]] std::int64_t item_integer(std::size_t index, std::int64_t fallback = 0) const;
};

[[nodiscard]] RespValue resp_value(const redisReply& reply);

}  // namespace locksim::live
