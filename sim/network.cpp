#include "network.h"

#include <algorithm>

#include "assert.h"

namespace locksim::sim {
namespace {

bool contains(const std::vector<NodeId>& sorted_nodes, NodeId node) {
  return std::binary_search(sorted_nodes.begin(), sorted_nodes.end(), node);
}

std::vector<NodeId> sorted(std::vector<NodeId> nodes) {
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace

Network::Route Network::route(NodeId from, NodeId to, Time now) {
  Route route;
  if (is_cut(from, to)) {
    route.held = options_.partition_effect == PartitionEffect::kTcpRetransmits;
    return route;
  }
  if (options_.drop_probability > 0.0 && chance(from, to, options_.drop_probability, "message lost")) {
    return route;
  }
  route.arrival = arrival_time(from, to, now);
  if (options_.duplicate_probability > 0.0 && chance(from, to, options_.duplicate_probability, "message duplicated")) {
    route.duplicate_arrival = arrival_time(from, to, now);
  }
  return route;
}

const std::string& Network::link_name(NodeId from, NodeId to) {
  // Named once per link: a chooser is asked at every message.
  const std::size_t link = from.index * node_count_ + to.index;
  if (link_names_.size() != node_count_ * node_count_) link_names_.assign(node_count_ * node_count_, std::string{});
  if (link_names_[link].empty()) link_names_[link] = link_namer_(from, to);
  return link_names_[link];
}

bool Network::chance(NodeId from, NodeId to, double probability, std::string_view what) {
  if (chooser_ == nullptr) return rng_.chance(probability);
  return chooser_->choose_chance({what, link_name(from, to), {}}, probability);
}

Time Network::arrival_time(NodeId from, NodeId to, Time now) {
  Time arrival = now + (chooser_ == nullptr ? options_.delay.sample(rng_)
                                            : chooser_->choose_duration({kNetworkDelay, link_name(from, to), {}},
                                                                        options_.delay));
  if (options_.fifo_links) {
    LOCKSIM_ASSERT(from.index < node_count_ && to.index < node_count_, "message between unknown nodes");
    Time& last = last_arrival_[from.index * node_count_ + to.index];
    arrival = std::max(arrival, last);
    last = arrival;
  }
  // A spike's extra delay is added after the FIFO ordering: a message caught
  // in a spike does not hold back later ones (the sender timed out and went
  // on with a new connection; the old request is still somewhere in flight).
  return spikes_.empty() ? arrival : arrival + spike_delay(from, to);
}

Duration Network::spike_delay(NodeId from, NodeId to) const {
  Duration extra;
  for (const DelaySpike& spike : spikes_) {
    if (spike.nodes.empty() || contains(spike.nodes, from) || contains(spike.nodes, to)) {
      extra += spike.extra;
    }
  }
  return extra;
}

PartitionId Network::cut(std::vector<NodeId> side_a, std::vector<NodeId> side_b) {
  const PartitionId id{next_id_++};
  partitions_.push_back(Partition{id, sorted(std::move(side_a)), sorted(std::move(side_b))});
  return id;
}

void Network::heal(PartitionId partition) {
  std::erase_if(partitions_, [partition](const Partition& p) { return p.id == partition; });
}

bool Network::is_cut_by_a_partition(NodeId from, NodeId to) const {
  for (const Partition& partition : partitions_) {
    if ((contains(partition.side_a, from) && contains(partition.side_b, to)) ||
        (contains(partition.side_b, from) && contains(partition.side_a, to))) {
      return true;
    }
  }
  return false;
}

DelaySpikeId Network::add_delay_spike(Duration extra, std::vector<NodeId> nodes) {
  const DelaySpikeId id{next_id_++};
  spikes_.push_back(DelaySpike{id, extra, sorted(std::move(nodes))});
  return id;
}

void Network::remove_delay_spike(DelaySpikeId spike) {
  std::erase_if(spikes_, [spike](const DelaySpike& s) { return s.id == spike; });
}

void Network::resize(std::size_t count) {
  auto resized = [&]<class T>(const std::vector<T>& per_link) {
    std::vector<T> bigger(count * count);
    for (std::size_t from = 0; from < node_count_; ++from) {
      for (std::size_t to = 0; to < node_count_; ++to) {
        bigger[from * count + to] = per_link[from * node_count_ + to];
      }
    }
    return bigger;
  };
  last_arrival_ = resized(last_arrival_);
  connections_ = resized(connections_);
  node_count_ = count;
}

}  // namespace locksim::sim
