#pragma once
// Live mode's network: every worker reaches each server (the lock service,
// storage) through a TCP proxy of its own in the coordinator, one listening
// port per (worker, server) link, which is where the scenario's network
// happens for real:
// - each chunk of bytes, in either direction, is delivered after a delay
//   drawn from the scenario's network delay distribution (scaled), never
//   before an earlier chunk of the same connection — a TCP stream keeps its
//   order, as the simulator's FIFO links do;
// - a delay spike adds its extra delay to what is sent to or from its
//   targets while it lasts (at least kShortestSpike); one a worker's fault
//   point started lasts also until it has held the request that worker
//   sends next, however late the scheduler lets it leave;
// - a partition holds every byte on the links it cuts until the first
//   retransmission after it heals (sim::TcpRetransmission: 200 ms after the
//   bytes were swallowed, then doubling, scaled), as the simulator's TCP
//   partitions do: a request sent into a partition is carried out after the
//   heal — also when its client gave up and closed the connection meanwhile
//   (the closing FIN waits behind the data). That is what a real network
//   does to Redis clients. (A partition that drops, /network/partitions
//   "drop", has no live form.)
//
// - workers planned to begin at the same instant (take_turns) reach each
//   lock server in worker order, as the simulator's tie over a constant
//   delay has them: a process's timer fires some milliseconds late on a
//   loaded machine, which would otherwise let the machine pick the first
//   holder.
//
// A connection's two directions close as TCP's do: when one end closes,
// what is still held is delivered first, then the other end is shut down.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "live/asio_coroutines.h"
#include "sim/distribution.h"
#include "sim/random.h"

namespace locksim::live {

// Spikes shorter than this are stretched to it live.
inline constexpr std::chrono::milliseconds kShortestSpike{2};
// A first request waiting for its turn (take_turns) waits at most this: a
// worker before it that sends nothing so long (one frozen before its first
// request, or cut off) does not hold the rest up longer.
inline constexpr std::chrono::milliseconds kLongestWaitForTurn{100};
// A spike waiting for its target's next request gives up after this: a
// worker that sends nothing for so long (a crashed one) is not coming.
inline constexpr std::chrono::seconds kLongestWaitForRequest{1};

// How long a spike lasts live.
enum class SpikeHold {
  kItsLength,         // its length (at least kShortestSpike)
  kTheNextRequestToo, // also until it held a request one of its targets sent
};

// A link's own settings; the defaults are a worker's link.
struct LinkOptions {
  // One way, scaled like the proxy's; default (none): the proxy's delay.
  // A replica's link to its primary carries the scenario's replication lag.
  std::optional<sim::Distribution> delay;
  // A link between servers (replication, Sentinel's pings) is never idle:
  // quiet() looks only at the others. Default false.
  bool background = false;
  // What the link still holds from the server when the server's end closes
  // is lost, not delivered: the delay stands for the server not having sent
  // it yet (a replica's link: the model's replication lag is a change the
  // primary has not shipped, and a crash loses it). Default false: held
  // bytes are on the wire, and arrive.
  bool lose_held_on_server_close = false;
};

class FaultProxy {
 public:
  // `delay` is one way, scaled by `time_scale`; draws come from `seed`.
  FaultProxy(asio::io_context& io, sim::Distribution delay, double time_scale, std::uint64_t seed);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // Listens on a free 127.0.0.1 port for `worker`'s connections to `server`,
  // forwarded to 127.0.0.1:server_port (or the host given); returns the port.
  // `worker` names the link's client end (a server's name for a link between servers).
  int open_link(const std::string& worker, const std::string& server, const std::string& host, int server_port,
                LinkOptions options = {});

  // `tied` (workers in their order) begin together at `begin`: the first
  // request each sends to one of `servers` at or after `begin` is held until
  // the worker before it has had its own first request there answered (at
  // most kLongestWaitForTurn).
  void take_turns(const std::vector<std::string>& tied, std::chrono::steady_clock::time_point begin,
                  const std::set<std::string>& servers);

  // Cuts every link between a node of `side_a` and one of `side_b` until heal(id).
  int cut(const std::vector<std::string>& side_a, const std::vector<std::string>& side_b);
  void heal(int partition);
  // True when no byte is on its way: nothing read is still waiting to be delivered.
  [[nodiscard]] bool quiet() const;

  // Adds `extra` to what is sent to or from any of `targets` for `length`
  // (and as `hold` says); calls `ended` when it is over.
  void spike(const std::vector<std::string>& targets, std::chrono::nanoseconds extra, std::chrono::nanoseconds length,
             SpikeHold hold, std::function<void()> ended);

 private:
  struct Link;
  struct Direction;
  struct Connection;
  struct Spike;
  struct Turns;

  asio::awaitable<void> accept(std::shared_ptr<Link> link);
  asio::awaitable<void> read_side(std::shared_ptr<Connection> connection, Direction& direction);
  asio::awaitable<void> write_side(std::shared_ptr<Connection> connection, Direction& direction);
  [[nodiscard]] bool is_cut(const Link& link) const;
  // The extra delay of a chunk `sender` sends on `link`; a spike waiting for its target's next request has it.
  std::chrono::nanoseconds extra_delay(const Link& link, const std::string& sender);
  void end_spike_if_over(const std::shared_ptr<Spike>& spike);
  std::chrono::nanoseconds draw_delay(Link& link);
  [[nodiscard]] std::chrono::nanoseconds scaled(sim::Duration duration) const;
  // For a request read on `connection`: when it is its worker's first to the
  // server since its turns began, the worker before it, whose answer it waits for.
  std::optional<std::string> waits_for_turn_after(Connection& connection);
  asio::awaitable<void> wait_for_turn(const std::string& worker_before, const std::string& server);
  void answered(Connection& connection);
  // Returns at the first retransmission after the partition cutting `link` heals.
  asio::awaitable<void> wait_for_retransmission_after_heal(const Link& link);

  struct Spike {
    Spike(asio::io_context& io, std::set<std::string> on, std::chrono::nanoseconds added, bool waits,
          std::function<void()> on_end)
        : targets{std::move(on)}, extra{added}, waits_for_request{waits}, ended{std::move(on_end)}, timer{io} {}
    std::set<std::string> targets;
    std::chrono::nanoseconds extra{};
    bool waits_for_request = false;  // SpikeHold::kTheNextRequestToo, and no request held yet
    bool length_over = false;
    std::function<void()> ended;
    asio::steady_timer timer;  // its length; then the wait for a request
  };
  struct Partition {
    std::set<std::string> side_a;
    std::set<std::string> side_b;
  };
  struct Turns {
    std::vector<std::string> order;
    std::chrono::steady_clock::time_point begin;
    std::set<std::string> servers;
  };

  asio::io_context& io_;
  sim::Distribution delay_;
  double time_scale_;
  sim::RandomStreams streams_;
  std::vector<std::shared_ptr<Link>> links_;
  std::map<int, Partition> partitions_;
  int next_partition_ = 1;
  std::vector<std::shared_ptr<Spike>> spikes_;  // those still on
  std::vector<Turns> turns_;
  std::set<std::pair<std::string, std::string>> first_requests_;  // (worker, server): read since its turns began
  std::set<std::pair<std::string, std::string>> first_answers_;   // (worker, server): and answered
  std::vector<asio::steady_timer*> turn_waiters_;                   // each woken at an answer
  // Every byte held by a partition waits on this timer; a heal cancels it, waking them all.
  asio::steady_timer healed_;
};

}  // namespace locksim::live
