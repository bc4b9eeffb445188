#pragma once
// The chooser one verified run is made with: it answers the n-th choice
// point of the run with the n-th index of its script (the default, index 0,
// past the script's end) and records every choice point it met, with its
// domain's size, so the enumerator can find the run's neighbours.
//
// Choice points are classes of draws: the draws of one site (what, subject)
// within one lease epoch — between one acquire.ok in the run and the next —
// share one choice, so a worker's retries while it waits, or the messages on
// one link while one holder holds, move together. The first draw of a class
// is its choice point; the class's later draws repeat its value.
//
// A message's delay to storage may also land just before or just after
// another worker's next storage access. That access lies ahead of the draw,
// so it is read from the run made without the deviation (verify/landing.h)
// and given to the chooser as the script's landings.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/chooser.h"
#include "sim/simulation.h"
#include "verify/choice_domain.h"

namespace locksim::verify {

// A message's delay to storage, as its choice point met it: what a landing
// needs (verify/landing.h).
struct DelayToStorage {
  std::string sender;
  sim::Distribution distribution;
};

// One choice point as a run met it.
struct ChoicePoint {
  std::string_view what;  // the draw site's literal: "workers.work"
  std::string subject;    // "worker-1"
  std::int64_t epoch = 0;
  std::uint32_t domain_size = 1;
  std::uint32_t index = 0;   // 0: the default
  std::string chosen;        // the value and why, for people: "10.001s (the lease left + 1ms)"
  std::string default_text;  // the default's: "1.05s (median)"
  sim::Time at;              // when it was drawn
  std::optional<DelayToStorage> to_storage;

  // "workers.work of worker-1, epoch 2": made only when a person or a file needs it.
  [[nodiscard]] std::string site() const;
};

// A storage access (read or write, accepted or not) as the run recorded it.
struct StorageAccess {
  sim::Time at;
  std::string worker;
};

// The landings a script's deviations use, by position.
using Landings = std::map<std::size_t, Landing>;

class ScriptedChooser : public sim::Chooser {
 public:
  ScriptedChooser(std::vector<std::uint32_t> script, DomainOptions options, Landings landings = {});

  void attach(sim::Simulation& simulation) override;
  sim::Duration choose_duration(const sim::DrawSite& site, const sim::Distribution& distribution) override;
  std::uint64_t choose_below(const sim::DrawSite& site, std::uint64_t bound) override;
  bool choose_chance(const sim::DrawSite& site, double probability) override;

  // Plan-time choices (before the run): every value of [0, bound) is a different story.
  std::uint64_t choose_every(const sim::DrawSite& site, std::uint64_t bound, const std::vector<std::string>& names);

  // What the run met, handed over once it ended (the chooser is spent).
  [[nodiscard]] std::vector<ChoicePoint> take_points() { return std::move(points_); }
  [[nodiscard]] std::vector<StorageAccess> take_storage_accesses() { return std::move(storage_accesses_); }

 private:
  // A class of draws of the current epoch (see above). The lookup comes
  // at every message's delay, and an epoch has a few dozen classes: a short
  // list, searched without building a string, emptied as an epoch begins.
  struct Chosen {
    std::string_view what;  // the sites' own literals: they outlive the chooser
    std::string subject;
    std::int64_t value = 0;  // a duration in ns, an integer or a flag
  };

  // The index for the next choice point, whose domain has `size` values; records it.
  std::uint32_t next_index(const sim::DrawSite& site, std::uint32_t size);
  // The value already chosen for the site's class, if any.
  [[nodiscard]] std::optional<std::int64_t> known(const sim::DrawSite& site) const;
  void remember(const sim::DrawSite& site, std::int64_t value);
  [[nodiscard]] std::optional<sim::Duration> lease_left(std::string_view node) const;
  void follow(std::string_view proc, vocabulary::EventKind event, std::span<const sim::Field> fields);

  std::vector<std::uint32_t> script_;
  DomainOptions options_;
  Landings landings_;
  std::vector<ChoicePoint> points_;
  std::vector<StorageAccess> storage_accesses_;
  std::vector<Chosen> chosen_;  // the current epoch's classes
  const sim::Simulation* simulation_ = nullptr;
  std::int64_t epoch_ = 0;  // acquire.ok lines so far
  std::map<std::string, sim::Time> lease_ends_;  // by owner: when the service's lease ends (grant or renewal + lease)
  std::string last_owner_;  // granted last
};

}  // namespace locksim::verify
