#include "live/etcd_gateway.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string_view>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "live/redis_client.h"
#include "vocabulary/reason.h"

namespace locksim::live {

namespace beast = boost::beast;
namespace http = beast::http;
namespace reason = vocabulary::reason;
using nlohmann::json;
using tcp = asio::ip::tcp;

namespace {

// --- Base64, as the gateway carries keys and values (RFC 4648, with padding).

constexpr std::string_view kBase64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t start = 0; start < bytes.size(); start += 3) {
    const std::size_t taken = std::min<std::size_t>(3, bytes.size() - start);
    std::uint32_t group = 0;  // three bytes, the missing ones zero
    for (std::size_t index = 0; index < 3; ++index) {
      group = (group << 8) | (index < taken ? static_cast<unsigned char>(bytes[start + index]) : 0U);
    }
    // n bytes make n + 1 characters; '=' pads the group to four.
    for (std::size_t index = 0; index < 4; ++index) {
      text += index <= taken ? kBase64Alphabet[(group >> (18 - 6 * index)) & 0x3F] : '=';
    }
  }
  return text;
}

// Throws std::invalid_argument for a character outside the alphabet.
std::string base64_decode(std::string_view text) {
  std::string bytes;
  std::uint32_t bits = 0;
  int bit_count = 0;
  for (const char character : text) {
    if (character == '=') break;
    const std::size_t value = kBase64Alphabet.find(character);
    if (value == std::string_view::npos) throw std::invalid_argument("a value that is not base64");
    bits = (bits << 6) | static_cast<std::uint32_t>(value);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      bytes += static_cast<char>((bits >> bit_count) & 0xFF);
    }
  }
  return bytes;
}

// --- Reading the gateway's JSON: absent fields are the default; int64s are strings.

template <typename Integer>
Integer integer_field(const json& object, const char* name) {
  const auto field = object.find(name);
  if (field == object.end()) return 0;
  if (field->is_number_integer()) return field->get<Integer>();
  const std::string& text = field->get_ref<const std::string&>();
  Integer value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) {
    throw std::invalid_argument(fmt::format("field {} is not an integer: {}", name, text));
  }
  return value;
}

std::int64_t int64_field(const json& object, const char* name) { return integer_field<std::int64_t>(object, name); }
std::uint64_t uint64_field(const json& object, const char* name) { return integer_field<std::uint64_t>(object, name); }

std::string bytes_field(const json& object, const char* name) {
  const auto field = object.find(name);
  return field == object.end() ? std::string{} : base64_decode(field->get_ref<const std::string&>());
}

const json& object_field(const json& object, const char* name) {
  static const json kEmpty = json::object();
  const auto field = object.find(name);
  return field == object.end() ? kEmpty : *field;
}

EtcdKeyValue key_value(const json& object) {
  return EtcdKeyValue{bytes_field(object, "key"),
                      bytes_field(object, "value"),
                      int64_field(object, "create_revision"),
                      int64_field(object, "mod_revision"),
                      int64_field(object, "version"),
                      int64_field(object, "lease")};
}

std::vector<EtcdKeyValue> key_values(const json& range_response) {
  std::vector<EtcdKeyValue> values;
  const auto found = range_response.find("kvs");
  if (found == range_response.end()) return values;
  for (const json& object : *found) values.push_back(key_value(object));
  return values;
}

std::int64_t header_revision(const json& reply) { return int64_field(object_field(reply, "header"), "revision"); }

// The text of an error reply: {"error": "...", "message": "...", "code": n}
// for a unary call, {"error": {"message": "...", "grpc_code": n, ...}} in a stream.
std::string error_text(const json& reply) {
  const json& error = reply.at("error");
  if (error.is_object() && error.contains("message")) return error["message"].get<std::string>();
  if (reply.contains("message")) return reply["message"].get<std::string>();
  return error.dump();
}

// --- Writing requests.

std::string text_of(std::int64_t number) { return std::to_string(number); }

// etcd's "every key that starts with prefix" (clientv3.GetPrefixRangeEnd):
// the prefix with its last byte below 0xff raised by one; "\0" (no upper
// bound) when every byte is 0xff.
std::string prefix_range_end(std::string prefix) {
  while (!prefix.empty()) {
    const auto last = static_cast<unsigned char>(prefix.back());
    if (last < 0xFF) {
      prefix.back() = static_cast<char>(last + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');
}

json prefix_range_request(const EtcdPrefixQuery& query) {
  json request = {{"key", base64_encode(query.prefix)},
                  {"range_end", base64_encode(prefix_range_end(query.prefix))},
                  {"sort_target", "CREATE"},
                  {"sort_order", query.order == CreateOrder::kOldestFirst ? "ASCEND" : "DESCEND"}};
  if (query.limit > 0) request["limit"] = text_of(query.limit);
  if (query.max_create_revision > 0) request["max_create_revision"] = text_of(query.max_create_revision);
  return request;
}

http::request<http::string_body> post_request(const std::string& host, const std::string& path, std::string body) {
  http::request<http::string_body> request{http::verb::post, path, 11};
  request.set(http::field::host, host);
  request.set(http::field::content_type, "application/json");
  request.keep_alive(true);
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

// Why a read or write failed: only a deadline cancels them.
const char* failure_of(const boost::system::error_code& error) {
  return error == asio::error::operation_aborted ? reason::kTimeout : reason::kConnection;
}

// Cancels the socket's operations once `timeout` has passed, unless bytes
// are waiting in the socket: they came in time, only this process was late
// to read them (it was frozen, say), so it looks again a moment later,
// after they have been read. Its handler can run after its owner is gone,
// so it keeps its state shared and touches the socket only while armed.
class Deadline {
 public:
  Deadline(tcp::socket& socket, std::chrono::nanoseconds timeout)
      : state_{std::make_shared<State>(socket, socket.get_executor())} {
    arm(state_, timeout);
  }
  ~Deadline() {
    state_->armed = false;
    state_->timer.cancel();
  }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

 private:
  struct State {
    State(tcp::socket& watched, const asio::any_io_executor& executor) : socket{watched}, timer{executor} {}
    tcp::socket& socket;
    asio::steady_timer timer;
    bool armed = true;
  };
  static constexpr std::chrono::milliseconds kLookAgain{1};

  static void arm(const std::shared_ptr<State>& state, std::chrono::nanoseconds after) {
    state->timer.expires_after(after);
    state->timer.async_wait([state](const boost::system::error_code& error) {
      if (error || !state->armed) return;
      boost::system::error_code ignored;
      if (state->socket.is_open() && state->socket.available(ignored) > 0) {
        arm(state, kLookAgain);
        return;
      }
      state->socket.cancel(ignored);
    });
  }

  std::shared_ptr<State> state_;
};

// "address:port" as an endpoint; throws LiveError for text of another form.
tcp::endpoint tcp_endpoint(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  boost::system::error_code not_an_address;
  const asio::ip::address address = asio::ip::make_address(text.substr(0, colon), not_an_address);
  int port = 0;
  const char* const text_end = text.data() + text.size();
  const auto [port_end, not_a_number] =
      std::from_chars(colon == std::string::npos ? text_end : text.data() + colon + 1, text_end, port);
  if (colon == std::string::npos || not_an_address || not_a_number != std::errc{} || port_end != text_end ||
      port <= 0 || port > 65535) {
    throw LiveError(fmt::format("an etcd endpoint is an IP address and a port (127.0.0.1:2379), not \"{}\"", text));
  }
  return tcp::endpoint{address, static_cast<unsigned short>(port)};
}

}  // namespace

// One HTTP/1.1 connection to a member's client port, opened when needed.
class GatewayConnection {
 public:
  GatewayConnection(asio::any_io_executor executor, std::string endpoint_text)
      : socket{std::move(executor)}, host{std::move(endpoint_text)}, endpoint{tcp_endpoint(host)} {}

  // Opens the connection unless it is open and the server has not closed
  // it meanwhile (a crashed member's); what went wrong if it cannot.
  asio::awaitable<boost::system::error_code> open() {
    boost::system::error_code error;
    if (socket.is_open() && closed_by_server()) reset();
    if (socket.is_open()) co_return error;
    co_await socket.async_connect(endpoint, asio::redirect_error(asio::use_awaitable, error));
    if (!error) socket.set_option(tcp::no_delay{true}, error);
    co_return error;
  }

  void reset() {
    boost::system::error_code ignored;
    socket.close(ignored);
    buffer.clear();
    stream.reset();
    stream_text.clear();
  }

  // Starts reading a streaming response: its chunks' bytes go to stream_text.
  http::response_parser<http::string_body>& begin_stream() {
    stream.emplace();
    stream->body_limit(std::numeric_limits<std::uint64_t>::max());  // a watch streams for as long as it lives
    stream->on_chunk_body(append_chunk);
    return *stream;
  }

  tcp::socket socket;
  std::string host;  // "address:port", as given: the Host header
  tcp::endpoint endpoint;
  beast::flat_buffer buffer;  // bytes read past what the parser took
  std::optional<http::response_parser<http::string_body>> stream;
  std::string stream_text;  // the stream's bytes not yet taken as lines

 private:
  // Readable before anything was asked: the end of the stream, a reset, or
  // something left over. Either way not a connection to send on.
  bool closed_by_server() {
    if (stream) return false;  // a watch's stream is readable whenever an event waits
    pollfd idle{socket.native_handle(), POLLIN, 0};
    if (::poll(&idle, 1, 0) <= 0) return false;
    char byte = 0;
    const ssize_t peeked = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return peeked != -1 || (errno != EAGAIN && errno != EWOULDBLOCK);
  }

  // The parser keeps a reference to its chunk callback: it lives here, as long as the parser.
  std::function<std::size_t(std::uint64_t, beast::string_view, boost::system::error_code&)> append_chunk =
      [this](std::uint64_t, beast::string_view bytes, boost::system::error_code&) {
        stream_text.append(bytes.data(), bytes.size());
        return bytes.size();
      };
};

namespace {

// The JSON of a reply, or nullopt with `error_message` set. A streaming
// call answers with one JSON message per line, its payload in "result"; a
// unary call with the payload itself.
std::optional<json> reply_json(const http::response<http::string_body>& response, std::string& error_message) {
  const std::string& body = response.body();
  const json parsed = json::parse(body.substr(0, body.find('\n')), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    error_message = fmt::format("a reply that is not JSON (HTTP {}): {}", response.result_int(), body.substr(0, 200));
    return std::nullopt;
  }
  if (parsed.contains("error")) {
    error_message = error_text(parsed);
    return std::nullopt;
  }
  if (response.result() != http::status::ok) {
    error_message = fmt::format("HTTP {}: {}", response.result_int(), body.substr(0, 200));
    return std::nullopt;
  }
  const auto result = parsed.find("result");
  return result != parsed.end() ? *result : parsed;
}

}  // namespace

EtcdGateway::EtcdGateway(asio::any_io_executor executor, std::string endpoint)
    : connection_{std::make_unique<GatewayConnection>(std::move(executor), std::move(endpoint))} {}

EtcdGateway::~EtcdGateway() = default;

asio::awaitable<std::optional<json>> EtcdGateway::post(std::string path, std::string body,
                                                       std::chrono::nanoseconds timeout) {
  GatewayConnection& connection = *connection_;
  const Deadline deadline{connection.socket, timeout};
  boost::system::error_code error = co_await connection.open();
  http::response<http::string_body> response;
  if (!error) {
    const http::request<http::string_body> request = post_request(connection.host, path, std::move(body));
    co_await http::async_write(connection.socket, request, asio::redirect_error(asio::use_awaitable, error));
  }
  if (!error) {
    co_await http::async_read(connection.socket, connection.buffer, response,
                              asio::redirect_error(asio::use_awaitable, error));
  }
  if (error) {
    failure_ = failure_of(error);
    error_message_ = error.message();
    connection.reset();  // out of step (a reply may still come): the next request opens a fresh one
    co_return std::nullopt;
  }
  if (response.need_eof()) connection.reset();
  std::optional<json> reply = reply_json(response, error_message_);
  if (!reply) failure_ = reason::kError;
  co_return reply;
}

template <typename Convert>
auto EtcdGateway::converted(const std::optional<json>& reply, Convert convert) {
  using Result = std::optional<decltype(convert(*reply))>;
  if (!reply) return Result{};
  try {
    return Result{convert(*reply)};
  } catch (const std::exception& error) {  // a field of another type, a value that is not base64
    failure_ = reason::kError;
    error_message_ = fmt::format("a reply locksim cannot read ({}): {}", error.what(), reply->dump());
    return Result{};
  }
}

asio::awaitable<std::optional<EtcdLease>> EtcdGateway::grant_lease(std::int64_t ttl_seconds,
                                                                   std::chrono::nanoseconds timeout) {
  const json request = {{"TTL", text_of(ttl_seconds)}};
  const std::optional<json> reply = co_await post("/v3/lease/grant", request.dump(), timeout);
  co_return converted(reply, [](const json& granted) {
    return EtcdLease{int64_field(granted, "ID"), int64_field(granted, "TTL")};
  });
}

asio::awaitable<std::optional<std::int64_t>> EtcdGateway::keep_lease_alive(std::int64_t lease,
                                                                           std::chrono::nanoseconds timeout) {
  // A streaming call; one request in the body, so one answer, then the stream ends.
  const json request = {{"ID", text_of(lease)}};
  const std::optional<json> reply = co_await post("/v3/lease/keepalive", request.dump(), timeout);
  // A lease that is gone is answered with its ID and no TTL (0, left out).
  co_return converted(reply, [](const json& kept) { return int64_field(kept, "TTL"); });
}

asio::awaitable<std::optional<std::int64_t>> EtcdGateway::lease_time_to_live(std::int64_t lease,
                                                                             std::chrono::nanoseconds timeout) {
  const json request = {{"ID", text_of(lease)}};
  const std::optional<json> reply = co_await post("/v3/lease/timetolive", request.dump(), timeout);
  co_return converted(reply, [](const json& lived) { return int64_field(lived, "TTL"); });
}

asio::awaitable<bool> EtcdGateway::revoke_lease(std::int64_t lease, std::chrono::nanoseconds timeout) {
  const json request = {{"ID", text_of(lease)}};
  const std::optional<json> reply = co_await post("/v3/lease/revoke", request.dump(), timeout);
  co_return reply.has_value();
}

asio::awaitable<std::optional<EtcdLockStep>> EtcdGateway::lock_step(std::string key, std::string value,
                                                                    std::int64_t lease, std::string prefix,
                                                                    std::chrono::nanoseconds timeout) {
  // As concurrency.Mutex.Lock (etcd 3.4): If(CreateRevision(key) = 0)
  // Then(Put(key, value, lease), owner) Else(Get(key), owner), where owner
  // is the first key under the prefix by create revision.
  const json owner = {{"request_range", prefix_range_request(EtcdPrefixQuery{prefix, CreateOrder::kOldestFirst, 1, 0})}};
  const json request = {
      {"compare", json::array({{{"target", "CREATE"}, {"result", "EQUAL"}, {"key", base64_encode(key)},
                                {"create_revision", "0"}}})},
      {"success", json::array({{{"request_put", {{"key", base64_encode(key)}, {"value", base64_encode(value)}, {"lease", text_of(lease)}}}},
                               owner})},
      {"failure", json::array({{{"request_range", {{"key", base64_encode(key)}}}}, owner})}};
  const std::optional<json> reply = co_await post("/v3/kv/txn", request.dump(), timeout);
  co_return converted(reply, [](const json& transaction) {
    EtcdLockStep step;
    step.created = transaction.value("succeeded", false);
    step.header_revision = header_revision(transaction);
    const json& responses = transaction.at("responses");
    step.my_create_revision = step.created ? step.header_revision
                                           : key_values(responses.at(0).at("response_range")).at(0).create_revision;
    const std::vector<EtcdKeyValue> first = key_values(responses.at(1).at("response_range"));
    if (!first.empty()) step.owner = first.front();
    return step;
  });
}

asio::awaitable<std::optional<EtcdRange>> EtcdGateway::range(EtcdPrefixQuery query, std::chrono::nanoseconds timeout) {
  const std::optional<json> reply = co_await post("/v3/kv/range", prefix_range_request(query).dump(), timeout);
  co_return converted(reply, [](const json& found) { return EtcdRange{header_revision(found), key_values(found)}; });
}

asio::awaitable<std::optional<std::int64_t>> EtcdGateway::delete_key(std::string key, std::chrono::nanoseconds timeout) {
  const json request = {{"key", base64_encode(key)}};
  const std::optional<json> reply = co_await post("/v3/kv/deleterange", request.dump(), timeout);
  co_return converted(reply, [](const json& deleted) { return int64_field(deleted, "deleted"); });
}

asio::awaitable<std::optional<EtcdStatus>> EtcdGateway::status(std::chrono::nanoseconds timeout) {
  const std::optional<json> reply = co_await post("/v3/maintenance/status", "{}", timeout);
  co_return converted(reply, [](const json& status) {
    return EtcdStatus{uint64_field(object_field(status, "header"), "member_id"), uint64_field(status, "leader"),
                      uint64_field(status, "raftTerm")};
  });
}

asio::awaitable<bool> EtcdGateway::move_leader(std::uint64_t target, std::chrono::nanoseconds timeout) {
  const json request = {{"targetID", std::to_string(target)}};
  const std::optional<json> reply = co_await post("/v3/maintenance/transfer-leadership", request.dump(), timeout);
  co_return reply.has_value();
}

bool etcd_move_leader(const std::string& endpoint, std::uint64_t target, std::chrono::milliseconds timeout) {
  asio::io_context io;
  EtcdGateway gateway{io.get_executor(), endpoint};
  bool moved = false;
  asio::co_spawn(io, gateway.move_leader(target, timeout), [&moved](std::exception_ptr, bool done) { moved = done; });
  io.run();
  return moved;
}

std::optional<EtcdStatus> etcd_status(const std::string& endpoint, std::chrono::milliseconds timeout) {
  asio::io_context io;
  EtcdGateway gateway{io.get_executor(), endpoint};
  std::optional<EtcdStatus> status;
  asio::co_spawn(io, gateway.status(timeout), [&status](std::exception_ptr, std::optional<EtcdStatus> answer) {
    status = std::move(answer);
  });
  io.run();
  return status;
}

// --- The watch.

EtcdWatch::EtcdWatch(asio::any_io_executor executor, std::string endpoint)
    : connection_{std::make_unique<GatewayConnection>(std::move(executor), std::move(endpoint))} {}

EtcdWatch::~EtcdWatch() = default;

asio::awaitable<bool> EtcdWatch::start(std::string key, std::int64_t start_revision, std::chrono::nanoseconds timeout,
                                       WatchScope scope) {
  GatewayConnection& connection = *connection_;
  connection.reset();  // a watch is one stream from its start
  pending_.clear();
  next_pending_ = 0;
  json create = {{"key", base64_encode(key)}};
  if (scope == WatchScope::kPrefix) create["range_end"] = base64_encode(prefix_range_end(key));
  if (start_revision > 0) create["start_revision"] = text_of(start_revision);
  const Deadline deadline{connection.socket, timeout};
  boost::system::error_code error = co_await connection.open();
  if (!error) {
    const http::request<http::string_body> request =
        post_request(connection.host, "/v3/watch", json{{"create_request", create}}.dump());
    co_await http::async_write(connection.socket, request, asio::redirect_error(asio::use_awaitable, error));
  }
  if (!error) {
    co_await http::async_read_header(connection.socket, connection.buffer, connection.begin_stream(),
                                     asio::redirect_error(asio::use_awaitable, error));
  }
  if (error) {
    failure_ = failure_of(error);
    error_message_ = error.message();
    connection.reset();
    co_return false;
  }
  if (connection.stream->get().result() != http::status::ok || !connection.stream->chunked()) {
    // Not a stream: an error reply, read whole (its body goes to the message's body).
    co_await http::async_read(connection.socket, connection.buffer, *connection.stream,
                              asio::redirect_error(asio::use_awaitable, error));
    failure_ = reason::kError;
    error_message_ = fmt::format("the watch did not start (HTTP {}): {}", connection.stream->get().result_int(),
                                 connection.stream->get().body().substr(0, 200));
    connection.reset();
    co_return false;
  }
  const std::optional<json> created = co_await next_message();
  if (created && created->value("created", false)) co_return true;
  if (created) {
    failure_ = reason::kError;
    error_message_ = fmt::format("the watch's first message is not its creation: {}", created->dump());
  }
  connection.reset();
  co_return false;
}

asio::awaitable<std::optional<EtcdEvent>> EtcdWatch::next_event(std::chrono::nanoseconds timeout) {
  const Deadline deadline{connection_->socket, timeout};
  while (next_pending_ == pending_.size()) {
    if (!connection_->stream) {
      failure_ = reason::kConnection;
      error_message_ = "the watch is not started";
      co_return std::nullopt;
    }
    const std::optional<json> message = co_await next_message();
    if (!message) co_return std::nullopt;
    pending_.clear();
    next_pending_ = 0;
    try {
      if (message->value("canceled", false)) {
        failure_ = reason::kError;
        error_message_ = fmt::format("etcd cancelled the watch: {}", message->dump());
        connection_->reset();
        co_return std::nullopt;
      }
      const auto events = message->find("events");
      if (events == message->end()) continue;  // a progress notice
      for (const json& event : *events) {
        // PUT is the type's first value, so a put's "type" is left out.
        const bool deleted = event.value("type", std::string{"PUT"}) == "DELETE";
        pending_.push_back(EtcdEvent{deleted ? EtcdEvent::Kind::kDelete : EtcdEvent::Kind::kPut,
                                     key_value(object_field(event, "kv")), header_revision(*message),
                                     uint64_field(object_field(*message, "header"), "raft_term")});
      }
    } catch (const std::exception& error) {
      failure_ = reason::kError;
      error_message_ = fmt::format("a watch message locksim cannot read ({}): {}", error.what(), message->dump());
      connection_->reset();
      co_return std::nullopt;
    }
  }
  co_return pending_[next_pending_++];
}

asio::awaitable<std::optional<json>> EtcdWatch::next_message() {
  GatewayConnection& connection = *connection_;
  while (true) {
    const std::size_t end = connection.stream_text.find('\n');
    if (end != std::string::npos) {
      const std::string line = connection.stream_text.substr(0, end);
      connection.stream_text.erase(0, end + 1);
      if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
      const json parsed = json::parse(line, nullptr, false);
      if (parsed.is_discarded() || !parsed.is_object() || parsed.contains("error") || !parsed.contains("result")) {
        failure_ = reason::kError;
        error_message_ = parsed.is_object() && parsed.contains("error") ? error_text(parsed)
                                                                        : "a watch message that is not JSON: " + line;
        connection.reset();
        co_return std::nullopt;
      }
      co_return parsed["result"];
    }
    if (connection.stream->is_done()) {
      failure_ = reason::kConnection;
      error_message_ = "etcd ended the watch's stream";
      connection.reset();
      co_return std::nullopt;
    }
    boost::system::error_code error;
    co_await http::async_read_some(connection.socket, connection.buffer, *connection.stream,
                                   asio::redirect_error(asio::use_awaitable, error));
    if (error) {
      failure_ = failure_of(error);
      error_message_ = error.message();
      // A timeout leaves the stream as it was: the next call reads on.
      if (failure_ != reason::kTimeout) connection.reset();
      co_return std::nullopt;
    }
  }
}

}  // namespace locksim::live
