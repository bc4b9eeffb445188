#pragma once
// An etcd client for live mode's coroutines over etcd 3.4's gRPC-JSON
// gateway: HTTP/1.1 POSTs of JSON to /v3/... on a member's client port,
// written and read with Boost.Beast on Boost.Asio. It makes the calls of
// etcd's own lock recipe (clientv3/concurrency: a Session's lease, kept
// alive, and Mutex.Lock's transaction, owner query and wait for deletes).
//
// EtcdGateway sends one request at a time on one persistent connection;
// EtcdWatch holds a watch stream open on a connection of its own. A
// connection that broke or timed out is closed and the next request opens
// a fresh one, so a call after a member's crash and restart just works.
// Each must outlive the calls it makes, and makes one at a time.
//
// On the wire, int64 fields are JSON strings, keys and values are base64,
// and a field at its default (0, false, "", an enum's first value) is left
// out: these classes read all that, so their callers see numbers and bytes.
//
// Failures are results, not exceptions: a call gives nullopt (or false) and
// failure() says why — "timeout" (no reply in time: the request may still
// take effect), "connection" (refused or broken) or "error" (etcd answered
// with an error, error_message() quotes it).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "live/asio_coroutines.h"

namespace locksim::live {

struct EtcdLease {
  std::int64_t id = 0;
  std::int64_t ttl_seconds = 0;  // as granted: etcd raises a TTL below its minimum (see grant_lease)
};

struct EtcdKeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;  // number of puts since its creation
  std::int64_t lease = 0;    // 0: attached to no lease
};

// What concurrency.Mutex's Lock step learns from its one transaction.
struct EtcdLockStep {
  bool created = false;               // my key was put now; false: it was there already (an earlier attempt's)
  std::int64_t header_revision = 0;   // the store's revision after the transaction
  std::int64_t my_create_revision = 0;  // my key's: my place in the queue
  std::optional<EtcdKeyValue> owner;  // the key under the prefix created first: the holder (absent: none)
};

struct EtcdRange {
  std::int64_t header_revision = 0;
  std::vector<EtcdKeyValue> key_values;
};

enum class CreateOrder { kOldestFirst, kNewestFirst };

// The keys under a prefix, by create revision (the Mutex's queue order).
struct EtcdPrefixQuery {
  std::string prefix;
  CreateOrder order = CreateOrder::kOldestFirst;  // default oldest first
  std::int64_t limit = 0;                         // at most this many keys; default 0: all
  std::int64_t max_create_revision = 0;           // only keys created at or before it; default 0: no bound
};

struct EtcdEvent {
  enum class Kind { kPut, kDelete };
  Kind kind = Kind::kPut;
  EtcdKeyValue key_value;  // a delete's has only the key and mod_revision (the deletion's revision)
  std::int64_t header_revision = 0;
  std::uint64_t raft_term = 0;  // the answering member's Raft term when it sent the event
};

struct EtcdStatus {
  std::uint64_t member_id = 0;  // the member that answered
  std::uint64_t leader = 0;     // the member it takes for leader (its own ID when it leads); 0: none known
  std::uint64_t raft_term = 0;
};

class GatewayConnection;

class EtcdGateway {
 public:
  // Talks to `endpoint`, "host:port" (a member's client port, an IP
  // address), connecting at the first request. Throws LiveError for an
  // endpoint of another form.
  EtcdGateway(asio::any_io_executor executor, std::string endpoint);
  ~EtcdGateway();
  EtcdGateway(const EtcdGateway&) = delete;
  EtcdGateway& operator=(const EtcdGateway&) = delete;

  // Each call waits up to `timeout` for connection, request and reply together.

  // A new lease. etcd grants at least its minimum TTL, 1.5 election
  // timeouts rounded up to whole seconds (2 s at the default 1 s).
  asio::awaitable<std::optional<EtcdLease>> grant_lease(std::int64_t ttl_seconds, std::chrono::nanoseconds timeout);
  // One keepalive: the lease's TTL from now in seconds, 0 when it is gone.
  // Each is a request of its own (a keepalive stream one message long): one
  // that a follower forwards to a paused leader waits there up to etcd's
  // request timeout (7 s at defaults), and does not hold up the next.
  asio::awaitable<std::optional<std::int64_t>> keep_lease_alive(std::int64_t lease, std::chrono::nanoseconds timeout);
  // The lease's remaining seconds without renewing it, -1 when it is gone.
  asio::awaitable<std::optional<std::int64_t>> lease_time_to_live(std::int64_t lease, std::chrono::nanoseconds timeout);
  // Revokes the lease, deleting its keys; false (failure() "error") when it was gone already.
  asio::awaitable<bool> revoke_lease(std::int64_t lease, std::chrono::nanoseconds timeout);

  // Mutex.Lock's transaction: if `key` was never created, put it with
  // `value` (the Mutex's is empty) and `lease`, else read it; either way
  // read the first-created key under `prefix`, the owner.
  asio::awaitable<std::optional<EtcdLockStep>> lock_step(std::string key, std::string value, std::int64_t lease,
                                                         std::string prefix,
                                                         std::chrono::nanoseconds timeout);
  asio::awaitable<std::optional<EtcdRange>> range(EtcdPrefixQuery query, std::chrono::nanoseconds timeout);
  // Deletes one key; gives how many keys were deleted (0 or 1).
  asio::awaitable<std::optional<std::int64_t>> delete_key(std::string key, std::chrono::nanoseconds timeout);

  asio::awaitable<std::optional<EtcdStatus>> status(std::chrono::nanoseconds timeout);
  // Asks the leader (this member must be it) to hand its leadership to the
  // member with ID `target` (etcdctl move-leader); true once it has.
  asio::awaitable<bool> move_leader(std::uint64_t target, std::chrono::nanoseconds timeout);

  // Why the last call failed: vocabulary::reason's kTimeout, kConnection or kError.
  [[nodiscard]] const std::string& failure() const { return failure_; }
  // With "error": what etcd said (or why its reply could not be read).
  [[nodiscard]] const std::string& error_message() const { return error_message_; }

 private:
  // POSTs `body` to `path` and gives the reply's JSON (the "result" of a
  // streaming call's first message), or nullopt with failure() set.
  asio::awaitable<std::optional<nlohmann::json>> post(std::string path, std::string body,
                                                      std::chrono::nanoseconds timeout);
  // `convert` applied to the reply; nullopt (failure "error") when the reply is not what etcd sends.
  template <typename Convert>
  auto converted(const std::optional<nlohmann::json>& reply, Convert convert);

  std::unique_ptr<GatewayConnection> connection_;
  std::string failure_;
  std::string error_message_;
};

// What a watch covers: one key, or every key that starts with it.
enum class WatchScope { kOneKey, kPrefix };

// A watch on one key or a prefix: a POST /v3/watch whose response streams
// on, one JSON message per line, on a connection of its own.
class EtcdWatch {
 public:
  // As EtcdGateway's.
  EtcdWatch(asio::any_io_executor executor, std::string endpoint);
  ~EtcdWatch();
  EtcdWatch(const EtcdWatch&) = delete;
  EtcdWatch& operator=(const EtcdWatch&) = delete;

  // Opens the stream on `key` (or every key under it) from `start_revision`
  // (0: from now on); true once etcd says the watch is created.
  asio::awaitable<bool> start(std::string key, std::int64_t start_revision, std::chrono::nanoseconds timeout,
                              WatchScope scope = WatchScope::kOneKey);
  // The next event, in revision order, waiting up to `timeout`. nullopt
  // with failure() "timeout" leaves the stream open (ask again); with
  // "connection" or "error" (etcd cancelled the watch: its start revision
  // was compacted, say) the stream is over.
  asio::awaitable<std::optional<EtcdEvent>> next_event(std::chrono::nanoseconds timeout);

  [[nodiscard]] const std::string& failure() const { return failure_; }
  [[nodiscard]] const std::string& error_message() const { return error_message_; }

 private:
  // The stream's next message (a line of JSON), its "result"; nullopt with failure() set.
  asio::awaitable<std::optional<nlohmann::json>> next_message();

  std::unique_ptr<GatewayConnection> connection_;
  std::vector<EtcdEvent> pending_;  // events of a message not handed out yet, in order
  std::size_t next_pending_ = 0;
  std::string failure_;
  std::string error_message_;
};

// A member's status, asked on a connection of its own and waited for up to
// `timeout` (a blocking call, for tests and the cluster's start); nullopt
// when it does not answer in time (starting, paused, crashed).
[[nodiscard]] std::optional<EtcdStatus> etcd_status(const std::string& endpoint, std::chrono::milliseconds timeout);
// EtcdGateway::move_leader as a blocking call to the leader at `endpoint`.
[[nodiscard]] bool etcd_move_leader(const std::string& endpoint, std::uint64_t target, std::chrono::milliseconds timeout);

}  // namespace locksim::live
