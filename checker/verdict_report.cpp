#include "checker/verdict_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "text/terminal_escape.h"

namespace locksim::checker {
namespace {

// Insertion-ordered, so the document reads in the order the contract lists.
using Json = nlohmann::ordered_json;

Json verdict_json(const HistoryVerdict& verdict) {
  Json history;
  history["file"] = verdict.file;
  history["events"] = verdict.events;
  history["complete"] = verdict.complete;
  history["judged"] = verdict.judged();
  history["notes"] = verdict.notes;
  Json run = Json::array();
  for (const ViolationKind kind : verdict.checks_run) {
    run.push_back(violation_kind_name(kind));
  }
  history["checks_run"] = std::move(run);
  Json skipped = Json::array();
  for (const CheckSkip& skip : verdict.checks_skipped) {
    skipped.push_back(Json{{"check", violation_kind_name(skip.check)}, {"why", skip.why}});
  }
  history["checks_skipped"] = std::move(skipped);
  if (!verdict.stale_write_mode.empty()) {
    history["stale_write_mode"] = verdict.stale_write_mode;
  }
  Json violations = Json::array();
  for (const Violation& violation : verdict.violations) {
    Json entry{{"kind", violation_kind_name(violation.kind)},
               {"events", violation.events},
               {"t", violation.time_ns},
               {"detail", violation.detail},
               {"incident", violation.incident}};
    if (violation.kind == ViolationKind::kLostUpdate) {
      entry["count"] = violation.count;
    }
    violations.push_back(std::move(entry));
  }
  history["violations"] = std::move(violations);
  Json counts_by_kind = Json::object();
  for (const ViolationKind kind : kAllViolationKinds) {
    const auto count = verdict.violation_count(kind);
    counts_by_kind[std::string{violation_kind_name(kind)}] = count ? Json(*count) : Json(nullptr);
  }
  history["violation_counts"] = std::move(counts_by_kind);
  Json incidents_by_kind = Json::object();
  for (const ViolationKind kind : kAllViolationKinds) {
    const auto count = verdict.incident_count(kind);
    incidents_by_kind[std::string{violation_kind_name(kind)}] = count ? Json(*count) : Json(nullptr);
  }
  history["incident_counts"] = std::move(incidents_by_kind);
  history["counts"] = Json{{"acquisitions", verdict.counts.acquisitions},
                           {"accepted_writes", verdict.counts.accepted_writes},
                           {"rejected_writes", verdict.counts.rejected_writes},
                           {"late_writes", verdict.counts.late_writes}};
  Json by_reason = Json::object();
  for (const auto& [reason, count] : verdict.counts.rejected_writes_by_reason) {
    by_reason[reason] = count;
  }
  history["rejected_writes_by_reason"] = std::move(by_reason);
  return history;
}

}  // namespace

std::string verdicts_json(const std::vector<HistoryVerdict>& verdicts) {
  Json document;
  Json histories = Json::array();
  bool ok = true;
  for (const HistoryVerdict& verdict : verdicts) {
    histories.push_back(verdict_json(verdict));
    ok = ok && verdict.ok() && verdict.judged();
  }
  document["histories"] = std::move(histories);
  document["ok"] = ok;
  return document.dump(2) + "\n";
}

std::string verdict_text(const HistoryVerdict& verdict, std::size_t violations_shown) {
  // Procs, keys and owners come from the history, which may be anyone's: each
  // piece is escaped on its own, so a line break in a name cannot start a line.
  const auto shown = [](std::string_view piece) { return text::terminal_escaped(piece); };
  std::string text = fmt::format("{}: {} events, {}\n", shown(verdict.file), verdict.events,
                                 !verdict.judged() ? "nothing judged (every check was skipped)"
                                 : verdict.ok()    ? "no violation"
                                                   : fmt::format("{} violation{}", verdict.violations.size(),
                                                                 verdict.violations.size() == 1 ? "" : "s"));
  for (const std::string& note : verdict.notes) {
    text += fmt::format("  note: {}\n", shown(note));
  }
  for (const CheckSkip& skip : verdict.checks_skipped) {
    text += fmt::format("  not checked: {:<17} {}\n", violation_kind_name(skip.check), shown(skip.why));
  }
  for (const ViolationKind kind : verdict.checks_run) {
    const std::int64_t count = verdict.violation_count(kind).value_or(0);
    const std::int64_t incidents = verdict.incident_count(kind).value_or(0);
    text += fmt::format("  {:<17} {}{}\n", violation_kind_name(kind), count,
                        incidents == count ? "" : fmt::format(" in {} incident{}", incidents, incidents == 1 ? "" : "s"));
  }
  text += fmt::format("  counts: {} acquisitions, {} accepted writes ({} late), {} rejected writes",
                      verdict.counts.acquisitions, verdict.counts.accepted_writes, verdict.counts.late_writes,
                      verdict.counts.rejected_writes);
  if (!verdict.counts.rejected_writes_by_reason.empty()) {
    std::string reasons;
    for (const auto& [reason, count] : verdict.counts.rejected_writes_by_reason) {
      reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", count, shown(reason));
    }
    text += fmt::format(" ({})", reasons);
  }
  text += "\n";
  const std::size_t listed = std::min(violations_shown, verdict.violations.size());
  for (std::size_t position = 0; position < listed; ++position) {
    const Violation& violation = verdict.violations[position];
    text += fmt::format("  - {} [events {}]\n", shown(violation.detail), fmt::join(violation.events, ", "));
  }
  if (listed < verdict.violations.size()) {
    text += fmt::format("  ... and {} more (--json FILE lists them all)\n", verdict.violations.size() - listed);
  }
  return text;
}

}  // namespace locksim::checker
