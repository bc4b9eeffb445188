#include "live/primary_finder.h"

#include <string>

namespace locksim::live {

PrimaryFinder::PrimaryFinder(asio::any_io_executor executor, SentinelRoute route, std::vector<AsyncRedis*> connections)
    : route_{std::move(route)}, connections_{std::move(connections)}, questions_{executor}, switches_{executor} {}

void PrimaryFinder::point_at(int announced_port) {
  for (const auto& [announced, link] : route_.ports) {
    if (announced != announced_port) continue;
    for (AsyncRedis* connection : connections_) connection->retarget(link);
  }
}

asio::awaitable<bool> PrimaryFinder::ask(std::chrono::nanoseconds timeout) {
  if (questions_.port() == 0) co_await questions_.connect("127.0.0.1", route_.sentinel_port);
  // A named local, not a braced temporary inside co_await (GCC 12; sim/task.h).
  std::vector<std::string> question{"SENTINEL", "get-master-addr-by-name", route_.master_name};
  const std::optional<RespValue> reply = co_await questions_.command(std::move(question), timeout);
  if (!reply || reply->is_error() || reply->items.size() != 2) co_return false;
  point_at(std::stoi(reply->items[1].text));
  co_return true;
}

asio::awaitable<void> PrimaryFinder::follow_switches(std::chrono::nanoseconds retry) {
  while (true) {
    if (switches_.port() == 0) co_await switches_.connect("127.0.0.1", route_.sentinel_port);
    std::vector<std::string> subscribe{"SUBSCRIBE", "+switch-master"};
    if (co_await switches_.send(std::move(subscribe))) {
      while (true) {
        const std::optional<RespValue> message = co_await switches_.next_reply();
        if (!message) break;
        // ["message", "+switch-master", "NAME OLD-IP OLD-PORT NEW-IP NEW-PORT"]
        if (message->items.size() != 3 || message->items[0].text != "message") continue;
        const std::string& text = message->items[2].text;
        point_at(std::stoi(text.substr(text.rfind(' ') + 1)));
      }
    }
    asio::steady_timer pause{co_await asio::this_coro::executor};
    pause.expires_after(retry);
    co_await pause.async_wait(asio::use_awaitable);
  }
}

}  // namespace locksim::live
