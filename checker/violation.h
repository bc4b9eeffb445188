#pragma once
// Violation: one finding of the checker, with its evidence — the indices of
// the events that show it, the true time it happened and one line a person can
// read ("stale_write at 47.210s: storage accepted qty=6 from worker-1 ...").
// Names are docs/history-format.md's; they are the contract with CI users.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim::checker {

enum class ViolationKind : std::uint8_t {
  kDoubleGrant,
  kDoubleHolder,
  kStaleWrite,
  kForeignRelease,
  kStuckLock,
  kLostUpdate,
  kDuplicateEffect,
  kTokenOrder,
};

// Every kind, in the order reports list them.
inline constexpr std::array kAllViolationKinds = {
    ViolationKind::kDoubleGrant,    ViolationKind::kDoubleHolder, ViolationKind::kStaleWrite,
    ViolationKind::kForeignRelease, ViolationKind::kStuckLock,    ViolationKind::kLostUpdate,
    ViolationKind::kDuplicateEffect, ViolationKind::kTokenOrder,
};

// "double_grant", "stale_write", ...
[[nodiscard]] std::string_view violation_kind_name(ViolationKind kind);

struct Violation {
  ViolationKind kind = ViolationKind::kDoubleGrant;
  std::vector<std::int64_t> events;  // history indices (`i`), ascending
  std::int64_t time_ns = 0;          // true time of the violating event
  std::string detail;                // "<kind> at <t>: <what happened>", one line
  // How many violations this entry stands for: 1, except lost_update, whose
  // one entry per history counts the updates lost (docs/cli.md).
  std::int64_t count = 1;
  // The index of the event at which the checker saw it (for a double holder
  // whose lease had run out, the event that showed it held on): orders the
  // report among violations at one true time.
  std::int64_t detected_at = 0;
  // Which incident it belongs to: the `detected_at` of the incident's first
  // violation. Violations of one kind with the same `incident` are one thing
  // that went wrong, counted once (docs/checker.md, "Incidents"):
  // - double_grant, double_holder: one busy period of a lock (a stretch of
  //   true time in which it was never without a promised lease / a holder)
  //   in which two or more held it at once;
// - token_order: white-box, the grants of one token counter while it runs
//   below its highest token; black-box, each entry is its own;
  // - stale_write: the stale writes of one holder in one holding (one gain);
  // - duplicate_effect: the extra effects of one job;
  // - foreign_release, stuck_lock, lost_update: each entry is its own.
  std::int64_t incident = 0;
};

// Builds a violation: sorts `events`, drops unknown (-1) ones and prefixes
// `what` with "<kind> at <seconds>: ". It is its own incident until the check
// that found it says otherwise.
[[nodiscard]] Violation make_violation(ViolationKind kind, std::vector<std::int64_t> events, std::int64_t time_ns,
                                       std::int64_t detected_at, std::string_view what);

// True time for people: "47.210s" when whole milliseconds, else all nine
// decimals ("47.210000001s"), so two events 1 ns apart never read the same.
[[nodiscard]] std::string format_seconds(std::int64_t time_ns);

}  // namespace locksim::checker
