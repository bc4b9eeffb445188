#pragma once
// The simulated network: decides for each message whether and when it
// arrives.
//
// Delay is drawn per message from a distribution, plus any active delay
// spike on either end; a message may be dropped (probability), duplicated
// (probability; the copy has its own delay), or cut by a partition, which is
// checked when the message is sent and again when it would arrive. Links are
// FIFO by default, as the TCP connections of real lock clients are: a message
// never overtakes an earlier one on the same (from, to) link — except one
// caught in a delay spike, which later messages may overtake (the sender gave
// up on it; it is still in flight and lands late, hazard H2).
//
// All draws come from the network's own random stream, in send order.

#include <cstdint>
#include <optional>
#include <vector>

#include "distribution.h"
#include "message.h"
#include "random.h"
#include "time.h"

namespace locksim::sim {

struct NetworkOptions {
  Distribution delay = Distribution::constant(Duration::milliseconds(1));  // one-way delay; default 1 ms
  double drop_probability = 0.0;       // chance a message is lost; default 0
  double duplicate_probability = 0.0;  // chance a message arrives twice; default 0
  bool fifo_links = true;              // keep send order per (from, to) link; default on
};

struct PartitionId {
  std::uint64_t value = 0;
  auto operator<=>(const PartitionId&) const = default;
};
struct DelaySpikeId {
  std::uint64_t value = 0;
  auto operator<=>(const DelaySpikeId&) const = default;
};

class Network {
 public:
  Network(NetworkOptions options, Rng rng) : options_{std::move(options)}, rng_{rng} {}

  // When the message sent now arrives: nothing if it is lost, else one or
  // (duplicated) two arrival times.
  struct Route {
    std::optional<Time> arrival;
    std::optional<Time> duplicate_arrival;
  };
  [[nodiscard]] Route route(NodeId from, NodeId to, Time now);

  // Messages between a node of `side_a` and one of `side_b`, either way, are
  // dropped until heal(). Links within a side are untouched.
  PartitionId cut(std::vector<NodeId> side_a, std::vector<NodeId> side_b);
  void heal(PartitionId partition);
  // Inline, and quick when nothing is cut: every delivery asks.
  [[nodiscard]] bool is_cut(NodeId from, NodeId to) const {
    return !partitions_.empty() && is_cut_by_a_partition(from, to);
  }

  // Messages sent from or to any of `nodes` (all nodes if empty) take `extra` longer.
  DelaySpikeId add_delay_spike(Duration extra, std::vector<NodeId> nodes);
  void remove_delay_spike(DelaySpikeId spike);

  // Lets a `drop` fault change the loss rate for a while.
  void set_drop_probability(double probability) { options_.drop_probability = probability; }
  [[nodiscard]] const NetworkOptions& options() const { return options_; }

  // Makes room for FIFO bookkeeping of `count` nodes.
  void resize(std::size_t count);

 private:
  struct Partition {
    PartitionId id;
    std::vector<NodeId> side_a;  // sorted
    std::vector<NodeId> side_b;  // sorted
  };
  struct DelaySpike {
    DelaySpikeId id;
    Duration extra;
    std::vector<NodeId> nodes;  // sorted; empty = every node
  };

  // Inline (defined in network.cpp, its only caller): once or twice per message.
  inline Time arrival_time(NodeId from, NodeId to, Time now);
  bool is_cut_by_a_partition(NodeId from, NodeId to) const;
  Duration spike_delay(NodeId from, NodeId to) const;

  NetworkOptions options_;
  Rng rng_;
  std::vector<Partition> partitions_;
  std::vector<DelaySpike> spikes_;
  std::uint64_t next_id_ = 1;
  std::size_t node_count_ = 0;
  std::vector<Time> last_arrival_;  // [from * node_count_ + to], for FIFO links
};

}  // namespace locksim::sim
