#pragma once
// What `locksim advise` prints: the table of mitigations × violation kinds
// (share of runs with a 95 % Wilson interval, and what each costs), best
// first, one sentence per row on why it works or cannot, what was not tried,
// and how many seeds it took; and the same as JSON for --json.

#include <string>

#include "advise/advice.h"

namespace locksim::reports {

// "7% [4–12]": the share of runs, whole percent (one decimal below 1 % and
// above 99 %), and its 95 % Wilson interval.
[[nodiscard]] std::string share_with_interval_text(std::int64_t runs_with, std::int64_t runs);

// What `row` did to each harm kind, with the reasons it cannot where it had
// no clear effect, and why it works: the sentence after the row's name.
[[nodiscard]] std::string advice_row_sentence(const advise::Advice& advice, const advise::AdviceRow& row);

// The mean wait for the lock per grant, and beside a mitigation's what it
// adds to the file's as written: "1.48s", "1.52s (+40ms)"; "-" without a grant.
[[nodiscard]] std::string wait_per_grant_text(const advise::AdviceRow& row, const advise::AdviceRow& as_written);

// Round trips per job done: "9.3"; "-" when no job was done.
[[nodiscard]] std::string calls_per_job_text(const advise::AdviceRow& row);

// "7 seeds per row, from seed 1, …": how the seeds were chosen.
[[nodiscard]] std::string advice_seeds_text(const advise::Advice& advice);

// The table and the sentences. `written`: where --write put each row's file
// (same order as advice.rows; empty when not written).
[[nodiscard]] std::string advice_text(const advise::Advice& advice, const std::vector<std::string>& written);

// The --json document (docs/cli.md, advise), indented, with a final newline.
[[nodiscard]] std::string advice_json(const advise::Advice& advice, const std::vector<std::string>& written);

}  // namespace locksim::reports
