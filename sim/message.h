#pragma once
// Node identities and the messages nodes exchange through the network.

#include <compare>
#include <cstdint>

#include "payload.h"

namespace locksim::sim {

// A node's index in the simulation, in the order nodes were added.
struct NodeId {
  std::uint32_t index = 0;
  auto operator<=>(const NodeId&) const = default;
};

enum class MessageKind : std::uint8_t {
  kRequest,  // goes to the destination's inbox (receive())
  kReply,    // goes to the process whose call() it answers
};

struct Message {
  NodeId from;
  NodeId to;
  std::uint64_t call_id = 0;  // non-zero for a call's request and its reply
  MessageKind kind = MessageKind::kRequest;
  std::uint32_t connection = 0;  // which of the (from, to) pair's connections carries it (Network::connection)
  Payload body;
};

}  // namespace locksim::sim
