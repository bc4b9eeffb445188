#pragma once
// The teaching report's pages (`locksim report`): one self-contained HTML
// page per scenario and an index. Inline CSS and SVG, no script, nothing
// fetched: a page works offline and prints. Every text that comes from a
// scenario file or a history (names, descriptions, keys, values) is escaped,
// so a scenario named "<script>…" shows as text.
//
// The pages are well-formed XML (XHTML-style empty elements, no named
// entities) so tests and tools can parse them. Deterministic: the same
// reports give the same bytes — no dates, no paths of the machine.

#include <string>
#include <string_view>
#include <vector>

#include "reports/scenario_report.h"

namespace locksim::reports {

// A page's file name from a scenario name: letters, digits, '.', '_' and '-'
// kept, anything else '_', never "index"; unique among `taken` (a number is
// added). Adds the name to `taken`.
[[nodiscard]] std::string page_file_name(std::string_view scenario_name, std::vector<std::string>& taken);

struct PageLinks {
  std::string index = "index.html";
  std::string minimal_plan;  // the pictured minimal plan's file, relative to the page ("" without one)
};

[[nodiscard]] std::string scenario_page_html(const ScenarioReport& report, const PageLinks& links);

struct IndexEntry {
  const ScenarioReport* report = nullptr;
  std::string page;  // its page's file name
};

[[nodiscard]] std::string index_page_html(const std::vector<IndexEntry>& entries);

}  // namespace locksim::reports
