#pragma once
// The mitigations `locksim advise` tries: each a change to the scenario file
// (a JSON merge patch, RFC 7386, on the file's own document), with what it
// changes and one sentence on why it works or why it cannot. The catalogue
// follows the hazard catalogue's fixes: fencing writes, fenced reads,
// validating with the service, a lease longer than the worst pause the file
// can draw, a watchdog, idempotency keys, compare-and-delete release and
// compare-and-extend renewal, the monotonic clock, WAIT and min-replicas,
// persistence `always`, a consensus service.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/violation.h"
#include "scenario/scenario.h"

namespace locksim::advise {

struct Mitigation {
  std::string name;     // "fence writes": a short name, unique in the catalogue
  std::string change;   // what the file changes, for people: "storage.fencing: on"
  std::string why;      // why it works, or why it cannot, in one sentence
  // Merged into the file's document (nlohmann::json::merge_patch); an array
  // is several patches merged in order (a `null` first removes an object whole).
  nlohmann::json patch;
  std::string family{};  // mitigations of one family are steps of one idea, never paired ("fencing")
  // Why it cannot remove a kind of harm it was not made for, said when the
  // runs show no clear effect on that kind.
  std::map<checker::ViolationKind, std::string> cannot{};
};

// The catalogue's mitigations that change something in `scenario`, in the
// catalogue's order. A mitigation that the file already has (fencing on, a
// monotonic clock) is left out.
[[nodiscard]] std::vector<Mitigation> applicable_mitigations(const scenario::Scenario& scenario);

// Two mitigations at once: both patches, both names ("fence writes + a watchdog").
[[nodiscard]] Mitigation combined(const Mitigation& first, const Mitigation& second);

}  // namespace locksim::advise
