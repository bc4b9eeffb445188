#include "reports/agreement_text.h"

#include <fmt/format.h>

#include "scenario/fencing_modes.h"

namespace locksim::reports {
namespace {

std::string shares(const runner::KindAgreement& entry) {
  return fmt::format("{}/{} live, {}/{} simulated", entry.live_runs_with, entry.live_runs, entry.simulated_runs_with,
                     entry.simulated_runs);
}

std::string mode_line(const std::vector<runner::KindAgreement>& agreement, model::Fencing mode) {
  std::vector<std::string> seen;
  std::vector<std::string> disagreements;
  for (const runner::KindAgreement& entry : agreement) {
    if (entry.mode != mode) continue;
    const std::string_view kind = checker::violation_kind_name(entry.kind);
    if (!entry.agree()) {
      disagreements.push_back(fmt::format("{} {}, p = {:.2g}", kind, shares(entry), entry.p));
    } else if (entry.live_runs_with > 0 || entry.simulated_runs_with > 0) {
      seen.push_back(fmt::format("{} {}", kind, shares(entry)));
    }
  }
  const std::string_view name = scenario::fencing_mode_name(mode);
  if (!disagreements.empty()) return fmt::format("  {}: DISAGREE on {}\n", name, fmt::join(disagreements, "; "));
  if (seen.empty()) return fmt::format("  {}: agree (no violation either way)\n", name);
  return fmt::format("  {}: agree ({})\n", name, fmt::join(seen, "; "));
}

}  // namespace

std::string agreement_to_text(const std::vector<runner::KindAgreement>& agreement) {
  std::string text = fmt::format(
      "live against simulated, runs with each violation (they disagree where Fisher's exact test gives p < {}):\n",
      runner::kDisagreementP);
  std::vector<model::Fencing> modes;
  for (const runner::KindAgreement& entry : agreement) {
    if (modes.empty() || modes.back() != entry.mode) modes.push_back(entry.mode);
  }
  for (const model::Fencing mode : modes) text += mode_line(agreement, mode);
  return text;
}

nlohmann::ordered_json agreement_to_json(const std::vector<runner::KindAgreement>& agreement) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const runner::KindAgreement& entry : agreement) {
    entries.push_back({{"mode", scenario::fencing_mode_name(entry.mode)},
                       {"kind", checker::violation_kind_name(entry.kind)},
                       {"live_runs_with", entry.live_runs_with},
                       {"live_runs", entry.live_runs},
                       {"simulated_runs_with", entry.simulated_runs_with},
                       {"simulated_runs", entry.simulated_runs},
                       {"p", entry.p},
                       {"agree", entry.agree()}});
  }
  return entries;
}

}  // namespace locksim::reports
