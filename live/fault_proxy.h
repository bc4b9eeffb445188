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
#include <vector>

#include "live/asio_coroutines.h"
#include "sim/distribution.h"
#include "sim/random.h"

namespace locksim::live {

// Spikes shorter than this are stretched to it live.
inline constexpr std::chrono::milliseconds kShortestSpike{2};
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

  asio::awaitable<void> accept(std::shared_ptr<Link> link);
  asio::awaitable<void> read_side(std::shared_ptr<Connection> connection, Direction& direction);
  asio::awaitable<void> write_side(std::shared_ptr<Connection> connection, Direction& direction);
  [[nodiscard]] bool is_cut(const Link& link) const;
  // The extra delay of a chunk `sender` sends on `link`; a spike waiting for its target's next request has it.
  std::chrono::nanoseconds extra_delay(const Link& link, const std::string& sender);
  void end_spike_if_over(const std::shared_ptr<Spike>& spike);
  std::chrono::nanoseconds draw_delay(Link& link);
  [[nodiscard]] std::chrono::nanoseconds scaled(sim::Duration duration) const;
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

  asio::io_context& io_;
  sim::Distribution delay_;
  double time_scale_;
  sim::RandomStreams streams_;
  std::vector<std::shared_ptr<Link>> links_;
  std::map<int, Partition> partitions_;
  int next_partition_ = 1;
  std::vector<std::shared_ptr<Spike>> spikes_;  // those still on
  // Every byte held by a partition waits on this timer; a heal cancels it, waking them all.
  asio::steady_timer healed_;
};

}  // namespace locksim::live
