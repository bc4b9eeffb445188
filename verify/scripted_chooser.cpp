#include "verify/scripted_chooser.h"

#include <algorithm>

#include <fmt/core.h>

#include "sim/duration_text.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"

namespace locksim::verify {
namespace {

namespace field = vocabulary::field;
using vocabulary::EventKind;

std::string_view text_of(std::span<const sim::Field> fields, std::string_view key) {
  for (const sim::Field& f : fields) {
    if (f.key == key) {
      if (const auto* text = std::get_if<std::string_view>(&f.value)) return *text;
    }
  }
  return {};
}

std::optional<std::int64_t> number_of(std::span<const sim::Field> fields, std::string_view key) {
  for (const sim::Field& f : fields) {
    if (f.key == key) {
      if (const auto* number = std::get_if<std::int64_t>(&f.value)) return *number;
    }
  }
  return std::nullopt;
}

// The sending node of a message delay's link "worker-1>storage" (sim/chooser.h
// names links "from>to"); empty for any other draw.
std::string_view sender_to_storage(const sim::DrawSite& site) {
  constexpr std::string_view kStorage = vocabulary::proc::kStorage;
  if (site.what != sim::kNetworkDelay || !site.subject.ends_with(kStorage)) return {};
  const std::string_view from = site.subject.substr(0, site.subject.size() - kStorage.size());
  return from.ends_with('>') ? from.substr(0, from.size() - 1) : std::string_view{};
}

std::string described(const DurationValue& value, const std::optional<Landing>& landing) {
  return fmt::format("{} ({})", sim::format_duration(value.value), why_text(value.reason, landing));
}

}  // namespace

std::string ChoicePoint::site() const { return fmt::format("{} of {}, epoch {}", what, subject, epoch); }

ScriptedChooser::ScriptedChooser(std::vector<std::uint32_t> script, DomainOptions options, Landings landings)
    : script_{std::move(script)}, options_{options}, landings_{std::move(landings)} {}

void ScriptedChooser::attach(sim::Simulation& simulation) {
  simulation_ = &simulation;
  simulation.observe([this](std::string_view proc, EventKind event, std::span<const sim::Field> fields) {
    follow(proc, event, fields);
  });
}

void ScriptedChooser::follow(std::string_view /*proc*/, EventKind event, std::span<const sim::Field> fields) {
  switch (event) {
    case EventKind::kAcquireOk:
      ++epoch_;
      chosen_.clear();
      return;
    case EventKind::kLeaseGrant:
    case EventKind::kLeaseRenew: {
      const std::optional<std::int64_t> lease_ns = number_of(fields, field::kLeaseNs);
      if (!lease_ns) return;  // a lock without a lease
      const std::string owner{text_of(fields, field::kOwner)};
      lease_ends_[owner] = simulation_->now() + sim::Duration::nanoseconds(*lease_ns);
      if (event == EventKind::kLeaseGrant) last_owner_ = owner;
      return;
    }
    case EventKind::kWriteAccept:
    case EventKind::kWriteReject:
      storage_accesses_.push_back({simulation_->now(), std::string{text_of(fields, field::kWriter)}});
      return;
    case EventKind::kReadAccept:
    case EventKind::kReadReject:
      storage_accesses_.push_back({simulation_->now(), std::string{text_of(fields, field::kReader)}});
      return;
    case EventKind::kLeaseExpire:
    case EventKind::kLeaseRelease:
    case EventKind::kLeaseLost:
      lease_ends_.erase(std::string{text_of(fields, field::kOwner)});
      return;
    default:
      return;
  }
}

std::optional<sim::Duration> ScriptedChooser::lease_left(std::string_view node) const {
  if (simulation_ == nullptr) return std::nullopt;  // before the run
  auto found = lease_ends_.find(std::string{node});
  if (found == lease_ends_.end()) found = lease_ends_.find(last_owner_);
  if (found == lease_ends_.end()) return std::nullopt;
  return found->second - simulation_->now();
}

std::optional<std::int64_t> ScriptedChooser::known(const sim::DrawSite& site) const {
  const auto found = std::find_if(chosen_.begin(), chosen_.end(), [&](const Chosen& chosen) {
    return chosen.what == site.what && chosen.subject == site.subject;
  });
  return found == chosen_.end() ? std::nullopt : std::optional{found->value};
}

void ScriptedChooser::remember(const sim::DrawSite& site, std::int64_t value) {
  chosen_.push_back({site.what, std::string{site.subject}, value});
}

std::uint32_t ScriptedChooser::next_index(const sim::DrawSite& site, std::uint32_t size) {
  const std::size_t position = points_.size();
  const std::uint32_t index = position < script_.size() ? script_[position] : 0;
  // A script is a prefix of a run already made with the same domains (the
  // run is deterministic), so its index is in range; a file's that is not
  // is caught by check_sites.
  points_.push_back({site.what, std::string{site.subject}, epoch_, size, index < size ? index : 0, {}, {},
                     simulation_ == nullptr ? sim::Time{} : simulation_->now(), std::nullopt});
  return points_.back().index;
}

sim::Duration ScriptedChooser::choose_duration(const sim::DrawSite& site, const sim::Distribution& distribution) {
  if (const std::optional<std::int64_t> value = known(site)) return sim::Duration::nanoseconds(*value);
  const std::optional<sim::Duration> left = site.lease_of.empty() ? std::nullopt : lease_left(site.lease_of);
  const std::string_view sender = sender_to_storage(site);
  const auto found = sender.empty() ? landings_.end() : landings_.find(points_.size());
  const std::optional<Landing> landing = found == landings_.end() ? std::nullopt : std::optional{found->second};
  const std::vector<DurationValue> domain = duration_domain(distribution, left, options_, landing);
  const std::uint32_t index = next_index(site, static_cast<std::uint32_t>(domain.size()));
  if (!sender.empty()) points_.back().to_storage = DelayToStorage{std::string{sender}, distribution};
  if (index != 0) {
    points_.back().chosen = described(domain[index], landing);
    points_.back().default_text = described(domain[0], landing);
  }
  remember(site, domain[index].value.count_ns());
  return domain[index].value;
}

std::uint64_t ScriptedChooser::choose_below(const sim::DrawSite& site, std::uint64_t bound) {
  if (const std::optional<std::int64_t> value = known(site)) return static_cast<std::uint64_t>(*value);
  const std::vector<std::uint64_t> domain = below_domain(bound, false);
  const std::uint32_t index = next_index(site, static_cast<std::uint32_t>(domain.size()));
  if (index != 0) {
    points_.back().chosen = fmt::format("{} of 0–{}", domain[index], bound - 1);
    points_.back().default_text = fmt::format("{} (median)", domain[0]);
  }
  remember(site, static_cast<std::int64_t>(domain[index]));
  return domain[index];
}

bool ScriptedChooser::choose_chance(const sim::DrawSite& site, double probability) {
  if (const std::optional<std::int64_t> value = known(site)) return *value != 0;
  const std::vector<bool> domain = chance_domain(probability);
  const std::uint32_t index = next_index(site, static_cast<std::uint32_t>(domain.size()));
  if (index != 0) {
    points_.back().chosen = fmt::format("{} (probability {})", domain[index] ? "yes" : "no", probability);
    points_.back().default_text = domain[0] ? "yes" : "no";
  }
  remember(site, domain[index] ? 1 : 0);
  return domain[index];
}

std::uint64_t ScriptedChooser::choose_every(const sim::DrawSite& site, std::uint64_t bound,
                                            const std::vector<std::string>& names) {
  const std::uint32_t index = next_index(site, static_cast<std::uint32_t>(bound));
  if (index != 0) {
    points_.back().chosen = names.at(index);
    points_.back().default_text = names.at(0);
  }
  return index;
}

}  // namespace locksim::verify
