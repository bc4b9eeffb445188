#pragma once
// A console reporter that also remembers each benchmark's items per second,
// so a benchmark program can print ratios between benchmarks of one run.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace locksim::bench {

class RateReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const auto items = run.counters.find("items_per_second");
      if (items != run.counters.end() && run.run_type == Run::RT_Iteration) {
        rates_[run.run_name.str()] = items->second.value;
      }
    }
  }

  // Items per second of the benchmark run called `name` (as printed), if it ran.
  [[nodiscard]] std::optional<double> rate(const std::string& name) const {
    const auto found = rates_.find(name);
    return found == rates_.end() ? std::nullopt : std::optional{found->second};
  }

 private:
  std::map<std::string, double> rates_;
};

}  // namespace locksim::bench
