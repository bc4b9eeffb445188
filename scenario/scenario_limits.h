#pragma once
// The limits on what a scenario file may ask for, beyond each key's own range
// (those are in scenario_reference.cpp). They exist so that no file, however
// written, makes a run hang, run out of memory or compute a time that does
// not fit in 64 bits: past one, the parser refuses the file with the JSON
// path and the limit (exit 2). docs/scenario-format.md ("Limits") lists them
// for users; tests/data/bad-scenarios has a file past each.

#include <cstddef>
#include <cstdint>

#include "sim/time.h"

namespace locksim::scenario {

// Every duration a file writes, and every distribution parameter, is at most
// this long (a clock-jump's `by` at least its negative). A year is far beyond
// any lease, pause or run a person means, and it keeps every derived time —
// stuck_after = 10 × lease, a deadline of now + lease + a drifted clock's
// offset — well inside 64-bit nanoseconds (about 292 years).
inline constexpr sim::Duration kLongestDuration = sim::Duration::seconds(365LL * 24 * 3600);
inline constexpr const char* kLongestDurationText = "8760h (365 days)";

// How many entries `faults` may list.
inline constexpr std::size_t kMostFaultEntries = 1'000;

// How many fault occurrences the rate-triggered faults of one run may plan
// together, on average (each `rate` × the run's `duration`). A Poisson draw may
// exceed its mean a little; the plan stops adding occurrences at
// kMostPlannedOccurrences, which no mean within the limit reaches in practice.
inline constexpr double kMostExpectedRateOccurrences = 10'000;
inline constexpr std::size_t kMostPlannedOccurrences = 20'000;

// How many scheduler events one run may process before it stops: a run that
// reaches it is reported as stopped short ("event limit of … events
// reached"), never left to run for hours or to fill memory with its history.
inline constexpr std::uint64_t kMostEventsPerRun = 2'000'000;

// The longest a name or key may be (`name`, `lock.name`, `workload.key`,
// `probes_required` entries), in bytes: each is repeated on many history
// lines and in every report.
inline constexpr std::size_t kLongestName = 200;
// The longest `description`, in bytes.
inline constexpr std::size_t kLongestDescription = 4'000;

// A verify counterexample's choice positions (`choices`): replay makes a
// script as long as the last one before it runs, so a position is bounded
// (4 MB of script) far above what a run meets (h01: 140 points).
inline constexpr std::int64_t kLastChoicePosition = 1'000'000;

// workers.command: at most this many words, each at most this many bytes.
inline constexpr std::size_t kMostCommandWords = 64;
inline constexpr std::size_t kLongestCommandWord = 4'096;

// The largest scenario file read, in bytes, and how deeply its JSON may nest.
inline constexpr std::size_t kLargestScenarioFile = std::size_t{4} << 20;
inline constexpr int kDeepestNesting = 64;

}  // namespace locksim::scenario
