#include "live/resp_value.h"

#include <hiredis/hiredis.h>

namespace locksim::live {

std::int64_t RespValue::item_integer(std::size_t index, std::int64_t fallback) const {
  if (index >= items.size() || items[index].type != Type::kInteger) return fallback;
  return items[index].integer;
}

RespValue resp_value(const redisReply& reply) {
  RespValue value;
  switch (reply.type) {
    case REDIS_REPLY_INTEGER:
      value.type = RespValue::Type::kInteger;
      value.integer = reply.integer;
      break;
    case REDIS_REPLY_STRING:
      value.type = RespValue::Type::kString;
      value.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_STATUS:
      value.type = RespValue::Type::kStatus;
      value.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_ERROR:
      value.type = RespValue::Type::kError;
      value.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_ARRAY:
      value.type = RespValue::Type::kArray;
      for (std::size_t index = 0; index < reply.elements; ++index) value.items.push_back(resp_value(*reply.element[index]));
      break;
    default: break;  // nil
  }
  return value;
}

}  // namespace locksim::live
