#include "runner/shard_choice.h"

#include <charconv>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

namespace locksim::runner {
namespace {

std::optional<std::uint64_t> whole_number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

ShardChoice checked(std::uint64_t index, std::uint64_t count, std::string source) {
  if (count == 0 || index >= count) {
    throw std::invalid_argument(fmt::format("--shard: shard {} of {} does not exist (0 <= K < N){}", index, count,
                                            source.empty() ? "" : " (from " + source + ")"));
  }
  return ShardChoice{index, count, std::move(source)};
}

// A job runner's pair of variables: index (0- or 1-based) and total.
struct RunnerVariables {
  std::string runner;
  std::string index_name;
  std::uint64_t index_base;
  std::string total_name;  // "" when the environment has no total (Kubernetes)
};

const std::vector<RunnerVariables>& known_runners() {
  static const std::vector<RunnerVariables> runners = {
      {"GitLab", "CI_NODE_INDEX", 1, "CI_NODE_TOTAL"},
      {"Buildkite", "BUILDKITE_PARALLEL_JOB", 0, "BUILDKITE_PARALLEL_JOB_COUNT"},
      {"a Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", 0, ""},
  };
  return runners;
}

std::uint64_t number_in(const std::string& name, const std::string& value) {
  const std::optional<std::uint64_t> number = whole_number(value);
  if (!number) throw std::invalid_argument(fmt::format("--shard auto: {}=\"{}\" is not a whole number", name, value));
  return *number;
}

ShardChoice from_environment(std::optional<std::uint64_t> given_total, const EnvironmentLookup& environment) {
  for (const RunnerVariables& runner : known_runners()) {
    const std::optional<std::string> index_text = environment(runner.index_name);
    if (!index_text) continue;
    const std::uint64_t index = number_in(runner.index_name, *index_text);
    if (index < runner.index_base) {
      throw std::invalid_argument(fmt::format("--shard auto: {}={} but {} counts from {}", runner.index_name, index,
                                              runner.runner, runner.index_base));
    }
    std::string source = fmt::format("{}'s {}={}", runner.runner, runner.index_name, *index_text);
    std::uint64_t total = 0;
    const std::optional<std::string> total_text =
        runner.total_name.empty() ? std::nullopt : environment(runner.total_name);
    if (total_text) {
      total = number_in(runner.total_name, *total_text);
      if (given_total && *given_total != total) {
        throw std::invalid_argument(fmt::format("--shard auto/{}: but {}={} says {} shards", *given_total,
                                                runner.total_name, total, total));
      }
      source += fmt::format(", {}={}", runner.total_name, *total_text);
    } else if (given_total) {
      total = *given_total;
      source += fmt::format(", N={} from --shard auto/{}", total, total);
    } else {
      throw std::invalid_argument(
          runner.total_name.empty()
              ? fmt::format("--shard auto: {} sets {} but not how many shards there are: give --shard auto/N",
                            runner.runner, runner.index_name)
              : fmt::format("--shard auto: {} is set but {} is not: give --shard auto/N", runner.index_name,
                            runner.total_name));
    }
    return checked(index - runner.index_base, total, std::move(source));
  }
  throw std::invalid_argument(
      "--shard auto: no job runner's shard variables are set (GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, Buildkite's "
      "BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT, a Kubernetes Indexed Job's JOB_COMPLETION_INDEX with "
      "--shard auto/N); give --shard K/N");
}

}  // namespace

ShardChoice choose_shard(std::string_view text, const EnvironmentLookup& environment) {
  const std::size_t slash = text.find('/');
  const std::string_view first = text.substr(0, slash);
  const std::optional<std::string_view> second =
      slash == std::string_view::npos ? std::nullopt : std::optional{text.substr(slash + 1)};
  const auto expected = [&] {
    return std::invalid_argument(
        fmt::format("--shard: expected K/N with 0 <= K < N (e.g. 0/4), auto, or auto/N, got \"{}\"", text));
  };
  std::optional<std::uint64_t> total;
  if (second) {
    total = whole_number(*second);
    if (!total) throw expected();
  }
  if (first == "auto") return from_environment(total, environment);
  const std::optional<std::uint64_t> index = whole_number(first);
  if (!index || !total) throw expected();
  return checked(*index, *total, "");
}

std::optional<std::string> process_environment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string{value};
}

}  // namespace locksim::runner
