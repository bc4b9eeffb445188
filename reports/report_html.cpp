#include "reports/report_html.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "locksim/version.h"
#include "reports/advice_text.h"
#include "reports/counterexample_story.h"
#include "reports/fencing_lesson.h"
#include "reports/rate_plot.h"
#include "reports/readable_duration.h"
#include "reports/svg_document.h"
#include "reports/terminal_table.h"
#include "reports/timeline_svg.h"
#include "scenario/fencing_modes.h"
#include "sim/duration_text.h"

namespace locksim::reports {
namespace {

using checker::ViolationKind;

std::string escaped(std::string_view text) { return xml_escaped(text); }

// What each kind means, for the pages' legends (docs/checker.md has the rules).
std::string_view violation_meaning(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::kDoubleGrant: return "the lock service promised the lock to two owners at once";
    case ViolationKind::kDoubleHolder: return "two workers acted as the lock's holder at once";
    case ViolationKind::kStaleWrite: return "storage accepted a write out of lock order, after it had served a later holder";
    case ViolationKind::kForeignRelease: return "a worker's release removed another owner's lease";
    case ViolationKind::kStuckLock: return "a lease outlived its useful holder by more than stuck_after while others waited";
    case ViolationKind::kLostUpdate: return "accepted counter updates that the final value does not contain";
    case ViolationKind::kDuplicateEffect: return "one job's effect (a charge, a write) was accepted more than once";
    case ViolationKind::kTokenOrder: return "a fencing token was handed out twice, or lower than one handed out before";
  }
  return "";
}

constexpr std::string_view kStyle = R"(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: #1a1a1a; max-width: 1040px; margin: 1.5em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
p.lead { font-size: 1.1em; }
nav { font-size: 0.9em; margin-bottom: 1em; }
a { color: #1f5fa8; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
table.suite { font-size: 0.85em; }
table.suite td:first-child { white-space: nowrap; }
th, td { border: 1px solid #d6d6d6; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f2f4f7; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
td.bad { color: #b01d1e; font-weight: bold; }
td.zero { color: #8a8a8a; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.88em; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; padding: 0.6em 0.8em; overflow-x: auto; white-space: pre-wrap; }
.critical { border-left: 4px solid #1d3557; background: #eef2f8; padding: 0.5em 0.8em; }
.picture { margin: 0.4em 0 0.2em; }
.picture svg { width: 100%; height: auto; border: 1px solid #e3e3e3; }
.status-failed { color: #b01d1e; font-weight: bold; }
.status-reproduced { color: #8a5a00; }
.status-passed { color: #2b7a2b; }
ul.lessons { margin: 0.3em 0 0.8em; }
dl.takeaways dt { font-weight: bold; margin-top: 0.9em; }
dl.takeaways dd { margin-left: 1.2em; }
footer { margin-top: 3em; font-size: 0.85em; color: #666; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  nav { display: none; }
  .picture { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  a { color: inherit; text-decoration: none; }
}
)";

std::string page_head(std::string_view title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>{}</title>\n<style>{}</style>\n"
      "</head>\n<body>\n",
      escaped(title), kStyle);
}

std::string page_foot() {
  return fmt::format("<footer>Written by locksim {}. Every count on this page was measured by running the scenario; "
                     "the same scenario and locksim give the same page.</footer>\n</body>\n</html>\n",
                     escaped(kVersion));
}

// An SVG file's text as an element inside HTML: without its XML declaration.
std::string inline_svg(std::string_view svg) {
  if (svg.starts_with("<?xml")) svg.remove_prefix(svg.find('\n') + 1);
  return std::string{svg};
}

std::string mode_title(model::Fencing mode) { return mode == model::Fencing::kOn ? "fencing on" : "fencing off"; }

const std::vector<ViolationKind> kinds_shown(const runner::ScenarioSummary& summary) {
  std::vector<ViolationKind> kinds;
  for (const ViolationKind kind : checker::kAllViolationKinds) {
    if (std::ranges::any_of(summary.modes, [&](const runner::ModeSummary& mode) { return mode.violations.at(kind) > 0; })) {
      kinds.push_back(kind);
    }
  }
  return kinds;
}

std::string count_cell(std::int64_t incidents, std::int64_t violations) {
  if (violations == 0) return "<td class=\"number zero\">0</td>";
  if (incidents == violations) return fmt::format("<td class=\"number bad\">{}</td>", incidents);
  return fmt::format("<td class=\"number bad\">{} <small>({})</small></td>", incidents, violations);
}

// The counts over N seeds: a row per kind any mode showed, a column pair per mode.
std::string counts_table(const runner::ScenarioSummary& summary) {
  std::string html = "<table class=\"counts\">\n<tr><th>violation</th>";
  for (const runner::ModeSummary& mode : summary.modes) {
    html += fmt::format("<th>{}: incidents (violations)</th><th>runs with one</th>", mode_title(mode.mode));
  }
  html += "</tr>\n";
  for (const ViolationKind kind : kinds_shown(summary)) {
    html += fmt::format("<tr><td><code>{}</code></td>", checker::violation_kind_name(kind));
    for (const runner::ModeSummary& mode : summary.modes) {
      html += count_cell(mode.incidents.at(kind), mode.violations.at(kind));
      html += fmt::format("<td>{}</td>", runs_share_text(mode.runs_with_any(kind), mode.runs));
    }
    html += "</tr>\n";
  }
  const auto outcome_row = [&](std::string_view label, auto value) {
    if (std::ranges::none_of(summary.modes, [&](const runner::ModeSummary& mode) { return value(mode) > 0; })) return;
    html += fmt::format("<tr><td>{}</td>", label);
    for (const runner::ModeSummary& mode : summary.modes) {
      html += fmt::format("<td class=\"number\">{}</td><td></td>", value(mode));
    }
    html += "</tr>\n";
  };
  outcome_row("late writes (harmless: in lock order)", [](const runner::ModeSummary& mode) { return mode.late_writes; });
  outcome_row("runs stopped short", [](const runner::ModeSummary& mode) { return mode.stopped_short; });
  outcome_row("jobs left unfinished", [](const runner::ModeSummary& mode) { return mode.unfinished_jobs; });
  if (kinds_shown(summary).empty()) {
    html += fmt::format("<tr><td colspan=\"{}\">no violation in any run</td></tr>\n", 1 + 2 * summary.modes.size());
  }
  return html + "</table>\n";
}

enum class ColumnHeads : std::uint8_t { kHidden, kShown };

// What each kind means; with kShown, under the short column head the table uses ("dholder").
std::string legend_list(const std::vector<ViolationKind>& kinds, ColumnHeads heads = ColumnHeads::kHidden) {
  std::string html = "<ul>\n";
  for (const ViolationKind kind : kinds) {
    const std::string head = heads == ColumnHeads::kShown ? fmt::format("{} = ", violation_column_head(kind)) : "";
    html += fmt::format("<li>{}<code>{}</code>: {}.</li>\n", head, checker::violation_kind_name(kind),
                        violation_meaning(kind));
  }
  return html + "</ul>\n";
}

std::string parameters_table(const std::vector<ParameterRow>& rows) {
  std::string html = "<table class=\"parameters\">\n";
  for (const ParameterRow& row : rows) {
    html += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", escaped(row.section), escaped(row.text));
  }
  return html + "</table>\n";
}

// What explore did, when it found nothing to picture.
std::string exploration_outcome(const explore::Exploration& exploration) {
  if (exploration.goal.meaning == explore::GoalMeaning::kShowHazard) {
    return fmt::format("<code>locksim explore</code> did not show {} in {} of the scenario's seeds and {} drawn plans ({})",
                       escaped(explore::kind_names(exploration.goal.kinds)), exploration.seeds_run, exploration.tests_run,
                       escaped(exploration.goal.reason));
  }
  return fmt::format("<code>locksim explore</code> ran {} of the scenario's seeds and tried {} drawn plans to break what "
                     "the file claims, and found none ({})",
                     exploration.seeds_run, exploration.tests_run, escaped(exploration.goal.reason));
}

std::string pictured_intro(const ScenarioReport& report) {
  const explore::Exploration& exploration = report.exploration;
  switch (report.pictured_from) {
    case PicturedFrom::kExplore: {
      const explore::Finding& finding = *exploration.finding;
      const bool broken = exploration.goal.meaning == explore::GoalMeaning::kBreakSafety;
      return fmt::format(
          "<p>The pictured run is the smallest one <code>locksim explore</code> found that shows <code>{}</code> with "
          "{} (found in {}, shrunk in {} steps){}. It looked for it because {}.</p>\n",
          checker::violation_kind_name(finding.counterexample.kind), mode_title(exploration.goal.mode),
          escaped(explore::found_where(finding.counterexample, exploration.seed)), finding.counterexample.shrink_steps,
          broken ? ": <strong>a counterexample to what the file claims</strong>" : "", escaped(exploration.goal.reason));
    }
    case PicturedFrom::kFailingSeed:
      return fmt::format("<p>The pictured run is seed {}, the first with a violation over the seeds below; {}.</p>\n",
                         report.pictured_seed, exploration_outcome(exploration));
    case PicturedFrom::kFirstSeed: break;
  }
  // A run without a violation is not the lock working when it stopped with work left (H11: no job finishes).
  const auto stopped = std::find_if(report.pictured.begin(), report.pictured.end(),
                                    [](const PicturedRun& run) { return !run.stopped_short.empty(); });
  if (stopped != report.pictured.end()) {
    return fmt::format("<p>No run had a violation, and {}. The pictured run is seed {}: nothing unsafe happened, yet "
                       "it stopped with work left ({}): the jobs did not get done.</p>\n",
                       exploration_outcome(exploration), report.pictured_seed, escaped(stopped->stopped_short));
  }
  return fmt::format("<p>No run had a violation, and {}. The pictured run is seed {}: the lock working as it "
                     "should.</p>\n",
                     exploration_outcome(exploration), report.pictured_seed);
}

std::string critical_section(const ScenarioReport& report) {
  if (!report.exploration.finding) return "";
  std::string html;
  for (const explore::CriticalEvent& event : report.exploration.finding->critical) {
    html += fmt::format("<p class=\"critical\"><strong>Critical event.</strong> {}</p>\n", escaped(event.statement));
  }
  return html;
}

std::string picture_html(const PicturedRun& run, std::size_t index, const ScenarioReport& report) {
  TimelineOptions options;
  options.note = run.note;
  options.id_prefix = fmt::format("p{}-", index);
  std::string html = fmt::format("<h3>{}{}</h3>\n", mode_title(run.mode),
                                 index > 0 ? ": the same plan, drawn the same way" : "");
  html += fmt::format("<div class=\"picture\">\n{}</div>\n", inline_svg(timeline_svg(run.timeline, options)));
  if (const std::optional<TimelineWindow> window = critical_window(run.timeline)) {
    options.window = window;
    options.id_prefix += "inset-";
    html += fmt::format("<p>Where it happens, enlarged: true time {} to {} of the run's {}.</p>\n"
                        "<div class=\"picture\">\n{}</div>\n",
                        seconds_text(window->begin_ns, SecondsPrecision::kMilliseconds),
                        seconds_text(window->end_ns, SecondsPrecision::kMilliseconds),
                        seconds_text(run.timeline.end_ns, SecondsPrecision::kMilliseconds),
                        inline_svg(timeline_svg(run.timeline, options)));
  }
  if (run.violations.empty()) {
    html += run.stopped_short.empty()
                ? "<p>No violation in this run.</p>\n"
                : fmt::format("<p>No violation in this run, but it stopped with work left: {}.</p>\n",
                              escaped(run.stopped_short));
  } else {
    html += "<ul>\n";
    for (const std::string& line : run.violations) html += fmt::format("<li>{}</li>\n", escaped(line));
    html += "</ul>\n";
  }
  html += fmt::format("<p>Replay it: <code>{}</code></p>\n", escaped(run.replay));
  (void)report;
  return html;
}

std::string story_html(const ScenarioReport& report) {
  if (!report.exploration.finding) return "";
  std::string text;
  const explore::Finding& finding = *report.exploration.finding;
  for (const std::string& line : counterexample_story(finding.history, finding.violation)) text += line + "\n";
  return fmt::format("<h3>What happened, in words ({})</h3>\n<pre class=\"story\">{}</pre>\n",
                     mode_title(report.exploration.goal.mode), escaped(text));
}

// Where the sweep shows with fencing on a kind the counts above never showed
// with it ("fencing stopped it here"), the sentence that says why: the counts
// ran the file's own pause, and fencing turns a write away only once storage
// has seen a newer token.
std::string sweep_against_counts(const ScenarioReport& report) {
  const auto on = std::ranges::find(report.summary.modes, model::Fencing::kOn, &runner::ModeSummary::mode);
  if (on == report.summary.modes.end()) return "";
  const std::vector<runner::SweepRow> rows = runner::sweep_rows(report.sweep->result);
  std::map<checker::ViolationKind, const runner::SweepRow*> highest;  // per kind, the fencing-on point with the most runs
  for (const runner::SweepRow& row : rows) {
    if (row.mode != model::Fencing::kOn || row.runs_with == 0 || on->runs_with_any(row.kind) > 0) continue;
    const runner::SweepRow*& best = highest[row.kind];
    if (best == nullptr || row.runs_with * best->runs > best->runs_with * row.runs) best = &row;
  }
  std::string html;
  const runner::SweepAxis& axis = report.sweep->result.plan.axes.front();
  for (const auto& [kind, row] : highest) {
    html += fmt::format("<p>With fencing on, <code>{}</code> shows here (up to {} at a pause of {}) though the counts "
                        "above, on the file's own pause, show none with fencing.",
                        checker::violation_kind_name(kind), escaped(runs_share_text(row->runs_with, row->runs)),
                        escaped(runner::value_text(axis, row->values.front())));
    if (kind == checker::ViolationKind::kStaleWrite || kind == checker::ViolationKind::kLostUpdate) {
      html += " Fencing turns a write away only once storage has seen a newer token: a paused holder's write that "
              "lands after its lease ran out but before the next holder's first write or fenced read reaches storage "
              "is accepted (the fencing window, H22); fenced reads or <code>validate: service</code> close it.";
    }
    html += "</p>\n";
  }
  return html;
}

std::string sweep_html(const ScenarioReport& report) {
  if (!report.sweep) return "";
  const runner::SweepResult& result = report.sweep->result;
  const std::int64_t counted = report.summary.modes.empty() ? 0 : report.summary.modes.front().runs;
  const std::string fewer =
      static_cast<std::int64_t>(result.seeds_per_point) == counted
          ? std::string{}
          : fmt::format(" — {} than the {} of the counts above, to keep the page quick",
                        static_cast<std::int64_t>(result.seeds_per_point) < counted ? "fewer" : "more", counted);
  return fmt::format(
      "<h2>Pause length against the lease</h2>\n<p>The same scenario with <code>faults[{}]</code>'s pause set to each "
      "length from {} to {} ({} seeds per length and mode{}): the share of runs with each violation, fencing off "
      "(solid) and on (dashed), with its 95&#160;% interval; the dashed vertical line is the lease.</p>\n"
      "<div class=\"picture\">\n{}</div>\n{}",
      report.sweep->fault, escaped(runner::value_text(result.plan.axes.front(), result.plan.axes.front().values.front())),
      escaped(runner::value_text(result.plan.axes.front(), result.plan.axes.front().values.back())),
      result.seeds_per_point, fewer, inline_svg(rate_plot_svg(result)), sweep_against_counts(report));
}

std::string status_span(const runner::ScenarioSummary& summary) {
  const std::string status = scenario_status(summary);
  std::string css = status;
  std::ranges::replace(css, ' ', '-');
  return fmt::format("<span class=\"status-{}\">{}</span>", css, status);
}

}  // namespace

std::string page_file_name(std::string_view scenario_name, std::vector<std::string>& taken) {
  std::string stem;
  for (const char c : scenario_name) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                      (c == '.' && !stem.empty());
    stem += kept ? c : '_';
  }
  if (stem.empty() || stem == "index") stem = "scenario-" + stem;
  std::string name = stem + ".html";
  for (int number = 2; std::ranges::find(taken, name) != taken.end(); ++number) name = fmt::format("{}-{}.html", stem, number);
  taken.push_back(name);
  return name;
}

// "What would fix it": advise's table, as `locksim advise` prints it.
std::string advice_html(const advise::Advice& advice) {
  if (advice.harm.empty()) return "";
  std::string html = fmt::format(
      "<h2>What would fix it</h2>\n<p><code>locksim advise</code> ran the file as written ({}) and with each "
      "mitigation that applies, on the same seeds ({}); each cell is the share of runs with that violation and its "
      "95 % interval. Best first: by the runs with harm to data, then the other kinds, then the jobs left "
      "unfinished.</p>\n<table class=\"advice\">\n<tr><th>mitigation</th>",
      mode_title(advice.mode), escaped(advice_seeds_text(advice)));
  for (const checker::ViolationKind kind : advice.shown) {
    html += fmt::format("<th><code>{}</code></th>", checker::violation_kind_name(kind));
  }
  html += "<th>unfinished jobs per run</th><th>wait for the lock per grant</th><th>calls per job</th>"
          "<th>what it did, and why</th></tr>\n";
  for (const advise::AdviceRow& row : advice.rows) {
    const std::string name = row.mitigation.empty() ? "(as written)" : row.mitigation;
    html += fmt::format("<tr><td>{}<br/><small><code>{}</code></small></td>", escaped(name), escaped(row.change));
    for (const checker::ViolationKind kind : advice.shown) {
      html += fmt::format("<td>{}</td>", escaped(share_with_interval_text(row.runs_with.at(kind), row.runs)));
    }
    const double unfinished = row.runs == 0 ? 0.0 : static_cast<double>(row.unfinished_jobs) / static_cast<double>(row.runs);
    html += fmt::format("<td>{:.2f}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", unfinished,
                        escaped(wait_per_grant_text(row, advice.rows.front())), escaped(calls_per_job_text(row)),
                        row.mitigation.empty() ? "" : escaped(advice_row_sentence(advice, row)));
  }
  html += "</table>\n";
  for (const advise::NotTried& skipped : advice.not_tried) {
    html += fmt::format("<p>Not tried: {}: {}</p>\n", escaped(skipped.mitigation), escaped(skipped.why));
  }
  return html;
}

std::string scenario_page_html(const ScenarioReport& report, const PageLinks& links) {
  std::string html = page_head(report.name + " — locksim");
  html += fmt::format("<nav><a href=\"{}\">All scenarios</a></nav>\n", escaped(links.index));
  html += fmt::format("<h1>{}</h1>\n<p class=\"lead\">{}</p>\n", escaped(report.name), escaped(report.description));
  html += fmt::format("<p>Status over the runs below: {}. File: <code>{}</code>.</p>\n", status_span(report.summary),
                      escaped(report.file));

  html += "<h2>The setup</h2>\n";
  html += parameters_table(report.parameters);
  html += "<p>Settings the file does not state take locksim's defaults (<code>locksim explain /POINTER</code>, "
          "docs/scenario-format.md).</p>\n";

  html += "<h2>The pictured run</h2>\n";
  html += pictured_intro(report);
  if (!report.plan.empty()) {
    html += "<p>Its faults:</p>\n<ul>\n";
    for (const std::string& fault : report.plan) html += fmt::format("<li><code>{}</code></li>\n", escaped(fault));
    html += "</ul>\n";
  }
  html += critical_section(report);
  html += "<p>How to read the picture: on each service lane a bar is a lease as the service promised it, ending where "
          "the service let it go; on each worker lane the thin bar is the worker's belief that it holds the lock "
          "(<code>hold.begin</code> to <code>hold.end</code>) over the faint promise — where the thin bar runs past "
          "the faint one, the worker acts on a lease nobody promises any more. Pauses are hatched; writes are marked "
          "with key=value and token: a stale write red, a late one amber, a rejected one crossed out.</p>\n";
  for (std::size_t index = 0; index < report.pictured.size(); ++index) {
    html += picture_html(report.pictured[index], index, report);
  }
  if (!links.minimal_plan.empty()) {
    html += fmt::format("<p>The minimal plan as a scenario file: <a href=\"{0}\"><code>{0}</code></a>.</p>\n",
                        escaped(links.minimal_plan));
  }
  html += story_html(report);

  const runner::ModeSummary& first_mode = report.summary.modes.front();
  html += fmt::format("<h2>Over {} seeds</h2>\n", first_mode.runs);
  html += "<p>Incidents count one thing that went wrong once (one pause over twenty short holds of the next holder is "
          "one <code>double_holder</code> incident, twenty violations).</p>\n";
  html += counts_table(report.summary);
  html += "<ul class=\"lessons\">\n";
  for (const std::string& lesson : fencing_lessons(report.summary)) html += fmt::format("<li>{}</li>\n", escaped(lesson));
  html += "</ul>\n";
  html += legend_list(kinds_shown(report.summary));
  for (const runner::ModeSummary& mode : report.summary.modes) {
    if (!mode.replay.empty()) {
      html += fmt::format("<p>First failing seed, {}: <code>{}</code></p>\n", mode_title(mode.mode), escaped(mode.replay));
    }
  }
  html += sweep_html(report);
  html += advice_html(report.advice);
  return html + page_foot();
}

std::string index_page_html(const std::vector<IndexEntry>& entries) {
  std::string html = page_head("locksim — lease-expiry hazards");
  html += "<h1>Lease-expiry hazards, fencing off and on</h1>\n"
          "<p class=\"lead\">A lease lets a crashed holder's lock expire — and so it also expires under a holder that "
          "is only frozen, which may wake and act after someone else took the lock. Each scenario below was run by "
          "locksim's deterministic simulator over many seeds in the fencing modes its file names — most without "
          "fencing tokens and with them, on the same plans; each page pictures one run of it in each mode, one above "
          "the other.</p>\n";

  std::vector<ViolationKind> kinds;
  for (const IndexEntry& entry : entries) {
    for (const ViolationKind kind : kinds_shown(entry.report->summary)) {
      if (std::ranges::find(kinds, kind) == kinds.end()) kinds.push_back(kind);
    }
  }
  std::ranges::sort(kinds);
  html += "<h2>The scenarios</h2>\n<table class=\"suite\">\n<tr><th>scenario</th><th>status</th><th>fencing</th>"
          "<th>runs</th><th>runs with a violation</th>";
  for (const ViolationKind kind : kinds) {
    html += fmt::format("<th title=\"{}\">{}</th>", checker::violation_kind_name(kind), violation_column_head(kind));
  }
  html += "</tr>\n";
  for (const IndexEntry& entry : entries) {
    const runner::ScenarioSummary& summary = entry.report->summary;
    for (std::size_t index = 0; index < summary.modes.size(); ++index) {
      const runner::ModeSummary& mode = summary.modes[index];
      html += "<tr>";
      if (index == 0) {
        html += fmt::format("<td rowspan=\"{0}\"><a href=\"{1}\">{2}</a></td><td rowspan=\"{0}\">{3}</td>",
                            summary.modes.size(), escaped(entry.page), escaped(entry.report->name), status_span(summary));
      }
      html += fmt::format("<td>{}</td><td class=\"number\">{}</td><td class=\"number\">{}</td>",
                          mode.mode == model::Fencing::kOn ? "on" : "off", mode.runs, mode.runs_with_violation);
      for (const ViolationKind kind : kinds) html += count_cell(mode.incidents.at(kind), mode.violations.at(kind));
      html += "</tr>\n";
    }
  }
  html += "</table>\n<p>Status: <em>passed</em> — every expectation the file states held (a mended scenario can "
          "pass and still show a violation it makes no claim about, such as a second holder that harms no data); <em>reproduced</em> — they held, "
          "one of them saying the hazard happens; <em>not judged</em> — no expectation applies to a mode that ran; "
          "<em>failed</em> — an expectation failed. Each violation cell: incidents, with the violations behind them in "
          "brackets where they differ.</p>\n";
  html += legend_list(kinds, ColumnHeads::kShown);

  html += "<h2>What to take away</h2>\n<dl class=\"takeaways\">\n";
  for (const IndexEntry& entry : entries) {
    html += fmt::format("<dt><a href=\"{}\">{}</a></dt>\n<dd>{}\n<ul class=\"lessons\">\n", escaped(entry.page),
                        escaped(entry.report->name), escaped(entry.report->description));
    for (const std::string& lesson : fencing_lessons(entry.report->summary)) {
      html += fmt::format("<li>{}</li>\n", escaped(lesson));
    }
    html += "</ul></dd>\n";
  }
  html += "</dl>\n";
  return html + page_foot();
}

}  // namespace locksim::reports
