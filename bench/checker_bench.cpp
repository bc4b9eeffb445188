// Checker throughput on a generated 2,000,000-event history: events per second
// for the full check, next to parse-only (the same reader handing each event
// to a visitor that does nothing), both by wall-clock time, next to
// simdjson's own best parse of the same file (issue 32: On-Demand
// `iterate_many` over the whole file, every field of every line read as its
// type, keys matched by their raw bytes) and next to the bare event loop
// (bench/bare_event_loop.h), all measured in the same run. The ratios check /
// simdjson, check / parse-only and check / bare loop are printed at the end.
// The history is written once to a temporary file.
//
//   build/bench/checker_bench
//   build/bench/checker_bench --write-history=FILE   (only write it, e.g. to
//       measure `/usr/bin/time -v build/locksim check FILE`)
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <simdjson.h>

#include "bench/bare_event_loop.h"
#include "bench/rate_reporter.h"
#include "checker/history_checker.h"
#include "checker/history_reader.h"

namespace {

constexpr std::int64_t kEvents = 2'000'000;
constexpr std::int64_t kLeaseNs = 10'000'000'000;
constexpr int kWorkers = 8;

// Writes a legal history of about `events` events: 8 workers take turns on one
// lock (acquire, read, write, renew, others' failed acquires, release), with
// a fault now and then — the mix a counter scenario records.
class HistoryWriter {
 public:
  explicit HistoryWriter(std::FILE* file) : file_{file} {}

  void write(std::int64_t events) {
    line("run", "run.begin",
         R"("scenario":"bench","seed":1,"fencing":true,"version":"0.1.0","workload":{"kind":"counter","key":"c","jobs":1})");
    std::int64_t token = 0;
    std::int64_t counter = 0;
    while (index_ < events - 20) {
      const int owner = static_cast<int>(token % kWorkers) + 1;
      const int other = (owner % kWorkers) + 1;
      ++token;
      t_ += 1'000'000;
      line(worker(owner), "acquire.invoke", R"("lock":"orders")");
      line("redis-0", "lease.grant",
           fmt::format(R"("lock":"orders","owner":"{}","token":{},"lease_ns":{})", worker(owner), token, kLeaseNs));
      line(worker(owner), "acquire.ok",
               fmt::format(R"("lock":"orders","token":{},"lease_ns":{},"local_t":{})", token, kLeaseNs, t_));
      line(worker(owner), "hold.begin", fmt::format(R"("lock":"orders","token":{})", token));
      line(worker(other), "acquire.invoke", R"("lock":"orders")");
      line(worker(other), "acquire.fail", R"("lock":"orders","reason":"held")");
      line(worker(owner), "read.invoke", R"("key":"c")");
      line(worker(owner), "read.ok", fmt::format(R"("key":"c","value":{})", counter));
      ++counter;
      line(worker(owner), "write.invoke",
           fmt::format(R"("key":"c","value":{},"token":{},"request_id":"r-{}")", counter, token, token));
      line("storage", "write.accept",
           fmt::format(R"("key":"c","value":{},"writer":"{}","token":{},"request_id":"r-{}")", counter,
                       worker(owner), token, token));
      line(worker(owner), "write.ok");
      line(worker(owner), "renew.invoke", R"("lock":"orders")");
      line("redis-0", "lease.renew",
           fmt::format(R"("lock":"orders","owner":"{}","token":{},"lease_ns":{})", worker(owner), token, kLeaseNs));
      line(worker(owner), "renew.ok", fmt::format(R"("token":{},"lease_ns":{})", token, kLeaseNs));
      if (token % 50 == 0) {
        line("nemesis", "fault.begin", R"("kind":"delay-spike","target":"storage","delay_ns":5000000)");
        line("nemesis", "fault.end", R"("kind":"delay-spike","target":"storage")");
      }
      line(worker(owner), "hold.end", fmt::format(R"("lock":"orders","token":{},"reason":"released")", token));
      line(worker(owner), "release.invoke", fmt::format(R"("lock":"orders","token":{})", token));
      line("redis-0", "lease.release",
           fmt::format(R"("lock":"orders","owner":"{}","token":{},"by":"{}")", worker(owner), token, worker(owner)));
      line(worker(owner), "release.ok");
    }
    while (index_ < events - 1) {  // exactly `events` events
      line("worker-1", "read.invoke", R"("key":"c")");
    }
    line("run", "run.end", fmt::format(R"("final":{{"c":{}}})", counter));
    std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  }

  [[nodiscard]] std::int64_t events_written() const { return index_; }

 private:
  static std::string worker(int number) { return fmt::format("worker-{}", number); }

  void line(std::string_view process, std::string_view event, std::string_view fields = {}) {
    t_ += 137'000;
    fmt::format_to(std::back_inserter(buffer_), R"({{"i":{},"t":{},"proc":"{}","ev":"{}")", index_, t_, process,
                   event);
    if (!fields.empty()) {
      buffer_.push_back(',');
      buffer_.append(fields);
    }
    buffer_.append(std::string_view{"}\n"});
    ++index_;
    if (buffer_.size() > (1U << 20)) {
      std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
      buffer_.clear();
    }
  }

  std::FILE* file_;
  fmt::memory_buffer buffer_;
  std::int64_t index_ = 0;
  std::int64_t t_ = 0;
};

std::int64_t write_history(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    fmt::print(stderr, "cannot write {}\n", path);
    std::exit(2);
  }
  HistoryWriter writer{file};
  writer.write(kEvents);
  std::fclose(file);
  return writer.events_written();
}

const std::string& history_path() {
  static const std::string path = [] {
    const std::string file = (std::filesystem::temp_directory_path() / "locksim-checker-bench.jsonl").string();
    write_history(file);
    return file;
  }();
  return path;
}

void check_history(benchmark::State& state) {
  const std::string& path = history_path();
  std::int64_t events = 0;
  for (auto _ : state) {
    const auto outcome = locksim::checker::check_history_file(path, {});
    if (outcome.error || !outcome.verdict.ok()) {
      state.SkipWithError("the generated history is bad or has violations");
      return;
    }
    events += outcome.verdict.events;
  }
  state.SetItemsProcessed(events);
}

void parse_only(benchmark::State& state) {
  const std::string& path = history_path();
  std::int64_t events = 0;
  for (auto _ : state) {
    std::int64_t seen = 0;
    const auto outcome = locksim::checker::read_history_file(path, [&](const locksim::checker::Event& event) {
      benchmark::DoNotOptimize(event.index);
      ++seen;
    });
    if (outcome.error) {
      state.SkipWithError("the generated history is bad");
      return;
    }
    events += seen;
  }
  state.SetItemsProcessed(events);
}

// simdjson's own best: the whole file in one padded buffer, one document
// stream, and each field read as the type the history format gives it.
std::int64_t simdjson_walk(const simdjson::padded_string& text, simdjson::ondemand::parser& parser) {
  namespace ondemand = simdjson::ondemand;
  ondemand::document_stream lines;
  if (parser.iterate_many(text, 1U << 20).get(lines)) return -1;
  std::int64_t events = 0;
  for (auto line : lines) {
    ondemand::object object;
    if (line.get_object().get(object)) return -1;
    for (auto field : object) {
      std::string_view key;
      if (field.unescaped_key().get(key)) return -1;
      ondemand::value value = field.value();
      if (key == "i" || key == "t" || key == "token" || key == "value" || key == "lease_ns" || key == "local_t" ||
          key == "delay_ns" || key == "seed") {
        std::int64_t number = 0;
        if (value.get_int64().get(number)) return -1;
        benchmark::DoNotOptimize(number);
      } else if (key == "fencing") {
        bool flag = false;
        if (value.get_bool().get(flag)) return -1;
        benchmark::DoNotOptimize(flag);
      } else if (key == "final" || key == "workload") {
        ondemand::object inner;
        std::string_view raw;
        if (value.get_object().get(inner) || inner.raw_json().get(raw)) return -1;  // kept as text by the checker
        benchmark::DoNotOptimize(raw);
      } else {
        std::string_view text_value;
        if (value.get_string().get(text_value)) return -1;
        benchmark::DoNotOptimize(text_value);
      }
    }
    ++events;
  }
  return events;
}

void simdjson_parse(benchmark::State& state) {
  simdjson::padded_string text;
  if (simdjson::padded_string::load(history_path()).get(text)) {
    state.SkipWithError("cannot read the generated history");
    return;
  }
  simdjson::ondemand::parser parser;
  std::int64_t events = 0;
  for (auto _ : state) {
    const std::int64_t read = simdjson_walk(text, parser);
    if (read < 0) {
      state.SkipWithError("simdjson found the generated history bad");
      return;
    }
    events += read;
  }
  state.SetItemsProcessed(events);
}

BENCHMARK(check_history)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();
BENCHMARK(parse_only)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();
BENCHMARK(simdjson_parse)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();
BENCHMARK(locksim::bench::bare_event_loop)->Name("bare_event_loop")->Unit(benchmark::kMillisecond)->UseRealTime();

void print_ratio(const locksim::bench::RateReporter& reporter) {
  const std::optional<double> check = reporter.rate("check_history/min_time:3.000/real_time");
  const std::optional<double> parse = reporter.rate("parse_only/min_time:3.000/real_time");
  if (check && parse) {
    fmt::print("check {:.2f} M events/s, parse-only {:.2f} M events/s, ratio check/parse-only {:.2f}\n", *check / 1e6,
               *parse / 1e6, *check / *parse);
  }
  const std::optional<double> library = reporter.rate("simdjson_parse/min_time:3.000/real_time");
  if (check && library) {
    fmt::print("simdjson's own typed parse {:.2f} M events/s, ratio check/simdjson {:.2f}\n", *library / 1e6,
               *check / *library);
  }
  const std::optional<double> bare = reporter.rate("bare_event_loop/real_time");
  if (check && bare) {
    fmt::print("bare event loop {:.2f} M events/s, ratio check/bare loop {:.3f}\n", *bare / 1e6, *check / *bare);
  }
}

}  // namespace

int main(int argc, char** argv) {
  constexpr std::string_view kWriteOnly = "--write-history=";
  if (argc == 2 && std::string_view{argv[1]}.starts_with(kWriteOnly)) {
    const std::string path{std::string_view{argv[1]}.substr(kWriteOnly.size())};
    fmt::print("wrote {} events to {}\n", write_history(path), path);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  locksim::bench::RateReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_ratio(reporter);
  benchmark::Shutdown();
  std::filesystem::remove(history_path());
  return 0;
}
