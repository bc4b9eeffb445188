#pragma once
// What a modelled system is made of: the lock service, the lock, the
// workers' client strategy, the storage and the workload. The scenario file
// (docs/scenario-format.md) maps onto these structs one to one; every field says its
// unit and default here, the one place defaults are documented.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/clock_kind.h"
#include "sim/distribution.h"
#include "vocabulary/setup_name.h"
#include "sim/time.h"

namespace locksim::model {

using sim::Distribution;
using sim::Duration;

enum class ServiceKind {
  kRedis,          // one instance: SET NX PX, Lua compare-and-delete, token from INCR in the same script
  kRedisFailover,  // primary + asynchronous replica; a failover promotes the replica
  kRedlock,        // N independent instances, majority quorum, the published client algorithm
  kConsensus,      // etcd/ZooKeeper-like: one linearizable leader, sessions, revision as token
};

// What a Redis instance has after a restart. A process crash loses no write
// the instance acknowledged under everysec (it wrote the AOF to the kernel
// before replying; the kernel still has it); a power loss (machine crash)
// loses what was not fsynced yet.
enum class Persistence {
  kNone,         // any restart forgets every key and the token counter
  kEverySecond,  // after a process crash: everything; after a power loss: the state at its last fsync (Redis 7.0's rule: redis_instance.h)
  kAlways,       // any restart keeps everything (fsync before every reply)
};

// How a Redis instance frees memory once it is over `maxmemory` (redis.conf's
// maxmemory-policy; Redis's default is noeviction).
enum class MaxmemoryPolicy {
  kNoEviction,   // evict nothing: the writes that pushed memory over the limit fail with OOM
  kVolatileTtl,  // among keys with a TTL, the nearest expiry first (a lock key's short lease: first)
  kVolatileLru,  // among keys with a TTL, the least recently used first
  kAllkeysLru,   // any key, the least recently used first
};

// What else a Redis instance holds, and how it evicts (redis, redis-failover, redlock).
struct RedisMemoryOptions {
  MaxmemoryPolicy policy = MaxmemoryPolicy::kNoEviction;  // default noeviction
  int other_keys = 0;                                     // other applications' keys, written before the run; default 0
  std::optional<Duration> other_keys_ttl;                 // their TTL from the run's start; nullopt (default): none
  int samples = 5;  // maxmemory-samples: keys sampled per eviction (Redis: 1 to 64, default 5)
};

struct ServiceOptions {
  ServiceKind kind = ServiceKind::kRedis;           // default redis
  std::optional<int> instances;                     // redlock: number of instances; default (none) 5, the Redlock page's deployment
  Persistence persistence = Persistence::kNone;     // what a restart keeps; default none
  Distribution replication_lag = Distribution::constant(Duration::milliseconds(100));  // redis-failover; default 100 ms
  double drift_factor = 0.01;                       // redlock validity: TTL · drift_factor + 2 ms is subtracted
  bool recheck_elapsed = true;                      // redlock client re-checks elapsed time after the replies; default on
  Duration delayed_restart = Duration::zero();      // redlock: an instance refuses to start until this long after a crash
  Duration lock_delay = Duration::zero();           // consensus: no grant for this long after a holder's failure
  bool etcd_3_4_3_lock_bug = false;                 // consensus: behave as etcd 3.4.3's lock service (H15); default off
  // consensus: the ensemble's members (consensus-0, …); 1 is one node,
  // `consensus`, standing for a whole ensemble; default 3.
  int nodes = 3;
  // consensus with nodes > 1: etcd's --heartbeat-interval (default 100 ms)
  // and --election-timeout (default 1000 ms; a whole number of heartbeats).
  Duration heartbeat = Duration::milliseconds(100);
  Duration election_timeout = Duration::milliseconds(1000);
  Duration request_timeout = Duration::milliseconds(500);  // client-side timeout of one request; default 500 ms
  // redis-failover: Sentinel's `down-after-milliseconds` — it fails over a
  // primary whose oldest unanswered ping is this old (docs/models.md);
  // default 30 s (sentinel.c SENTINEL_DEFAULT_DOWN_AFTER).
  Duration down_after = Duration::seconds(30);
  // redis-failover, the primary's `min-replicas-to-write` (0 = off, Redis's
  // default) and `min-replicas-max-lag` (default 10 s): it refuses writes
  // (NOREPLICAS) while fewer replicas than that acknowledged within the lag.
  int min_replicas_to_write = 0;
  Duration min_replicas_max_lag = Duration::seconds(10);
  // redis-failover: `repl-diskless-sync-delay`, whole seconds a primary waits
  // before it sends a full resync's snapshot; default 5 s (Redis 7.0's).
  Duration repl_diskless_sync_delay = Duration::seconds(5);
  RedisMemoryOptions memory;                        // eviction under memory pressure; default noeviction, no other keys
};

struct LockOptions {
  std::string name = "lock";          // the lock's key; default "lock"
  std::optional<Duration> lease = Duration::seconds(10);  // lease length; nullopt = no expiry ("none"); default 10 s
  Duration stuck_after = Duration::seconds(100);          // stuck_lock threshold; default 10 × lease, or 1 min without
};

enum class AcquireMethod {
  kSetNxPx,     // one atomic SET NX PX (+ INCR for the token)
  kGetThenSet,  // GET, then SET PX if nil: two round trips, the classic race
};

enum class ReleaseMethod {
  kCompareAndDelete,  // Lua: delete only if the value is still mine
  kPlainDelete,       // DEL: deletes whoever holds it
  kNone,              // let the lease expire
};

enum class RenewMethod {
  kNone,
  kWatchdog,  // a separate process on the worker extends the lease every renew_every (Redisson-style)
};

// How a renewal extends the key (Redis and Redlock).
enum class RenewCommand {
  kCompareAndExtend,  // Lua: PEXPIRE only if the value is still mine (Redisson, redsync)
  kPlainPexpire,      // PEXPIRE whoever holds it: extends another owner's lease and reports success (H13)
};

// What the watchdog does after a renewal that got no answer or an error
// answer (a renewal that found the lock gone or someone else's always ends
// it, as Redisson's LockTask cancels that lock's renewal).
enum class RenewOnError {
  kRetry,  // renew again at the next period, the holder none the wiser (Redisson 3.44+: RenewalTask.run reschedules)
  kStop,   // stop renewing and count the lease lost (Redisson before 3.44 removed the lock's renewal entry,
           // without telling the holder; locksim's holder learns of it, as its own rule always had it)
};

// How a Sentinel-aware client learns of a failover (redis-failover).
enum class SentinelDiscovery {
  // Subscribes to Sentinel's +switch-master and follows it as announced; asks
  // Sentinel again after a failed request too (Jedis's JedisSentinelPool,
  // Redisson's sentinel mode, live mode's own worker).
  kSwitchMaster,
  // Asks Sentinel only when it (re)connects, so a connection to the old
  // primary is used until a request on it fails: no answer, READONLY,
  // NOREPLICAS (redis-py's Sentinel: SentinelManagedConnection asks at
  // connect, and a ReadOnlyError closes the connection).
  kOnError,
};

// `WAIT numreplicas timeout` after a grant (redis-failover): a grant fewer
// than `replicas` acknowledged within `timeout` is given back and not used.
struct WaitReplicas {
  int replicas = 1;                                   // default 1
  Duration timeout = Duration::seconds(1);            // default 1 s (Redisson's slavesSyncTimeout)
};

struct WorkerOptions {
  int count = 2;                                       // workers worker-1 … worker-N; default 2
  AcquireMethod acquire = AcquireMethod::kSetNxPx;      // default set-nx-px
  ReleaseMethod release = ReleaseMethod::kCompareAndDelete;  // default compare-and-delete
  RenewMethod renew = RenewMethod::kNone;               // default none
  std::optional<Duration> renew_every;                  // watchdog period; default lease / 3
  RenewCommand renew_command = RenewCommand::kCompareAndExtend;  // default compare-and-extend
  RenewOnError renew_on_error = RenewOnError::kRetry;   // default retry (current Redisson)
  SentinelDiscovery sentinel_discovery = SentinelDiscovery::kSwitchMaster;  // default switch-master
  // A renewal that got no answer within request_timeout is sent again, after
  // a wait drawn from renew_retry_delay, up to renew_retries times before it
  // counts as failed (then renew_on_error decides). Redisson re-sends every
  // command whose reply timed out unless it is marked no-retry, as its lock
  // acquire and unlock are since 3.37 and its renewal is not. Defaults:
  // Redisson 3.48 and later, retryAttempts 4 and retryDelay
  // EqualJitterDelay(1 s, 2 s) (before 3.48: 3, a constant 1.5 s).
  int renew_retries = 4;
  Distribution renew_retry_delay = Distribution::uniform(Duration::seconds(1), Duration::seconds(2));
  bool check_before_write = false;                      // re-check the lease on the lease clock before writing
  // With check_before_write: what the client does between its look at the
  // lease and its write leaving (building the request, handing it to the
  // connection). A pause that lands here is one the check cannot see. The
  // default is locksim's own live worker, measured on the 2-core CI machine
  // (360 writes: median 37 µs, p90 64 µs, p99 104 µs, most 369 µs); an
  // application with a connection pool or an ORM in that path takes longer.
  Distribution check_to_write = Distribution::log_normal(Duration::microseconds(40), Duration::microseconds(100));
  // The clock the client times its lease on: monotonic (default: Go's
  // time.Since, Java's nanoTime — what redsync, Redisson and etcd's client
  // measure with) or wall (node-redlock's Date.now(), a System.currentTimeMillis check).
  sim::ClockKind clock = sim::ClockKind::kMonotonic;
  Distribution retry = Distribution::uniform(Duration::milliseconds(50), Duration::milliseconds(500));  // wait before re-acquiring
  Distribution work = Distribution::uniform(Duration::milliseconds(100), Duration::seconds(2));        // holder's work before the write
  Distribution between = Distribution::constant(Duration::zero());  // idle time between a release and the next acquire
  // How long after t = 0 each worker begins its first job: one draw per worker,
  // made by the seed's plan (scenario/plan.h), so that both fencing modes and a
  // live run start the workers alike. The default spreads them over a second:
  // a fleet's processes start that far apart (live, client libraries' workers
  // came up 0.1–2 s apart), it is hundreds of network delays wide, so the first
  // grant is a fair draw among the workers and not a tie won by worker-1, and it
  // is short beside the leases and faults the scenarios time in seconds.
  Distribution start = Distribution::uniform(Duration::zero(), Duration::seconds(1));
  std::optional<WaitReplicas> wait_replicas;            // redis-failover: WAIT after each grant; default none
  // Giving up (redsync: 32 tries; Redisson tryLock(wait, lease): `wait`). A job whose
  // acquire gives up is a failed job: recorded as acquire.give_up, never done, counted
  // in unfinished_jobs. Both are checked between attempts; unset (the default) = never.
  std::optional<Duration> acquire_timeout;  // on the worker's clock, from the job's first attempt
  std::optional<int> max_tries;             // acquire attempts per job
};

enum class Fencing {
  kOff,  // storage accepts any write; clients send no token
  kOn,   // clients send their token; storage rejects one lower than the highest seen
};

enum class Validation {
  kMaxSeen,  // highest token seen (Kleppmann's rule)
  kService,  // ask the lock service whether the token is current (Chubby's CheckSequencer)
};

// A guard broken on purpose, so that the tools meant to catch a broken
// guard can be shown to (tests/verify: `verify` finds it where `run` does
// not). No scenario key sets one.
enum class StorageMutation : std::uint8_t {
  kNone,
  kReadsSkipCompare,  // a fenced read registers its token as the highest without comparing it
};

struct StorageOptions {
  Fencing fencing = Fencing::kOff;          // default off (a scenario's "compare" runs both)
  bool fence_reads = false;                 // reads carry the token and register it; default off
  Validation validate = Validation::kMaxSeen;  // default max-seen
  bool idempotency_keys = false;            // drop a repeated request_id; default off
  StorageMutation mutation = StorageMutation::kNone;
};

// Each worker does `jobs` times: acquire → read key → work → write read+1 → release.
struct CounterWorkload {
  std::string key = "qty";  // default "qty"
  int jobs = 10;            // per worker; default 10
};

// Where a billing job's charge happens.
enum class Charge {
  kStorage,   // one storage write: the charge and the cursor together (fencing can guard it)
  kExternal,  // a call to the `payments` node, which takes no token, then a storage write of the cursor
};

// The idempotency key a billing job sends when storage.idempotency_keys is on.
enum class IdempotencyKey {
  kJob,      // derived from the customer ("customer-N"): a redo of the job repeats it
  kAttempt,  // fresh per attempt ("worker-1-3"): a redo sends a new key
};

// Customers shared by all workers: a holder reads the next unbilled customer,
// works, charges it, and releases. With charge `storage` the charge is one
// write with job = the customer that also moves the cursor; with `external`
// it is a call to the payments API (job = the customer), then a second step
// writes the cursor (charge, then mark done).
struct BillingWorkload {
  std::string key = "billed";  // the cursor: how many customers are billed
  int customers = 20;          // default 20
  Charge charge = Charge::kStorage;                          // default storage
  IdempotencyKey idempotency_key = IdempotencyKey::kJob;     // default job
};

// Each worker does `jobs` times: acquire → work → write its result → release,
// with no read. Every job writes the same key (the published result), value =
// the job's number at its worker (1 … jobs), so an older job's result landing
// after a newer one's overwrites it: the harm is the stale write in lock order.
// Writes carry no `job`: a job redone after an unanswered write writes the
// same result again under a newer hold, which harms nothing.
struct WriteOnlyWorkload {
  std::string key = "result";  // default "result"
  int jobs = 10;               // per worker; default 10
};

using Workload = std::variant<CounterWorkload, BillingWorkload, WriteOnlyWorkload>;

// The names the scenario file and a history's run.begin give a service kind and a workload.
[[nodiscard]] constexpr const char* service_kind_name(ServiceKind kind) {
  switch (kind) {
    case ServiceKind::kRedis: return vocabulary::service_kind::kRedis;
    case ServiceKind::kRedisFailover: return vocabulary::service_kind::kRedisFailover;
    case ServiceKind::kRedlock: return vocabulary::service_kind::kRedlock;
    case ServiceKind::kConsensus: return vocabulary::service_kind::kConsensus;
  }
  return vocabulary::service_kind::kRedis;
}
[[nodiscard]] inline const char* workload_kind_name(const Workload& workload) {
  static constexpr const char* kNames[] = {vocabulary::workload_kind::kCounter, vocabulary::workload_kind::kBilling,
                                           vocabulary::workload_kind::kWriteOnly};
  return kNames[workload.index()];
}
// The storage key the workload works on.
[[nodiscard]] inline const std::string& workload_key(const Workload& workload) {
  return std::visit([](const auto& kind) -> const std::string& { return kind.key; }, workload);
}

// What happens to the old primary in a `failover` fault (redis-failover).
enum class FailoverPrimary {
  kCrash,      // it crashes (and stays down)
  kPartition,  // it stays up, cut off from Sentinel, the replica and the other workers: split brain
};

// One `failover` fault as the nemesis hands it to the service.
struct FailoverFault {
  FailoverPrimary primary = FailoverPrimary::kCrash;
  std::vector<std::string> with_primary;      // partition: the workers on the old primary's side
  std::vector<std::string> away_from_primary;  // partition: every other worker
  Duration heal_after = Duration::seconds(60);  // partition: how long the cut lasts
};

struct SystemOptions {
  ServiceOptions service;
  LockOptions lock;
  WorkerOptions workers;
  StorageOptions storage;
  Workload workload = CounterWorkload{};
};

}  // namespace locksim::model
