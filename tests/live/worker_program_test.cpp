// `locksim live` with the user's own worker program (workers.command): the
// shipped Python example under a pause past the lease writes stale and loses
// an update without fencing and neither with it, judged with grants derived
// from its own acquire.ok lines; a program that breaks the contract — a line
// that is no event, a non-zero exit, a command that is not there, one that
// never prints — is named with what it did, exit 2 or stopped short, no hang.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../cli/locksim_process.h"
#include "../text_files.h"
#include "live_summary.h"

namespace locksim::live {
namespace {

using cli_test::Result;
using cli_test::run_locksim;
using cli_test::scratch;

using cli_test::read_text;
using test_support::lines_of;

std::string example(const std::string& name) { return std::string{LOCKSIM_SOURCE_DIR} + "/examples/" + name; }

TEST(WorkerProgram, ThePythonExamplePausedPastTheLeaseWritesStaleWithoutFencingAndNotWithIt) {
  const std::string json = scratch("python.json");
  const std::string histories = scratch("python-histories");
  const Result result = run_locksim("live " + example("python-worker/pause-past-lease.json") + " --runs 1 --history " +
                                    histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& off = live_mode(summary, "fencing-off")["violations"];
  const nlohmann::json& on = live_mode(summary, "fencing-on")["violations"];
  EXPECT_GT(off["stale_write"], 0) << result.output;
  EXPECT_GT(off["lost_update"], 0) << result.output;
  EXPECT_EQ(on["stale_write"], 0) << result.output;
  EXPECT_EQ(on["lost_update"], 0) << result.output;
  EXPECT_GT(live_mode(summary, "fencing-on")["counts"]["rejected_writes"], 0) << "storage's script turned the late write away";

  // The program took the pause itself (live.hello), exactly before its write:
  // nothing of worker-1's lies between its write.invoke and the pause.
  const std::string history = read_text(histories + "/python-worker-pause-past-lease-live-seed1-fencing-off.jsonl");
  EXPECT_NE(history.find("\"ev\":\"lease.grant\""), std::string::npos) << "grants derived from acquire.ok";
  std::istringstream lines{history};
  std::string line;
  bool after_write_invoke = false;
  bool paused_right_there = false;
  while (std::getline(lines, line)) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["proc"] == "worker-1" && event["ev"] == "write.invoke" && !paused_right_there) after_write_invoke = true;
    if (after_write_invoke && event["proc"] == "nemesis" && event["ev"] == "fault.begin") paused_right_there = true;
    if (after_write_invoke && !paused_right_there && event["proc"] == "storage" && event.value("writer", "") == "worker-1") {
      ADD_FAILURE() << "worker-1's write reached storage before the pause: " << line;
    }
  }
  EXPECT_TRUE(paused_right_there) << history;
}

TEST(WorkerProgram, AProgramThatDoesNotTakeItsOwnStopsIsStoppedOnItsLine) {
  const std::string json = scratch("late.json");
  const std::string histories = scratch("late-histories");
  const Result result = run_locksim("live " + data("worker-program-late-stop.json") + " --runs 1 --history " + histories +
                                    " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  EXPECT_GT(live_mode(summary, "fencing-off")["violations"]["stale_write"], 0) << result.output;
  // locksim's SIGSTOP came after the hold.begin line it was sent on.
  std::istringstream lines{read_text(histories + "/live-worker-program-late-stop-live-seed1-fencing-off.jsonl")};
  bool holding = false;
  bool paused = false;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["proc"] == "worker-1" && event["ev"] == "hold.begin") holding = true;
    if (event["proc"] == "nemesis" && event["ev"] == "fault.begin") {
      EXPECT_TRUE(holding) << "the pause came before worker-1's hold: " << line;
      paused = true;
    }
  }
  EXPECT_TRUE(paused);
}

TEST(WorkerProgram, ALineThatIsNoHistoryEventEndsTheRunNamingTheWorkerAndTheLine) {
  const auto started = std::chrono::steady_clock::now();
  const Result result = run_locksim("live " + data("worker-program-bad-line.json") + " --runs 1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(R"(worker-1 (workers.command ["sh","-c","echo 'hello from my worker'; sleep 30"]) printed )"
                               "a line that is not one of its history events (it is not a JSON object): hello from my worker"),
            std::string::npos)
      << result.output;
  // Its `sleep 30` was killed with it (the worker's process group), so nothing held the pipe open.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds{10});
}

// redis-py and node-redlock hold opaque string lock ids: a crash's hold.end
// carries the worker's own string, and no line of the worker is dropped.
TEST(WorkerProgram, AStringTokenIsKeptAsTheWorkerWroteItThroughACrash) {
  const std::string histories = scratch("string-token-histories");
  const Result result = cli_test::run_shell("timeout 60 " + std::string{LOCKSIM_BINARY} + " live " +
                                            data("worker-program-string-token-crash.json") + " --runs 1 --history " +
                                            histories);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::istringstream lines{read_text(histories + "/live-worker-program-string-token-crash-live-seed1-fencing-off.jsonl")};
  std::vector<std::string> holds;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["ev"] == "hold.begin" || event["ev"] == "hold.end") {
      holds.push_back(event["ev"].get<std::string>() + " " + event["token"].dump());
    }
  }
  EXPECT_EQ(holds, (std::vector<std::string>{"hold.begin \"abc-1\"", "hold.end \"abc-1\""})) << result.output;
}

// A field of the wrong JSON type is the program's bad line, named with the field: exit 2, not an internal error.
TEST(WorkerProgram, AFieldOfTheWrongTypeIsNamed) {
  const Result result = cli_test::run_shell("timeout 60 " + std::string{LOCKSIM_BINARY} + " live " +
                                            data("worker-program-wrong-type.json") + " --runs 1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(R"(printed a line that is not one of its history events (its "reason" is a number, )"
                               "not a string)"),
            std::string::npos)
      << result.output;
}

TEST(WorkerProgram, AProgramThatExitsNonZeroOrCannotStartIsNamedWithWhy) {
  const Result exits = run_locksim("live " + data("worker-program-exits.json") + " --runs 1");
  EXPECT_EQ(exits.exit_code, 2) << exits.output;
  EXPECT_NE(exits.output.find("cannot reach my config"), std::string::npos) << "its stderr is shown: " << exits.output;
  EXPECT_NE(exits.output.find(R"(worker-1 (workers.command ["sh","-c","echo 'cannot reach my config' >&2; exit 3"]) )"
                              "exited with status 3"),
            std::string::npos)
      << exits.output;

  const Result missing = run_locksim("live " + data("worker-program-missing.json") + " --runs 1");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find(R"(worker-1: cannot start ["./no-such-worker","--fast"] in )"), std::string::npos)
      << missing.output;
  EXPECT_NE(missing.output.find("No such file or directory"), std::string::npos) << missing.output;
}

TEST(WorkerProgram, AProgramThatNeverPrintsIsStoppedAtTheDurationAndNamed) {
  const std::string json = scratch("silent.json");
  const auto started = std::chrono::steady_clock::now();
  const Result result = run_locksim("live " + data("worker-program-silent.json") +
                                    " --runs 1 --fencing off --ready-timeout 1 --json " + json);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds{10})
      << "bounded by the wait for its hello (1 s) and the scaled duration (1 s)";
  EXPECT_NE(result.output.find("worker-1 had not said it was ready (live.hello) 1s after it was started: the run began "
                               "without it"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find(R"(worker-1 (workers.command ["sleep","60"]) printed no line)"), std::string::npos)
      << result.output;
  EXPECT_EQ(result.exit_code, 1) << "a run stopped short fails the scenario: " << result.output;
  EXPECT_EQ(live_mode(read_json(json), "fencing-off")["stopped_short"], 1) << result.output;
}

TEST(WorkerProgram, AProgramThatClosesItsStdoutAndLivesOnIsStillEndedAtTheDuration) {
  const auto started = std::chrono::steady_clock::now();
  const Result result =
      run_locksim("live " + data("worker-program-closes-stdout.json") + " --runs 1 --fencing off --ready-timeout 1");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds{10}) << result.output;
  EXPECT_EQ(result.exit_code, 1) << "stopped short: " << result.output;
  EXPECT_NE(result.output.find("printed no line"), std::string::npos) << result.output;
}

// A program that worked and then exited by itself (redis-semaphore ends the
// process when it loses its lock) is a worker that ended, not a broken
// program: its end is a crash in the history, the run says so and goes on.
TEST(WorkerProgram, AProgramThatExitsByItselfAfterItBeganEndsThatWorkerAndTheRunGoesOn) {
  const std::string histories = scratch("self-exit-histories");
  const Result result = cli_test::run_shell("timeout 60 " + std::string{LOCKSIM_BINARY} + " live " +
                                            data("worker-program-self-exit.json") + " --runs 1 --history " + histories);
  EXPECT_NE(result.exit_code, 2) << "not a broken program: " << result.output;
  EXPECT_NE(result.exit_code, 3) << result.output;
  EXPECT_NE(result.output.find("lock lost: giving up"), std::string::npos) << "its stderr is shown: " << result.output;
  EXPECT_NE(result.output.find("worker-1 exited with status 1 at "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("inside its hold, with 1 job left (its message is above): its end is recorded as a crash "
                               "of the worker, and the run went on without it"),
            std::string::npos)
      << result.output;
  std::vector<std::string> ends;
  for (const std::string& line : lines_of(read_text(histories + "/live-worker-program-self-exit-live-seed1-fencing-off.jsonl"))) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["proc"] == "worker-1" && (event["ev"] == "hold.end" || event["ev"] == "crash")) {
      ends.push_back(event["ev"].get<std::string>() + " " + event.value("reason", std::string{}));
    }
  }
  EXPECT_EQ(ends, (std::vector<std::string>{"hold.end crash", "crash "})) << result.output;
}

// Python and Node clients take 0.1-2 s to load: t = 0 waits until every
// program said it is ready, so a fault at a time falls inside the run.
TEST(WorkerProgram, TimeZeroWaitsForEveryProgramToSayItIsReady) {
  const std::string histories = scratch("slow-start-histories");
  const Result result = run_locksim("live " + data("worker-program-slow-start.json") + " --runs 1 --history " + histories);
  ASSERT_NE(result.exit_code, 2) << result.output;
  EXPECT_EQ(result.output.find("ready"), std::string::npos) << "no program was late: " << result.output;
  std::int64_t first_line = -1;
  std::int64_t pause = -1;
  for (const std::string& line : lines_of(read_text(histories + "/live-worker-program-slow-start-live-seed1-fencing-off.jsonl"))) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["proc"] == "worker-1" && first_line < 0) first_line = event["t"].get<std::int64_t>();
    if (event["proc"] == "nemesis" && event["ev"] == "fault.begin") pause = event["t"].get<std::int64_t>();
  }
  ASSERT_GE(first_line, 0) << result.output;
  ASSERT_GE(pause, 0) << "the pause fired: " << result.output;
  EXPECT_LT(first_line, pause) << "worker-1 began before its pause, which came 1 s (scaled: 50 ms) into the run";
  EXPECT_GE(pause, 45'000'000) << "the pause came at its time after t = 0, not while the program was starting";
}

// A program slower than --ready-timeout: the run starts without it, and says when it was ready.
TEST(WorkerProgram, AProgramReadyAfterTheWaitStartsLateAndTheRunSaysSo) {
  const Result result =
      run_locksim("live " + data("worker-program-slow-start.json") + " --runs 1 --fencing off --ready-timeout 0.5");
  ASSERT_NE(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("worker-1 had not said it was ready (live.hello) 500ms after it was started"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("worker-1 said it was ready "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find(" after t = 0: its first job began that late"), std::string::npos) << result.output;
}

// A program that prints an event before it said it is ready broke the handshake: named, exit 2.
TEST(WorkerProgram, AnEventBeforeTheHelloIsNamed) {
  const std::string file = scratch("no-hello.json");
  std::ofstream{file} << R"({"name": "no-hello", "lock": {"lease": "10s"}, "workload": {"kind": "counter", "jobs": 1},
    "workers": {"count": 1, "command": ["sh", "-c",
      "echo '{\"t\":1,\"proc\":\"worker-1\",\"ev\":\"acquire.invoke\",\"lock\":\"lock\",\"call\":\"c1\"}'; sleep 30"]}})";
  const Result result = run_locksim("live " + file + " --runs 1 --fencing off");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("printed acquire.invoke before its live.hello: a program says live.hello when it is "
                               "ready, then reads t = 0 from stdin"),
            std::string::npos)
      << result.output;
}

// Storage orders writes by number: a string token under fencing is turned away every time, and the run says why.
TEST(WorkerProgram, AStringTokenUnderFencingIsExplainedAtTheFirstWrite) {
  const Result result = cli_test::run_shell("timeout 60 " + std::string{LOCKSIM_BINARY} + " live " +
                                            data("worker-program-string-token-fenced.json") + " --runs 1 --fencing on");
  EXPECT_NE(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("seed 1 fencing-on: worker-1 sent storage the string token \"abc-1\" with fencing on: "
                               "storage orders writes by number, so it turns every such write away as stale-token"),
            std::string::npos)
      << result.output;
}

// Ctrl-C or a TERM ends a live run cleanly: every worker killed, locksim's
// servers stopped and their directories removed, exit 128 + the signal.
TEST(WorkerProgram, SigintAndSigtermEndTheRunCleanly) {
  for (const auto& [signal, code] : {std::pair{"INT", 130}, std::pair{"TERM", 143}}) {
    const Result result = cli_test::run_shell(
        std::string{LOCKSIM_BINARY} + " live " + example("python-worker/pause-past-lease.json") +
        " --runs 1 --fencing off 2>&1 & pid=$!; sleep 2; kill -" + signal + " $pid; wait $pid; echo \"exit=$?\"; " +
        "ls -d ${TMPDIR:-/tmp}/locksim-redis-$pid-* 2>/dev/null | wc -l | sed 's/^/left=/'");
    EXPECT_NE(result.output.find(fmt::format("exit={}", code)), std::string::npos) << signal << ": " << result.output;
    EXPECT_NE(result.output.find(fmt::format("interrupted by SIG{}: every worker process was killed", signal)),
              std::string::npos)
        << result.output;
    EXPECT_NE(result.output.find("left=0"), std::string::npos) << "its servers' directories were removed: " << result.output;
    EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
  }
}

// A locksim killed with SIGKILL cannot remove its servers' directories: the
// next live run does. In a temporary directory of the test's own ($TMPDIR),
// so that no other live run beside it cleans it first.
TEST(WorkerProgram, TheDirectoriesOfAKilledLocksimAreRemovedByTheNextRun) {
  const std::string temporary = scratch("own-tmp");
  std::filesystem::create_directories(temporary);
  const Result dead = cli_test::run_shell("sh -c 'echo $$'");
  const std::string pid = dead.output.substr(0, dead.output.find('\n'));
  const std::string left = temporary + "/locksim-redis-" + pid + "-Zq9xYw";
  const std::string alive = temporary + "/locksim-redis-1-Aa1bB2";  // init's pid: a process that runs
  for (const std::string& directory : {left, alive}) {
    std::filesystem::create_directories(directory);
    std::ofstream{directory + "/dump.rdb"} << "x";
  }
  const Result result = cli_test::run_shell("TMPDIR=" + temporary + " timeout 60 " + std::string{LOCKSIM_BINARY} +
                                            " live " + data("worker-program-bad-line.json") + " --runs 1");
  EXPECT_NE(result.output.find("removed " + left + ", left by a locksim that no longer runs"), std::string::npos)
      << result.output;
  EXPECT_FALSE(std::filesystem::exists(left));
  EXPECT_TRUE(std::filesystem::exists(alive)) << "the directory of a process that runs is left";
  EXPECT_EQ(result.output.find("removed " + alive), std::string::npos) << result.output;
}

// The configuration a program is given, as it printed it on stderr before
// exiting (a program that exits before its hello has its stderr shown).
nlohmann::json config_given(const std::string& service, const std::string& tag) {
  const std::string file = scratch(tag + ".json");
  std::ofstream{file} << R"({"name": ")" << tag << R"(", "service": )" << service
                      << R"(, "lock": {"lease": "2s"}, "workload": {"kind": "counter", "jobs": 1},
    "workers": {"count": 1, "command": ["sh", "-c", "echo \"CONFIG $LOCKSIM_WORKER_CONFIG\" >&2; exit 3"]}})";
  const Result result = run_locksim("live " + file + " --runs 1 --fencing off");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  const std::size_t at = result.output.find("CONFIG {");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no configuration on stderr: " << result.output;
    return nlohmann::json::object();
  }
  const std::size_t begin = at + std::string_view{"CONFIG "}.size();
  return nlohmann::json::parse(result.output.substr(begin, result.output.find('\n', begin) - begin));
}

// On etcd (`consensus`) a program is given every member's endpoint — its own
// link through the fault proxy, member 0 first — and the member the model's
// client would ask first; on Redis it is given none.
TEST(WorkerProgram, OnConsensusItIsGivenTheEtcdMembersEndpointsAndTheOneToAskFirst) {
  const nlohmann::json config = config_given(R"({"kind": "consensus", "nodes": 3})", "etcd-config");
  ASSERT_TRUE(config.contains("etcd")) << config.dump();
  const nlohmann::json& etcd = config["etcd"];
  EXPECT_EQ(etcd["first"], 0) << "worker-1's client asks member 0 first: " << config.dump();
  ASSERT_EQ(etcd["endpoints"].size(), 3u) << config.dump();
  ASSERT_EQ(config["lock_ports"].size(), 3u) << config.dump();
  for (std::size_t member = 0; member < 3; ++member) {
    EXPECT_EQ(etcd["endpoints"][member], fmt::format("127.0.0.1:{}", config["lock_ports"][member].get<int>()))
        << config.dump();
  }
  EXPECT_EQ(config["lock"]["lease_ms"], 2000) << "time scale 1 on etcd: " << config.dump();

  const nlohmann::json redis = config_given(R"({"kind": "redis"})", "redis-config");
  EXPECT_FALSE(redis.contains("etcd")) << redis.dump();
  EXPECT_TRUE(redis.contains("lock_port")) << redis.dump();
}

TEST(WorkerProgram, TheKeyIsCheckedWithItsPath) {
  const std::string file = scratch("bad-command.json");
  std::ofstream{file} << R"({"name": "x", "workers": {"command": "python3 worker.py"}})";
  const Result result = run_locksim("run " + file);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("/workers/command: expected a list of 1 to 64 strings"), std::string::npos) << result.output;

  // Your own program runs the counter and write-only workloads (billing is locksim's own worker's).
  const std::string billing = scratch("billing-command.json");
  std::ofstream{billing} << R"({"name": "x", "workers": {"command": ["./w"]}, "workload": {"kind": "billing"}})";
  const Result refused = run_locksim("live " + billing + " --runs 1");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("/workers/command: a worker program of your own runs the counter and write-only workloads"),
            std::string::npos)
      << refused.output;

  // The simulator ignores it: `run` simulates the scenario's own client.
  const Result simulated = run_locksim("run " + example("python-worker/pause-past-lease.json") + " --seeds 2");
  EXPECT_EQ(simulated.exit_code, 0) << simulated.output;
}

}  // namespace
}  // namespace locksim::live
