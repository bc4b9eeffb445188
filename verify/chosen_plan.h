#pragma once
// The plan of a verified run, made by the chooser in place of the seed's
// draws: each clock's drift (none by default, or either end of the file's
// range), each worker's start, each fault's target (the first by default,
// or any other it may hit) and its trigger — the file's own by default, or
// one of the target's first `anchors` events of each kind it has
// (explore::anchors_of_node). Lengths are chosen as each fault strikes
// (runner::run_plan), against the lease left then.
//
// Every fault of the file is in the plan (a swarm file's subsets are not
// explored); a fault at a rate occurs at its mean gaps. The last
// `extra_faults` faults of `scenario` are --faults' (with_extra_faults):
// each is absent by default, and present as a deviation.

#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "verify/scripted_chooser.h"

namespace locksim::verify {

[[nodiscard]] scenario::Plan chosen_plan(const scenario::Scenario& scenario, ScriptedChooser& chooser, int anchors,
                                         int extra_faults = 0);

}  // namespace locksim::verify
