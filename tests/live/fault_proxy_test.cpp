// The fault proxy between live workers and the real redis-servers, against
// a real redis-server on a free loopback port: it delays each way by the
// scenario's delay, holds every byte while a partition cuts the link and
// delivers it when it heals (TCP resends, it does not lose), adds a spike's
// extra delay to its targets only, passes a close on once what was held is
// delivered, and has workers that begin together reach the server in their
// order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "live/fault_proxy.h"
#include "live/redis_client.h"
#include "live/redis_server.h"

namespace locksim::live {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A proxy whose io_context runs on a thread of its own, as the coordinator's does.
class ProxyOnAThread {
 public:
  explicit ProxyOnAThread(sim::Distribution delay) : proxy_{io_, std::move(delay), 1.0, 7}, work_{io_.get_executor()} {}
  ~ProxyOnAThread() {
    work_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int open(const std::string& worker, const std::string& server, int port) {
    return proxy_.open_link(worker, server, "127.0.0.1", port);
  }
  void start() {
    thread_ = std::thread{[this] { io_.run(); }};
  }
  // Runs `action` on the proxy's thread and waits for it.
  template <typename Action>
  void on_proxy(Action action) {
    std::promise<void> done;
    asio::post(io_, [&] {
      action(proxy_);
      done.set_value();
    });
    done.get_future().wait();
  }

 private:
  asio::io_context io_;
  FaultProxy proxy_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
};

double round_trip_ms(RedisClient& client) {
  const auto started = steady_clock::now();
  EXPECT_EQ(client.command({"PING"}).text, "PONG");
  return std::chrono::duration<double, std::milli>(steady_clock::now() - started).count();
}

TEST(FaultProxy, DelaysEachWayByTheScenariosDelay) {
  const RedisServer server;
  ProxyOnAThread proxy{sim::Distribution::constant(sim::Duration::milliseconds(15))};
  const int port = proxy.open("worker-1", "redis-0", server.port());
  proxy.start();
  RedisClient client{"127.0.0.1", port};
  EXPECT_GE(round_trip_ms(client), 30.0) << "15 ms there and 15 ms back";
}

TEST(FaultProxy, APartitionHoldsTheRequestAndDeliversItWhenItHeals) {
  const RedisServer server;
  ProxyOnAThread proxy{sim::Distribution::constant(sim::Duration::microseconds(1))};
  const int cut_port = proxy.open("worker-1", "redis-0", server.port());
  const int other_port = proxy.open("worker-2", "redis-0", server.port());
  proxy.start();
  RedisClient cut_off{"127.0.0.1", cut_port, 2000};
  RedisClient other{"127.0.0.1", other_port};
  int partition = 0;
  proxy.on_proxy([&](FaultProxy& p) { partition = p.cut({"worker-1"}, {"redis-0"}); });

  // The SET waits in the proxy; worker-2's link is not cut.
  auto held = std::async(std::launch::async, [&] { return cut_off.command({"SET", "k", "from-worker-1"}).text; });
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(other.command({"GET", "k"}).type, RespValue::Type::kNil) << "the cut link delivered nothing";
  EXPECT_EQ(held.wait_for(milliseconds(0)), std::future_status::timeout);

  proxy.on_proxy([&](FaultProxy& p) { p.heal(partition); });
  EXPECT_EQ(held.get(), "OK");
  EXPECT_EQ(other.command({"GET", "k"}).text, "from-worker-1") << "held, not lost: TCP sends it again";
}

TEST(FaultProxy, ASpikeDelaysItsTargetAndNoOneElse) {
  const RedisServer server;
  ProxyOnAThread proxy{sim::Distribution::constant(sim::Duration::microseconds(1))};
  const int spiked_port = proxy.open("worker-1", "redis-0", server.port());
  const int other_port = proxy.open("worker-2", "redis-0", server.port());
  proxy.start();
  RedisClient spiked{"127.0.0.1", spiked_port};
  RedisClient other{"127.0.0.1", other_port};
  proxy.on_proxy([](FaultProxy& p) { p.spike({"worker-1"}, milliseconds(80), milliseconds(500), SpikeHold::kItsLength, {}); });
  EXPECT_GE(round_trip_ms(spiked), 80.0);
  EXPECT_LT(round_trip_ms(other), 80.0) << "worker-2 is no target of the spike";
}

TEST(FaultProxy, ASpikeAtAFaultPointHoldsItsTargetsNextRequestHoweverLateItLeaves) {
  const RedisServer server;
  ProxyOnAThread proxy{sim::Distribution::constant(sim::Duration::microseconds(1))};
  const int spiked_port = proxy.open("worker-1", "redis-0", server.port());
  proxy.start();
  RedisClient spiked{"127.0.0.1", spiked_port};
  std::atomic<bool> ended = false;
  proxy.on_proxy([&](FaultProxy& p) {
    p.spike({"worker-1"}, milliseconds(80), microseconds(1), SpikeHold::kTheNextRequestToo, [&] { ended = true; });
  });
  // Later than the spike's length and than kShortestSpike: a loaded scheduler's delay.
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(ended) << "the spike waits for the request";
  EXPECT_GE(round_trip_ms(spiked), 80.0) << "the next request is held";
  EXPECT_TRUE(ended);
  EXPECT_LT(round_trip_ms(spiked), 80.0) << "and only that one";
}

TEST(FaultProxy, AClientThatGaveUpDuringAPartitionStillHasItsRequestCarriedOut) {
  const RedisServer server;
  ProxyOnAThread proxy{sim::Distribution::constant(sim::Duration::microseconds(1))};
  const int cut_port = proxy.open("worker-1", "redis-0", server.port());
  proxy.start();
  int partition = 0;
  proxy.on_proxy([&](FaultProxy& p) { partition = p.cut({"worker-1"}, {"redis-0"}); });
  {
    // A client with a short timeout gives up and closes its connection.
    RedisClient impatient{"127.0.0.1", cut_port, 50};
    EXPECT_THROW(impatient.command({"SET", "late", "1"}), LiveError);
  }
  proxy.on_proxy([&](FaultProxy& p) { p.heal(partition); });
  RedisClient direct{"127.0.0.1", server.port()};
  const auto deadline = steady_clock::now() + milliseconds(2000);
  while (direct.command({"EXISTS", "late"}).integer == 0 && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(direct.command({"GET", "late"}).text, "1") << "the request landed after the heal, as H2's late write does";
}

TEST(FaultProxy, WorkersThatBeginTogetherReachTheServerInTheirOrderWhoeverSendsFirst) {
  const RedisServer server;
  ProxyOnAThread proxy{sim::Distribution::constant(sim::Duration::microseconds(1))};
  const int first_port = proxy.open("worker-1", "redis-0", server.port());
  const int second_port = proxy.open("worker-2", "redis-0", server.port());
  proxy.start();
  RedisClient first{"127.0.0.1", first_port};
  RedisClient second{"127.0.0.1", second_port};
  proxy.on_proxy([](FaultProxy& p) { p.take_turns({"worker-1", "worker-2"}, steady_clock::now(), {"redis-0"}); });

  // worker-2's timer fired first (a loaded scheduler woke worker-1 late).
  auto early = std::async(std::launch::async, [&] { return second.command({"SET", "lock", "worker-2", "NX"}).type; });
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(early.wait_for(milliseconds(0)), std::future_status::timeout) << "worker-2 waits for worker-1's turn";
  EXPECT_EQ(first.command({"SET", "lock", "worker-1", "NX"}).text, "OK") << "worker-1 asks first, as it does simulated";
  EXPECT_EQ(early.get(), RespValue::Type::kNil) << "then worker-2, who finds the lock taken";
  EXPECT_LT(round_trip_ms(second), 30.0) << "only the first request waits its turn";
}

TEST(FaultProxy, AWorkerWhoseTurnComesFirstAndSendsNothingHoldsTheNextUpOnlySoLong) {
  const RedisServer server;
  ProxyOnAThread proxy{sim::Distribution::constant(sim::Duration::microseconds(1))};
  proxy.open("worker-1", "redis-0", server.port());
  const int second_port = proxy.open("worker-2", "redis-0", server.port());
  proxy.start();
  RedisClient second{"127.0.0.1", second_port};
  proxy.on_proxy([](FaultProxy& p) { p.take_turns({"worker-1", "worker-2"}, steady_clock::now(), {"redis-0"}); });
  // worker-1 is frozen before its first request: worker-2 goes after kLongestWaitForTurn.
  const double waited = round_trip_ms(second);
  EXPECT_GE(waited, static_cast<double>(kLongestWaitForTurn.count()));
  EXPECT_LT(waited, 10.0 * static_cast<double>(kLongestWaitForTurn.count()));
}

}  // namespace
}  // namespace locksim::live
