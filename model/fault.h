#pragma once
// A fault's parameters, one type per fault kind: what its scenario-file
// entry fixes beyond its kind, target and trigger. Each type says its kind,
// the keys it takes (`for` among them when it has a length, which the plan
// draws per occurrence), its line of the scenario format's fault table and
// the numbers its `fault.begin` records — so the parser, saved plans, the
// nemesis and live mode all read one definition, and a new kind is one new
// type here that each of them is made to handle by the compiler.
//
// `Node` is how a fault names nodes: by name in a scenario and a plan, by
// sim::NodeId once the plan is bound to a running system (only a partition
// names nodes of its own).

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/options.h"
#include "sim/message.h"
#include "sim/time.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"

namespace locksim::model {

// One number a fault.begin records beside its kind and target.
struct FaultNumber {
  std::string_view field;
  std::int64_t value = 0;
  bool is_duration = false;  // nanoseconds, scaled live
};

// A kind's line of the fault table in docs/scenario-format.md.
struct FaultTableRow {
  std::string_view parameters;
  std::string_view effect;
};

namespace faults {

struct Pause {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kPause;
  static constexpr std::array<std::string_view, 1> kKeys{"for"};
  static constexpr FaultTableRow kRow{"`for` (required)",
                                      "nothing the node does or receives is processed; held-back work replays in order "
                                      "at resume (a GC pause, a VM stall)"};
  [[nodiscard]] std::array<FaultNumber, 0> numbers() const { return {}; }
};

struct Crash {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kCrash;
  static constexpr std::array<std::string_view, 1> kKeys{"restart_after"};
  static constexpr FaultTableRow kRow{"`restart_after` (optional; without it the node stays down)",
                                      "frames, timers, inbox and pending calls are dropped; a Redis instance restarts "
                                      "with what `persistence` kept"};
  std::optional<sim::Duration> restart_after;  // none: it stays down
  [[nodiscard]] std::array<FaultNumber, 0> numbers() const { return {}; }
};

struct ClockJump {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kClockJump;
  static constexpr std::array<std::string_view, 1> kKeys{"by"};
  static constexpr FaultTableRow kRow{"`by` (required, may be negative)", "the target's own clock jumps"};
  sim::Duration by;
  [[nodiscard]] std::array<FaultNumber, 1> numbers() const { return {{{vocabulary::field::kByNs, by.count_ns(), true}}}; }
};

struct ClockDrift {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kClockDrift;
  static constexpr std::array<std::string_view, 1> kKeys{"ppm"};
  static constexpr FaultTableRow kRow{"`ppm` (required)", "the target's clock runs at a new rate"};
  std::int64_t ppm = 0;
  [[nodiscard]] std::array<FaultNumber, 1> numbers() const { return {{{vocabulary::field::kPpm, ppm, false}}}; }
};

template <class Node>
struct PartitionOf {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kPartition;
  static constexpr std::array<std::string_view, 2> kKeys{"between", "for"};
  static constexpr FaultTableRow kRow{"`between` (two lists of node names), `for`",
                                      "messages across wait for the first TCP retransmission after the heal "
                                      "(`network.partitions` `drop`: are lost); no `target` needed"};
  std::vector<Node> side_a;
  std::vector<Node> side_b;
  [[nodiscard]] std::array<FaultNumber, 0> numbers() const { return {}; }  // `between` is the shell's: node names
};

struct Failover {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kFailover;
  static constexpr std::array<std::string_view, 3> kKeys{"primary", "with_primary", "for"};
  static constexpr FaultTableRow kRow{
      "`primary` (`crash`, default, or `partition`), with `partition` also `with_primary` (the workers left with the "
      "old primary) and `for`",
      "`redis-failover` only: the primary crashes (or is cut off with `with_primary`: a split brain for `for`) and "
      "Sentinel fails it over as any unreachable primary (docs/models.md); no `target` needed"};
  FailoverPrimary primary = FailoverPrimary::kCrash;
  std::vector<std::string> with_primary{"worker-1"};  // partition: the workers on the old primary's side
  [[nodiscard]] std::array<FaultNumber, 0> numbers() const { return {}; }
};

struct DelaySpike {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kDelaySpike;
  static constexpr std::array<std::string_view, 2> kKeys{"extra", "for"};
  static constexpr FaultTableRow kRow{"`extra`, `for`", "the target's messages take `extra` longer"};
  sim::Duration extra;
  [[nodiscard]] std::array<FaultNumber, 1> numbers() const {
    return {{{vocabulary::field::kExtraNs, extra.count_ns(), true}}};
  }
};

struct StarveRenewal {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kStarveRenewal;
  static constexpr std::array<std::string_view, 1> kKeys{"for"};
  static constexpr FaultTableRow kRow{"`for`", "the target worker's renewal process alone is frozen"};
  [[nodiscard]] std::array<FaultNumber, 0> numbers() const { return {}; }
};

struct PowerLoss {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kPowerLoss;
  static constexpr std::array<std::string_view, 1> kKeys{"restart_after"};
  static constexpr FaultTableRow kRow{"`restart_after` (optional)",
                                      "the machine crashes: as `crash`, and a Redis instance also loses what it had "
                                      "not fsynced (`persistence` `everysec`: the writes since its last fsync, at "
                                      "most about a second's)"};
  std::optional<sim::Duration> restart_after;
  [[nodiscard]] std::array<FaultNumber, 0> numbers() const { return {}; }
};

struct MemoryPressure {
  static constexpr vocabulary::FaultKind kKind = vocabulary::FaultKind::kMemoryPressure;
  static constexpr std::array<std::string_view, 2> kKeys{"evict", "for"};
  static constexpr FaultTableRow kRow{
      "`evict` (keys, default 1), `for` (optional, default 0s)",
      "a Redis primary must free that many keys' room at once; its `maxmemory_policy` picks them (`noeviction`: "
      "none). If it freed fewer, it stays over `maxmemory` for `for`: every acquire (SET, INCR) answers -OOM, "
      "while release and renewal (DEL, PEXPIRE) still run"};
  int evict = 1;  // keys to free room for
  [[nodiscard]] std::array<FaultNumber, 1> numbers() const {
    return {{{vocabulary::field::kEvict, std::int64_t{evict}, false}}};
  }
};

using Partition = PartitionOf<std::string>;

}  // namespace faults

// In FaultKind order: a fault's kind is its alternative's index.
template <class Node>
using FaultParamsOf = std::variant<faults::Pause, faults::Crash, faults::ClockJump, faults::ClockDrift,
                                   faults::PartitionOf<Node>, faults::Failover, faults::DelaySpike,
                                   faults::StarveRenewal, faults::PowerLoss, faults::MemoryPressure>;
using FaultParams = FaultParamsOf<std::string>;  // as a scenario and a plan name nodes

template <class Node>
[[nodiscard]] constexpr vocabulary::FaultKind fault_kind_of(const FaultParamsOf<Node>& params) {
  return static_cast<vocabulary::FaultKind>(params.index());
}

// Whether faults of this kind take a `for` (a failover only with its primary cut off).
template <class Params>
inline constexpr bool kTakesLength = std::ranges::find(Params::kKeys, std::string_view{"for"}) != Params::kKeys.end();

template <class Node>
[[nodiscard]] bool takes_length(const FaultParamsOf<Node>& params) {
  return std::visit([](const auto& kind) { return kTakesLength<std::decay_t<decltype(kind)>>; }, params);
}

// The default parameters of `kind` (what a file that gives none of its keys means).
[[nodiscard]] FaultParams default_fault_params(vocabulary::FaultKind kind);

// One planned fault bound to a running system: its target and a partition's sides are nodes.
struct BoundFault {
  std::optional<sim::NodeId> target;  // none for an untargeted partition or failover
  sim::Duration length;               // `for`, drawn by the plan (unused by a kind without one)
  FaultParamsOf<sim::NodeId> params;
  bool at_leader = false;  // `consensus-leader`: the target is whoever leads when the fault strikes
};

}  // namespace locksim::model
