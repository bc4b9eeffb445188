#pragma once
// How `locksim live` takes each `workers.*` key of the scenario format
// (scenarios/scenario_reference.h): its own worker carries out every client
// setting with the simulator's rules (model/client_rules.h). A key it could
// not carry out would say "refused: why" here and be refused by
// live_unsupported() (live_run.h) naming its path, never ignored. A test
// walks the key reference and finds each /workers key here, and
// docs/live.md holds the table this makes.

#include <span>
#include <string>
#include <string_view>

namespace locksim::live {

struct LiveWorkerKey {
  std::string_view pattern;  // as the key reference names it: "/workers/max_tries"
  std::string_view live;     // what locksim's live worker does with it
};

[[nodiscard]] std::span<const LiveWorkerKey> live_worker_keys();

// The Markdown table of every entry (docs/live.md holds it verbatim).
[[nodiscard]] std::string live_worker_keys_markdown_table();

}  // namespace locksim::live
