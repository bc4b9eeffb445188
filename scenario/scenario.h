#pragma once
// Scenario: one setup to simulate, as a scenario file describes it
// (docs/scenario-format.md) after validation and defaults. Every default lives in
// one place: the default member initializers here and in model/options.h.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "model/fault.h"
#include "model/options.h"
#include "scenario/expectation.h"
#include "scenario/scenario_limits.h"
#include "sim/distribution.h"
#include "sim/network.h"
#include "sim/time.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"

namespace locksim::scenario {

using sim::Distribution;
using sim::Duration;

// The fault kinds and their names: vocabulary/fault_kind.h.
using vocabulary::fault_kind_name;
using vocabulary::FaultKind;

// Whom a fault hits: a node by name, or one node of a group drawn from the seed.
enum class TargetGroup { kNamed, kWorkers, kService, kAny };

struct FaultTarget {
  TargetGroup group = TargetGroup::kNamed;
  std::string node;  // when kNamed
};

// Fires at a true time.
struct AtTime {
  Duration at;
};

enum class TriggerEvent {
  kAfterAcquire,  // the target's nth acquire.ok
  kBeforeWrite,   // the target's nth write.invoke (the write not yet sent)
  kAfterGrant,    // the target service instance's nth lease.grant
  kBeforeReply,   // the target's nth acquire.invoke: the replies are on their way
  kBeforeCharge,  // the target's nth effect.invoke (billing's external charge not yet sent)
};

// The history event of the target that a trigger counts.
[[nodiscard]] constexpr vocabulary::EventKind watched_event(TriggerEvent when) {
  switch (when) {
    case TriggerEvent::kAfterAcquire:
      return vocabulary::EventKind::kAcquireOk;
    case TriggerEvent::kBeforeWrite:
      return vocabulary::EventKind::kWriteInvoke;
    case TriggerEvent::kAfterGrant:
      return vocabulary::EventKind::kLeaseGrant;
    case TriggerEvent::kBeforeReply:
      return vocabulary::EventKind::kAcquireInvoke;
    case TriggerEvent::kBeforeCharge:
      return vocabulary::EventKind::kEffectInvoke;
  }
  return vocabulary::EventKind::kAcquireOk;  // not reached: every trigger is listed
}

// Fires `delay` after the target's nth matching event.
struct OnEvent {
  TriggerEvent when = TriggerEvent::kAfterAcquire;
  int nth = 1;
  Duration delay;
};

// Fires at random times, `per_minute` on average (a Poisson process drawn from the seed).
struct AtRate {
  double per_minute = 1.0;
};

using Trigger = std::variant<AtTime, OnEvent, AtRate>;

struct FaultSpec {
  FaultTarget target;
  Trigger trigger = AtTime{};
  // `for`, for the kinds that take one (model::kTakesLength): drawn per occurrence.
  Distribution length = Distribution::constant(Duration::seconds(1));
  model::FaultParams params;  // its kind, and the keys of its own (model/fault.h)

  [[nodiscard]] FaultKind kind() const { return model::fault_kind_of(params); }
};

// The stuck_lock threshold when the file gives none: 10 × the lease, or one
// minute without a lease. The one place this default is decided; the runner
// passes it on to the checker through run.begin.
[[nodiscard]] inline Duration default_stuck_after(std::optional<Duration> lease) {
  return lease ? *lease * 10 : Duration::minutes(1);
}

// The scenario format version this binary reads and documents: 2 (locksim
// 0.2.0); 1 = before 0.2.0. A file's `format_version` above this is refused.
inline constexpr int kCurrentFormatVersion = 2;

// A setting that is allowed but cannot work as the file probably intends
// (a renewal slower than the lease, a lease shorter than a round trip): the
// CLI prints these as "FILE: warning: POINTER: message" (see setting_warnings.h).
struct SettingWarning {
  std::string pointer;  // the JSON pointer of the setting, e.g. "/workers/renew_every"
  std::string message;  // what is wrong and what follows from it

  friend bool operator==(const SettingWarning&, const SettingWarning&) = default;
};

// One deviation of a run `locksim verify` found: the choice point at
// `position` (in the order the run meets them) takes value `index` of its
// domain; `site` names the point, so a file from another model is refused.
struct ScriptedChoice {
  std::size_t position = 0;
  std::uint32_t index = 0;
  std::string site;
};

// A counterexample of `locksim verify`, as its file keeps it (`choices`):
// the bounds its domains were made under and its deviations. `replay` runs
// it exactly; every other choice takes its default.
struct ChoiceScript {
  int anchors = 2;
  int extra_faults = 0;  // --faults
  bool wide_domain = false;
  std::vector<ScriptedChoice> deviations;
};

struct Scenario {
  int format_version = kCurrentFormatVersion;  // the scenario format the file was written for
  std::string name;
  std::string description;
  std::string file;                     // where it was read from ("" if built in memory)
  std::uint64_t content_hash = 0;       // of the file's bytes (scenarios/content_hash.h); 0 if built in memory
  bool lease_given_as_number = false;   // "lease": 45 — a bare number is milliseconds (a warning checks the unit)
  Duration duration = Duration::minutes(10);  // virtual time limit of one run; default 10 min
  // Scheduler events one run may process (not a file key): a run that reaches
  // it is stopped short. Default kMostEventsPerRun; tests and fuzzers lower it.
  std::uint64_t event_limit = kMostEventsPerRun;
  int seeds = 100;                      // default seed count for `run`; default 100
  std::optional<std::uint64_t> first_seed;  // default first seed for `run`/`replay` (a saved plan's seed); else 1
  std::optional<ChoiceScript> choices;      // a verify counterexample: replayed by its choices, not by a seed
  model::SystemOptions system;
  // workers.command: the user's own worker program, run by `locksim live`
  // in place of its own worker (docs/live.md); empty = locksim's. The
  // simulator ignores it: it simulates the client the workers.* keys describe.
  std::vector<std::string> worker_command;
  std::vector<model::Fencing> fencing_modes{model::Fencing::kOff};  // storage.fencing (compare: off, on); default off
  sim::NetworkOptions network;          // default: 1 ms delay, no loss
  std::int64_t drift_ppm = 0;           // clocks: each node drifts in ±drift_ppm; default 0
  std::vector<FaultSpec> faults;
  bool swarm = false;                   // each seed enables a random subset of the faults
  bool allow_inert = false;             // extension: a fault that never fires is intended
  std::vector<std::string> probes_required;  // extension: hazard probes that must be reached
  std::vector<Expectation> expect;
  std::vector<SettingWarning> warnings;  // filled by the parser from setting_warnings(); printed by the CLI
};

}  // namespace locksim::scenario
