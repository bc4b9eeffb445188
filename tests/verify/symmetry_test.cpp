// Why verify explores worker-2's runs as well as worker-1's (docs/verify.md,
// "Symmetry"): the workers share every setting, yet a run and its image
// with the two names swapped are different runs, so skipping one as the
// other's image would state something about a run never made.

#include <algorithm>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "tests/explore/explore_support.h"
#include "verify/verification.h"

namespace locksim::verify {
namespace {

// `text` with worker-1 and worker-2 swapped.
std::string swap_workers(const std::string& text) {
  static const std::regex kWorker{R"(worker-([12])\b)"};
  std::string swapped;
  std::size_t copied = 0;
  for (auto match = std::sregex_iterator(text.begin(), text.end(), kWorker); match != std::sregex_iterator{};
       ++match) {
    swapped += text.substr(copied, static_cast<std::size_t>(match->position()) - copied);
    swapped += (*match)[1] == "1" ? "worker-2" : "worker-1";
    copied = static_cast<std::size_t>(match->position() + match->length());
  }
  return swapped + text.substr(copied);
}

std::string history_of(const scenario::Scenario& scenario, std::vector<std::uint32_t> script) {
  std::string history;
  (void)run_script(scenario, model::Fencing::kOn, std::move(script), Bounds{},
                   [&](std::string_view line, const sim::Simulation&) { (history += line) += '\n'; });
  return history;
}

TEST(VerifySymmetry, AWorkersDeviationAndTheSameDeviationOnTheOtherWorkerAreDifferentRuns) {
  const scenario::Scenario scenario = explore::testing::builtin("control-no-faults");
  const std::string base = history_of(scenario, {});
  EXPECT_NE(swap_workers(base), base) << "worker-1 wins the tie at the start: the run with no deviation is not its own image";

  // Each level-1 deviation of a worker-1 class against the same value of the
  // worker-2 class of the same site and epoch.
  const VerifiedRun made = run_script(scenario, model::Fencing::kOn, {}, Bounds{});
  int pairs = 0;
  int different = 0;
  for (std::size_t position = 0; position < made.points.size(); ++position) {
    const ChoicePoint& point = made.points[position];
    if (point.site().find("worker-1") == std::string::npos) continue;
    const std::string image_site = swap_workers(point.site());
    const auto image = std::find_if(made.points.begin(), made.points.end(),
                                    [&](const ChoicePoint& other) { return other.site() == image_site; });
    if (image == made.points.end() || image->domain_size != point.domain_size) continue;
    const auto image_position = static_cast<std::size_t>(image - made.points.begin());
    for (std::uint32_t index = 1; index < point.domain_size; ++index) {
      std::vector<std::uint32_t> on_one(position, 0);
      on_one.push_back(index);
      std::vector<std::uint32_t> on_two(image_position, 0);
      on_two.push_back(index);
      ++pairs;
      if (swap_workers(history_of(scenario, on_one)) != history_of(scenario, on_two)) ++different;
    }
  }
  EXPECT_GT(pairs, 0);
  EXPECT_GT(different, pairs / 2) << different << " of " << pairs << " pairs differ";
}

}  // namespace
}  // namespace locksim::verify
