#include "live/fault_proxy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <iterator>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "sim/network.h"

namespace locksim::live {

using std::chrono::nanoseconds;
using std::chrono::steady_clock;
using tcp = asio::ip::tcp;

struct FaultProxy::Link {
  Link(asio::io_context& io, std::string worker_name, std::string server_name, std::string server_host, int port,
       sim::Rng random, LinkOptions link_options)
      : worker{std::move(worker_name)},
        server{std::move(server_name)},
        host{std::move(server_host)},
        server_port{port},
        acceptor{io},
        rng{random},
        options{std::move(link_options)} {}
  std::string worker;
  std::string server;
  std::string host;
  int server_port;
  tcp::acceptor acceptor;
  sim::Rng rng;
  LinkOptions options;
  std::vector<std::weak_ptr<Connection>> connections;
};

// One way of one connection: what was read from `from`, waiting to be written to `to`.
struct FaultProxy::Direction {
  Direction(asio::io_context& io, tcp::socket& source, tcp::socket& destination)
      : from{source}, to{destination}, wake{io, steady_clock::time_point::max()} {}
  struct Chunk {
    steady_clock::time_point deliver_at;
    std::string bytes;
    std::optional<std::string> after;  // a first request: the worker whose turn comes before (take_turns)
  };
  tcp::socket& from;
  tcp::socket& to;
  std::deque<Chunk> queue;
  steady_clock::time_point last_delivery{};
  bool source_closed = false;
  asio::steady_timer wake;  // cancelled when a chunk is queued or the source closed
};

struct FaultProxy::Connection {
  Connection(asio::io_context& io, Link& owner)
      : client{io}, server{io}, up{io, client, server}, down{io, server, client}, link{owner} {}
  void close() {
    boost::system::error_code ignored;
    client.close(ignored);
    server.close(ignored);
  }
  tcp::socket client;
  tcp::socket server;
  Direction up;    // worker → server
  Direction down;  // server → worker
  Link& link;
  bool awaits_first_answer = false;  // its worker's first request since its turns began is out (take_turns)
};

FaultProxy::FaultProxy(asio::io_context& io, sim::Distribution delay, double time_scale, std::uint64_t seed)
    : io_{io}, delay_{std::move(delay)}, time_scale_{time_scale}, streams_{seed},
      healed_{io, steady_clock::time_point::max()} {}

FaultProxy::~FaultProxy() {
  for (const auto& link : links_) {
    boost::system::error_code ignored;
    link->acceptor.close(ignored);
    for (const auto& weak : link->connections) {
      if (const auto connection = weak.lock()) connection->close();
    }
  }
}

int FaultProxy::open_link(const std::string& worker, const std::string& server, const std::string& host,
                          int server_port, LinkOptions options) {
  auto link = std::make_shared<Link>(io_, worker, server, host, server_port,
                                     streams_.stream(fmt::format("proxy/{}/{}", worker, server)), std::move(options));
  const tcp::endpoint loopback{asio::ip::make_address("127.0.0.1"), 0};
  link->acceptor.open(loopback.protocol());
  link->acceptor.bind(loopback);
  link->acceptor.listen();
  const int port = link->acceptor.local_endpoint().port();
  links_.push_back(link);
  asio::co_spawn(io_, accept(link), asio::detached);
  return port;
}

asio::awaitable<void> FaultProxy::accept(std::shared_ptr<Link> link) {
  const tcp::endpoint upstream{asio::ip::make_address(link->host), static_cast<unsigned short>(link->server_port)};
  while (true) {
    auto connection = std::make_shared<Connection>(io_, *link);
    boost::system::error_code error;
    co_await link->acceptor.async_accept(connection->client, asio::redirect_error(asio::use_awaitable, error));
    if (error) co_return;  // the proxy is closing
    co_await connection->server.async_connect(upstream, asio::redirect_error(asio::use_awaitable, error));
    if (error) {
      connection->close();  // the server is down: the worker sees its connection end, as a refused one
      continue;
    }
    connection->client.set_option(tcp::no_delay{true});
    connection->server.set_option(tcp::no_delay{true});
    std::erase_if(link->connections, [](const auto& weak) { return weak.expired(); });
    link->connections.push_back(connection);
    for (Direction* direction : {&connection->up, &connection->down}) {
      asio::co_spawn(io_, read_side(connection, *direction), asio::detached);
      asio::co_spawn(io_, write_side(connection, *direction), asio::detached);
    }
  }
}

nanoseconds FaultProxy::scaled(sim::Duration duration) const {
  return nanoseconds{std::llround(static_cast<double>(duration.count_ns()) * time_scale_)};
}

asio::awaitable<void> FaultProxy::wait_for_retransmission_after_heal(const Link& link) {
  // The sender's kernel retransmits from the moment the partition swallowed
  // the bytes, as the simulator's held links do; the first retransmission
  // after the heal gets through.
  using sim::TcpRetransmission;
  nanoseconds wait = scaled(TcpRetransmission::kFirstWait);
  steady_clock::time_point retransmission = steady_clock::now() + wait;
  boost::system::error_code error;
  while (is_cut(link)) {
    co_await healed_.async_wait(asio::redirect_error(asio::use_awaitable, error));
  }
  while (retransmission < steady_clock::now()) {
    wait = std::min(wait * 2, scaled(TcpRetransmission::kLongestWait));
    retransmission += wait;
  }
  asio::steady_timer timer{io_, retransmission};
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, error));
}

nanoseconds FaultProxy::draw_delay(Link& link) {
  const sim::Distribution& delay = link.options.delay ? *link.options.delay : delay_;
  return scaled(delay.sample(link.rng));
}

nanoseconds FaultProxy::extra_delay(const Link& link, const std::string& sender) {
  nanoseconds extra{0};
  std::vector<std::shared_ptr<Spike>> satisfied;
  for (const std::shared_ptr<Spike>& spike : spikes_) {
    if (spike->targets.empty() || spike->targets.contains(link.worker) || spike->targets.contains(link.server)) {
      extra += spike->extra;
      if (spike->waits_for_request && (spike->targets.empty() || spike->targets.contains(sender))) {
        spike->waits_for_request = false;
        satisfied.push_back(spike);
      }
    }
  }
  for (const std::shared_ptr<Spike>& spike : satisfied) end_spike_if_over(spike);
  return extra;
}

bool FaultProxy::is_cut(const Link& link) const {
  return std::ranges::any_of(partitions_, [&](const auto& entry) {
    const Partition& partition = entry.second;
    return (partition.side_a.contains(link.worker) && partition.side_b.contains(link.server)) ||
           (partition.side_b.contains(link.worker) && partition.side_a.contains(link.server));
  });
}

asio::awaitable<void> FaultProxy::read_side(std::shared_ptr<Connection> connection, Direction& direction) {
  std::array<char, 16384> buffer{};
  while (true) {
    boost::system::error_code error;
    const std::size_t read =
        co_await direction.from.async_read_some(asio::buffer(buffer), asio::redirect_error(asio::use_awaitable, error));
    if (error) break;
    // A TCP stream keeps its order: nothing overtakes an earlier chunk, also
    // not one a spike holds (the sender's later requests on this connection
    // wait behind it; a client that gave up reconnects and is not held).
    const Link& link = connection->link;
    const bool from_worker = &direction == &connection->up;
    const std::string& sender = from_worker ? link.worker : link.server;
    const auto deliver_at =
        std::max(direction.last_delivery, steady_clock::now() + draw_delay(connection->link)) + extra_delay(link, sender);
    direction.last_delivery = deliver_at;
    std::optional<std::string> after = from_worker ? waits_for_turn_after(*connection) : std::nullopt;
    if (!from_worker) answered(*connection);
    direction.queue.push_back({deliver_at, std::string(buffer.data(), read), std::move(after)});
    direction.wake.cancel();
  }
  if (&direction == &connection->down && connection->link.options.lose_held_on_server_close) direction.queue.clear();
  direction.source_closed = true;
  direction.wake.cancel();
}

asio::awaitable<void> FaultProxy::write_side(std::shared_ptr<Connection> connection, Direction& direction) {
  asio::steady_timer timer{io_};
  while (true) {
    boost::system::error_code error;
    if (direction.queue.empty()) {
      if (direction.source_closed) break;
      direction.wake.expires_at(steady_clock::time_point::max());
      co_await direction.wake.async_wait(asio::redirect_error(asio::use_awaitable, error));
      continue;
    }
    timer.expires_at(direction.queue.front().deliver_at);
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, error));
    if (is_cut(connection->link)) {
      co_await wait_for_retransmission_after_heal(connection->link);
    }
    if (direction.queue.empty()) continue;  // lost meanwhile (LinkOptions::lose_held_on_server_close)
    if (const std::optional<std::string> after = std::exchange(direction.queue.front().after, std::nullopt)) {
      co_await wait_for_turn(*after, connection->link.server);
    }
    const std::string bytes = std::move(direction.queue.front().bytes);
    direction.queue.pop_front();
    co_await asio::async_write(direction.to, asio::buffer(bytes), asio::redirect_error(asio::use_awaitable, error));
    if (error) {
      connection->close();  // the other end is gone: so is this connection, both ways
      co_return;
    }
  }
  // Everything the closed end had sent is delivered: now pass its close on.
  boost::system::error_code ignored;
  direction.to.shutdown(tcp::socket::shutdown_send, ignored);
}

bool FaultProxy::quiet() const {
  for (const auto& link : links_) {
    if (link->options.background) continue;
    for (const auto& weak : link->connections) {
      const auto connection = weak.lock();
      if (connection && (!connection->up.queue.empty() || !connection->down.queue.empty())) return false;
    }
  }
  return true;
}

void FaultProxy::take_turns(const std::vector<std::string>& tied, steady_clock::time_point begin,
                            const std::set<std::string>& servers) {
  turns_.push_back({tied, begin, servers});
}

std::optional<std::string> FaultProxy::waits_for_turn_after(Connection& connection) {
  const Link& link = connection.link;
  for (const Turns& turns : turns_) {
    const auto place = std::ranges::find(turns.order, link.worker);
    if (place == turns.order.end() || !turns.servers.contains(link.server)) continue;
    if (steady_clock::now() < turns.begin || !first_requests_.emplace(link.worker, link.server).second) return std::nullopt;
    connection.awaits_first_answer = true;
    if (place == turns.order.begin()) return std::nullopt;
    return *std::prev(place);
  }
  return std::nullopt;
}

void FaultProxy::answered(Connection& connection) {
  if (!std::exchange(connection.awaits_first_answer, false)) return;
  first_answers_.emplace(connection.link.worker, connection.link.server);
  for (asio::steady_timer* waiter : turn_waiters_) waiter->cancel();
}

asio::awaitable<void> FaultProxy::wait_for_turn(const std::string& worker_before, const std::string& server) {
  asio::steady_timer waiter{io_, steady_clock::now() + kLongestWaitForTurn};
  turn_waiters_.push_back(&waiter);
  while (!first_answers_.contains({worker_before, server}) && steady_clock::now() < waiter.expiry()) {
    boost::system::error_code error;
    co_await waiter.async_wait(asio::redirect_error(asio::use_awaitable, error));
  }
  std::erase(turn_waiters_, &waiter);
}

int FaultProxy::cut(const std::vector<std::string>& side_a, const std::vector<std::string>& side_b) {
  const int id = next_partition_++;
  partitions_[id] = Partition{{side_a.begin(), side_a.end()}, {side_b.begin(), side_b.end()}};
  return id;
}

void FaultProxy::heal(int partition) {
  partitions_.erase(partition);
  healed_.cancel();
}

void FaultProxy::spike(const std::vector<std::string>& targets, nanoseconds extra, nanoseconds length,
                       SpikeHold hold, std::function<void()> ended) {
  auto spike = std::make_shared<Spike>(io_, std::set<std::string>{targets.begin(), targets.end()}, extra,
                                       hold == SpikeHold::kTheNextRequestToo, std::move(ended));
  spikes_.push_back(spike);
  spike->timer.expires_after(std::max<nanoseconds>(length, kShortestSpike));
  spike->timer.async_wait([this, spike](const boost::system::error_code& error) {
    if (error) return;
    spike->length_over = true;
    end_spike_if_over(spike);
    if (!spike->waits_for_request) return;
    spike->timer.expires_after(kLongestWaitForRequest);
    spike->timer.async_wait([this, spike](const boost::system::error_code& late) {
      if (late) return;
      spike->waits_for_request = false;
      end_spike_if_over(spike);
    });
  });
}

void FaultProxy::end_spike_if_over(const std::shared_ptr<Spike>& spike) {
  if (!spike->length_over || spike->waits_for_request) return;
  if (std::erase(spikes_, spike) == 0) return;  // already ended
  spike->timer.cancel();
  if (spike->ended) spike->ended();
}

}  // namespace locksim::live
