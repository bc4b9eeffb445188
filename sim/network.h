#pragma once
// The simulated network: decides for each message whether and when it
// arrives.
//
// Delay is drawn per message from a distribution, plus any active delay
// spike on either end; a message may be dropped (probability), duplicated
// (probability; the copy has its own delay), or cut by a partition, which is
// checked when the message is sent and again when it would arrive. A cut
// link holds its messages as TCP does (the sender retransmits them; see
// TcpRetransmission) unless the network is set to drop them. Links are
// FIFO by default, as the TCP connections of real lock clients are: a message
// never overtakes an earlier one on the same (from, to) link — except one
// caught in a delay spike, which later messages may overtake (the sender gave
// up on it; it is still in flight and lands late, hazard H2).
//
// All draws come from the network's own random stream, in send order.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chooser.h"
#include "distribution.h"
#include "message.h"
#include "random.h"
#include "time.h"

namespace locksim::sim {

// What a partition does to a message on a link it cuts.
enum class PartitionEffect {
  kTcpRetransmits,  // held, in order, until the first retransmission after the heal (default)
  kDrop,            // lost, as a datagram would be
};

// How Linux retransmits what a partition swallowed on an open connection:
// the first retransmission after the minimum retransmission timeout
// (TCP_RTO_MIN; a LAN's measured RTO is below it), each next one after
// twice the wait, at most TCP_RTO_MAX; after net.ipv4.tcp_retries2 (15)
// unanswered retransmissions, about 15 minutes, the connection is given up.
struct TcpRetransmission {
  static constexpr Duration kFirstWait = Duration::milliseconds(200);
  static constexpr Duration kLongestWait = Duration::seconds(120);
  static constexpr int kRetransmissionsBeforeGivingUp = 15;
};

struct NetworkOptions {
  Distribution delay = Distribution::constant(Duration::milliseconds(1));  // one-way delay; default 1 ms
  double drop_probability = 0.0;       // chance a message is lost; default 0
  double duplicate_probability = 0.0;  // chance a message arrives twice; default 0
  bool fifo_links = true;              // keep send order per (from, to) link; default on
  PartitionEffect partition_effect = PartitionEffect::kTcpRetransmits;
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
  // (duplicated) two arrival times; or that a TCP partition holds it.
  struct Route {
    std::optional<Time> arrival;
    std::optional<Time> duplicate_arrival;
    bool held = false;  // cut by a partition that holds (kTcpRetransmits)
  };
  [[nodiscard]] Route route(NodeId from, NodeId to, Time now);

  // Messages between a node of `side_a` and one of `side_b`, either way, are
  // held or dropped (options().partition_effect) until heal(). Links within a
  // side are untouched.
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

  // The connection from `from` to `to` that a message sent now travels on.
  // A client whose request timed out gives its connection up and opens a
  // new one (redis-py disconnects on a read timeout; so does the live worker):
  // reconnect() starts a new one both ways, which a TCP partition holds
  // apart from the old one.
  [[nodiscard]] std::uint32_t connection(NodeId from, NodeId to) const {
    return connections_[from.index * node_count_ + to.index];
  }
  void reconnect(NodeId a, NodeId b) {
    ++connections_[a.index * node_count_ + b.index];
    ++connections_[b.index * node_count_ + a.index];
  }

  // From now on every loss, duplicate and delay of a message is asked of
  // `chooser` (sim/chooser.h), the link named by `link_name`.
  void choose_with(Chooser* chooser, std::function<std::string(NodeId from, NodeId to)> link_name) {
    chooser_ = chooser;
    link_namer_ = std::move(link_name);
  }

  // Makes room for the per-link bookkeeping of `count` nodes.
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
  bool chance(NodeId from, NodeId to, double probability, std::string_view what);
  const std::string& link_name(NodeId from, NodeId to);
  bool is_cut_by_a_partition(NodeId from, NodeId to) const;
  Duration spike_delay(NodeId from, NodeId to) const;

  NetworkOptions options_;
  Rng rng_;
  Chooser* chooser_ = nullptr;
  std::function<std::string(NodeId, NodeId)> link_namer_;
  std::vector<std::string> link_names_;  // by from * node_count_ + to, as named
  std::vector<Partition> partitions_;
  std::vector<DelaySpike> spikes_;
  std::uint64_t next_id_ = 1;
  std::size_t node_count_ = 0;
  std::vector<Time> last_arrival_;  // [from * node_count_ + to], for FIFO links
  std::vector<std::uint32_t> connections_;  // [from * node_count_ + to]
};

}  // namespace locksim::sim
