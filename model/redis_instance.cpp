#include "model/redis_instance.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"

namespace locksim::model {

using vocabulary::EventKind;
namespace field = vocabulary::field;
namespace reason = vocabulary::reason;

namespace {

using sim::Context;
using sim::Field;
using sim::LocalTime;

constexpr sim::Duration kSecond = sim::Duration::seconds(1);
// serverCron's period at Redis's default hz 10.
constexpr sim::Duration kCronTick = sim::Duration::milliseconds(100);
// redis.conf's default (Redis 7.0): a replica gives a sync up after repl-timeout.
constexpr sim::Duration kReplTimeout = sim::Duration::seconds(60);

// unixtime: the wall clock's whole seconds (rounded down, also before the epoch).
std::int64_t whole_second(LocalTime wall) {
  const std::int64_t ns = wall.ns();
  const std::int64_t per_second = kSecond.count_ns();
  return ns >= 0 ? ns / per_second : -((-ns + per_second - 1) / per_second);
}

sim::LocalTime deadline_after(LocalTime now, sim::Duration lease) {
  return lease == sim::Duration::max() ? LocalTime::max() : now + lease;
}

void record_lease_event(Context context, EventKind event, const std::string& lock, const RedisKey& key) {
  context.record(event, {{field::kLock, lock}, {field::kOwner, key.owner}, {field::kToken, key.token}});
}

}  // namespace

RedisInstance::RedisInstance(std::string name, RedisInstanceOptions options)
    : name_{std::move(name)}, options_{std::move(options)} {
  if (options_.role == RedisRole::kPrimary) new_replication_id();
  data_.other_keys = options_.memory.other_keys;
  durable_.other_keys = options_.memory.other_keys;
}

sim::NodeBoot RedisInstance::boot() {
  return [this](Context context) { on_boot(context); };
}

void RedisInstance::on_boot(Context context) {
  const bool after_restart = booted_before_;
  booted_before_ = true;
  if (after_restart) {
    // everysec: a process crash leaves the AOF's unsynced tail in the
    // kernel's page cache, which the restarted process reads back; only a
    // power loss takes it away. A replica reloads its own AOF too, and keeps
    // it until its full resync replaces it.
    RedisData restored;
    if (options_.persistence == Persistence::kAlways ||
        (options_.persistence == Persistence::kEverySecond && !power_lost_)) {
      restored = data_;
    } else if (options_.persistence == Persistence::kEverySecond) {
      restored = durable_;
    }
    power_lost_ = false;
    // A lease the restart forgot vanished without expiring: the promise made
    // to its owner is broken, and the history must say so — also when its
    // deadline passed while the instance was down, since no lease.expire
    // ended it then (the promise then ends at once, at grant + lease).
    for (const auto& [lock, key] : data_.keys) {
      const auto kept = restored.keys.find(lock);
      const bool forgotten = kept == restored.keys.end() || kept->second.value != key.value;
      if (forgotten && options_.role == RedisRole::kPrimary) {
        context.record(EventKind::kLeaseLost, {{field::kLock, lock},
                                               {field::kOwner, key.owner},
                                               {field::kToken, key.token},
                                               {field::kReason, reason::kRestart}});
      }
    }
    data_ = std::move(restored);
  }
  blocked_waits_.clear();  // their clients' connections died with the process
  eviction_pool_.clear();  // a static array of the process
  started_at_ = context.monotonic_now();
  resyncing_ = false;          // the tasks died with the process
  snapshot_pending_ = false;
  if (after_restart && options_.role == RedisRole::kReplica && options_.persistence != Persistence::kNone) {
    // Loaded from its AOF, which holds no replication ID (server.c
    // loadDataFromDisk restores one only from an RDB): a full resync.
    followed_replication_id_.clear();
  }
  if (after_restart && options_.role == RedisRole::kReplica && primary_) lose_link(context, /*at_start=*/true);
  if (after_restart && options_.role == RedisRole::kPrimary) {
    new_replication_id();  // a crashed process saved none (no shutdown RDB)
    if (replica_) {
      // The replica's connection to the old process was reset: it
      // reconnects and, the ID being new, gets a full resync, and no stream
      // until then.
      replica_online_ = false;
      context.send(*replica_, ReplicationClosed{});
    }
  }
  context.spawn("server", serve(context, after_restart ? Start::kRestart : Start::kFirstBoot));
  if (options_.persistence == Persistence::kEverySecond) {
    // A restarted Redis sets aof_last_fsync at start-up (server.c initServer).
    // At the run's start the instance stands for one that has been up and
    // idle for a while: its last fsync was in an earlier second.
    last_fsync_second_ = whole_second(context.now()) - (after_restart ? 0 : 1);
    unsynced_ = false;
    context.spawn("fsync", fsync_on_cron(context));
  }
  if (options_.acknowledge_every_second) {
    context.spawn("replconf-ack", acknowledge_every_second(context));
  }
  if (options_.min_replicas_to_write > 0) {
    // At the run's start the cluster has been up a while: its replica is good.
    // A restarted process knows no replica until one acknowledges again.
    if (after_restart) last_acknowledged_at_.reset();
    if (!after_restart && replica_) last_acknowledged_at_ = context.now();
    count_good_replicas(context);
    context.spawn("replication-cron", count_good_replicas_every_second(context));
  }
  if (options_.role == RedisRole::kPrimary) {
    for (const auto& [lock, key] : data_.keys) {
      watch_expiry(context, lock);
    }
  }
}

sim::Task<> RedisInstance::serve(Context context, Start start) {
  if (start == Start::kRestart && options_.delayed_restart > sim::Duration::zero()) {
    // Redlock's delayed restart: stay unavailable for a while, so that every
    // lease this instance may have forgotten has expired before it votes again.
    // Timed on the monotonic clock: an operator's or supervisor's delay, not a
    // deadline Redis compares with its wall clock.
    const LocalTime available_at = context.monotonic_now() + options_.delayed_restart;
    while (context.monotonic_now() < available_at) {
      (void)co_await context.receive_for(available_at - context.monotonic_now());
    }
  }
  while (true) {
    const sim::Message request = co_await context.receive();
    handle(context, request);
    fsync_if_second_moved(context);  // the turn's end (beforeSleep), for a read too
  }
}

void RedisInstance::handle(Context context, const sim::Message& request) {
  const bool replica = options_.role == RedisRole::kReplica;
  // processCommand checks memory before the good replicas, and a replica never (replica-ignore-maxmemory).
  if (!replica && pressures_over_maxmemory_ > 0 && request.body.get_if<AcquireCommand>()) {
    context.reply(request, AcquireReply{LockAnswer::kOutOfMemory});
    return;
  }
  if (!replica && refuses_writes() && runs_a_write(context, request)) {
    if (request.body.get_if<AcquireCommand>()) context.reply(request, AcquireReply{LockAnswer::kNoReplicas});
    if (request.body.get_if<ReleaseCommand>()) context.reply(request, ReleaseReply{LockAnswer::kNoReplicas});
    if (request.body.get_if<ExtendCommand>()) context.reply(request, ExtendReply{LockAnswer::kNoReplicas});
    return;
  }
  if (const auto* command = request.body.get_if<AcquireCommand>()) {
    context.reply(request, replica ? AcquireReply{LockAnswer::kReadOnly} : acquire(context, *command));
  } else if (const auto* get = request.body.get_if<GetCommand>()) {
    const RedisKey* key = read_key(context, get->lock);
    context.reply(request, GetReply{key == nullptr ? std::nullopt : std::optional{key->value}});
  } else if (const auto* release_command = request.body.get_if<ReleaseCommand>()) {
    context.reply(request, replica ? ReleaseReply{LockAnswer::kReadOnly} : release(context, *release_command));
  } else if (const auto* extend_command = request.body.get_if<ExtendCommand>()) {
    context.reply(request, replica ? ExtendReply{LockAnswer::kReadOnly} : extend(context, *extend_command));
  } else if (const auto* validate = request.body.get_if<ValidateCommand>()) {
    const RedisKey* key = read_key(context, validate->lock);
    context.reply(request, ValidateReply{key != nullptr && key->token == validate->token});
  } else if (const auto* change = request.body.get_if<ReplicateCommand>()) {
    // Only a replica follows a replication stream: a change the old primary
    // shipped before the failover and that arrives after the promotion belongs
    // to a history this instance has left (Redis: a new replication ID).
    if (!replica || !link_up_) return;  // a replica whose link is down follows no stream
    apply_replicated(context, *change);
    if (options_.acknowledge_changes) context.send(request.from, ReplicaAck{applied_offset_});
  } else if (const auto* ack = request.body.get_if<ReplicaAck>()) {
    if (!replica) acknowledged(context, *ack);
  } else if (request.body.get_if<ReplicationClosed>()) {
    if (replica) {
      if (primary_ && request.from == *primary_) lose_link(context, /*at_start=*/false);
      return;
    }
    // freeClient on the replica's link: refreshGoodSlavesCount finds none.
    // Acknowledgements that arrive just before it (held by a partition) count for nothing.
    last_acknowledged_at_.reset();
    good_replicas_ = 0;
  } else if (const auto* sync = request.body.get_if<SyncRequest>()) {
    if (!replica && replica_ && request.from == *replica_) {
      answer_sync(context, request.from, sync->replication_id == replication_id_);
    }
  } else if (const auto* snapshot = request.body.get_if<ReplicaSnapshot>()) {
    if (replica && primary_ && request.from == *primary_) load_snapshot(context, *snapshot);
  } else if (const auto* wait = request.body.get_if<WaitCommand>()) {
    if (replica) {
      context.reply(request, WaitReply{0});  // Redis refuses WAIT on a replica: nothing acknowledged
    } else {
      start_wait(context, request, *wait);
    }
  } else if (request.body.get_if<SentinelPing>()) {
    context.reply(request, SentinelPong{});
  } else if (request.body.get_if<InfoCommand>()) {
    context.reply(request, InfoReply{!replica});
  } else if (const auto* replicaof = request.body.get_if<ReplicaofCommand>()) {
    if (on_replicaof_) on_replicaof_(replicaof->primary);
  }
}

bool RedisInstance::refuses_writes() const {
  return options_.min_replicas_to_write > 0 && good_replicas_ < options_.min_replicas_to_write;
}

bool RedisInstance::runs_a_write(Context context, const sim::Message& request) {
  if (request.body.get_if<AcquireCommand>()) return true;
  const auto callers_key = [&](const std::string& lock, const std::string& value) {
    expire_if_due(context, lock);
    const auto key = data_.keys.find(lock);
    return key != data_.keys.end() && key->second.value == value;
  };
  if (const auto* release = request.body.get_if<ReleaseCommand>()) {
    return !release->compare || callers_key(release->lock, release->value);
  }
  if (const auto* extend = request.body.get_if<ExtendCommand>()) {
    return !extend->compare || callers_key(extend->lock, extend->value);
  }
  return false;
}

void RedisInstance::count_good_replicas(Context context) {
  // One replica at most. Lag in whole seconds of the wall clock
  // (server.unixtime - repl_ack_time), and `<=`, as Redis counts it.
  const std::int64_t max_lag_seconds = options_.min_replicas_max_lag.count_ns() / kSecond.count_ns();
  good_replicas_ = replica_online_ && last_acknowledged_at_ &&
                           whole_second(context.now()) - whole_second(*last_acknowledged_at_) <= max_lag_seconds
                       ? 1
                       : 0;
}

sim::Task<> RedisInstance::count_good_replicas_every_second(Context context) {
  while (true) {
    co_await context.sleep(kSecond);  // replicationCron's timer: the monotonic clock
    count_good_replicas(context);
  }
}

void RedisInstance::acknowledged(Context context, const ReplicaAck& ack) {
  if (!replica_online_) return;  // from before the replica lost its link
  const bool first = !last_acknowledged_at_;  // the replica comes online: Redis counts at once
  last_acknowledged_at_ = context.now();
  if (first) count_good_replicas(context);
  acknowledged_offset_ = std::max(acknowledged_offset_, ack.offset);
  answer_waits(context, WaitsToAnswer::kAcknowledged);
}

void RedisInstance::start_wait(Context context, const sim::Message& request, const WaitCommand& command) {
  // WAIT counts the replicas that acknowledged every change made before it.
  const std::int64_t offset = shipped_offset_;
  const int acknowledged = replica_ && acknowledged_offset_ >= offset ? 1 : 0;
  if (acknowledged >= command.replicas) {
    context.reply(request, WaitReply{acknowledged});
    return;
  }
  const std::uint64_t wait = ++waits_so_far_;
  blocked_waits_.emplace(wait, BlockedWait{request, offset, command.replicas});
  context.spawn("wait", time_out_wait(context, wait, context.now() + command.timeout));
}

void RedisInstance::answer_waits(Context context, WaitsToAnswer which) {
  for (auto blocked = blocked_waits_.begin(); blocked != blocked_waits_.end();) {
    const int acknowledged = replica_ && acknowledged_offset_ >= blocked->second.offset ? 1 : 0;
    if (which == WaitsToAnswer::kAll || acknowledged >= blocked->second.replicas) {
      context.reply(blocked->second.request, WaitReply{acknowledged});
      blocked = blocked_waits_.erase(blocked);
    } else {
      ++blocked;
    }
  }
}

sim::Task<> RedisInstance::time_out_wait(Context context, std::uint64_t wait, LocalTime deadline) {
  // Redis times a blocked client out by its wall clock (the command's time snapshot).
  co_await context.sleep_until(deadline, sim::ClockKind::kWall);
  const auto blocked = blocked_waits_.find(wait);
  if (blocked == blocked_waits_.end()) co_return;  // answered already
  const int acknowledged = replica_ && acknowledged_offset_ >= blocked->second.offset ? 1 : 0;
  context.reply(blocked->second.request, WaitReply{acknowledged});
  blocked_waits_.erase(blocked);
}

sim::Task<> RedisInstance::acknowledge_every_second(Context context) {
  // REPLCONF ACK, once a second of this instance's clock (replicationCron);
  // the first on boot, as a replica connecting to its primary.
  while (true) {
    if (options_.role == RedisRole::kReplica && primary_ && link_up_) {
      context.send(*primary_, ReplicaAck{applied_offset_});
    }
    co_await context.sleep(kSecond);  // a cron timer: the monotonic clock
  }
}

AcquireReply RedisInstance::acquire(Context context, const AcquireCommand& command) {
  expire_if_due(context, command.lock);
  if (command.only_if_absent && data_.keys.contains(command.lock)) {
    return AcquireReply{};
  }
  if (const auto replaced = data_.keys.find(command.lock); replaced != data_.keys.end()) {
    // A plain SET over a live key (H9): the lease in it vanishes without
    // expiring, and its owner was never told.
    context.record(EventKind::kLeaseLost, {{field::kLock, command.lock},
                                           {field::kOwner, replaced->second.owner},
                                           {field::kToken, replaced->second.token},
                                           {field::kReason, reason::kOverwritten}});
  }
  RedisKey key{command.owner, command.value, ++data_.token_counter, command.lease,
               deadline_after(context.now(), command.lease), ++uses_};
  data_.token_counter_last_used = ++uses_;  // the script's INCR comes after its SET
  if (command.lease == sim::Duration::max()) {
    context.record(EventKind::kLeaseGrant,
                   {{field::kLock, command.lock}, {field::kOwner, key.owner}, {field::kToken, key.token}});
  } else {
    context.record(EventKind::kLeaseGrant, {{field::kLock, command.lock},
                                            {field::kOwner, key.owner},
                                            {field::kToken, key.token},
                                            {field::kLeaseNs, command.lease}});
  }
  const std::int64_t token = key.token;
  data_.keys[command.lock] = std::move(key);
  changed(context, command.lock);
  watch_expiry(context, command.lock);
  return AcquireReply{LockAnswer::kDone, token};
}

ReleaseReply RedisInstance::release(Context context, const ReleaseCommand& command) {
  expire_if_due(context, command.lock);
  const auto key = data_.keys.find(command.lock);
  if (key == data_.keys.end() || (command.compare && key->second.value != command.value)) {
    return ReleaseReply{};
  }
  context.record(EventKind::kLeaseRelease, {{field::kLock, command.lock},
                                            {field::kOwner, key->second.owner},
                                            {field::kToken, key->second.token},
                                            {field::kBy, command.requester}});
  data_.keys.erase(key);
  changed(context, command.lock);
  return ReleaseReply{LockAnswer::kDone};
}

ExtendReply RedisInstance::extend(Context context, const ExtendCommand& command) {
  expire_if_due(context, command.lock);
  const auto key = data_.keys.find(command.lock);
  // PEXPIRE on a missing key answers 0 (it revives nothing); a plain one on
  // another owner's key extends that owner's lease, recorded as its renewal.
  if (key == data_.keys.end() || (command.compare && key->second.value != command.value)) {
    return ExtendReply{};
  }
  key->second.lease = command.lease;
  key->second.deadline = deadline_after(context.now(), command.lease);
  touch(command.lock);
  context.record(EventKind::kLeaseRenew, {{field::kLock, command.lock},
                                          {field::kOwner, key->second.owner},
                                          {field::kToken, key->second.token},
                                          {field::kLeaseNs, command.lease}});
  changed(context, command.lock);
  return ExtendReply{LockAnswer::kDone, key->second.token};
}

void RedisInstance::expire_if_due(Context context, const std::string& lock) {
  if (options_.role == RedisRole::kReplica) {
    return;  // replicas wait for the primary's DEL, as Redis replicas do
  }
  const auto key = data_.keys.find(lock);
  if (key == data_.keys.end() || key->second.deadline > context.now()) {
    return;
  }
  record_lease_event(context, EventKind::kLeaseExpire, lock, key->second);
  data_.keys.erase(key);
  changed(context, lock);
}

const RedisKey* RedisInstance::read_key(Context context, const std::string& lock) {
  expire_if_due(context, lock);
  touch(lock);
  const auto key = data_.keys.find(lock);
  if (key == data_.keys.end()) return nullptr;
  // A replica keeps a key past its deadline until the primary's DEL, but
  // answers a read as if it were gone (db.c expireIfNeeded: "expired" for
  // any client but its primary, since Redis 3.2).
  if (options_.role == RedisRole::kReplica && key->second.deadline <= context.now()) return nullptr;
  return &key->second;
}

void RedisInstance::touch(const std::string& lock) {
  if (const auto key = data_.keys.find(lock); key != data_.keys.end()) key->second.last_used = ++uses_;
}

bool RedisInstance::other_keys_live(LocalTime now) const {
  // Written at the run's start, so their deadline is the TTL on this clock's
  // reading then; an expired one is gone, not evictable.
  const std::optional<sim::Duration>& ttl = options_.memory.other_keys_ttl;
  return data_.other_keys > 0 && (!ttl || LocalTime{} + *ttl > now);
}

std::vector<std::string> RedisInstance::evictable_locks() const {
  const bool only_volatile = options_.memory.policy != MaxmemoryPolicy::kAllkeysLru;
  std::vector<std::string> locks;
  for (const auto& [lock, key] : data_.keys) {
    if (!only_volatile || key.deadline != LocalTime::max()) locks.push_back(lock);  // volatile-*: keys with a TTL
  }
  return locks;
}

std::int64_t RedisInstance::evictable_other_keys(LocalTime now) const {
  const bool only_volatile = options_.memory.policy != MaxmemoryPolicy::kAllkeysLru;
  const bool evictable = other_keys_live(now) && (!only_volatile || options_.memory.other_keys_ttl.has_value());
  return evictable ? data_.other_keys : 0;
}

std::int64_t RedisInstance::lock_score(const RedisKey& key) const {
  if (options_.memory.policy == MaxmemoryPolicy::kVolatileTtl) return -key.deadline.ns();
  return -static_cast<std::int64_t>(key.last_used);
}

std::int64_t RedisInstance::other_keys_score() const {
  // Written at the run's start: their deadline is the TTL on this clock's reading then, and they were used
  // before any lock key (last_used 0, the longest idle).
  if (options_.memory.policy == MaxmemoryPolicy::kVolatileTtl) return -(LocalTime{} + *options_.memory.other_keys_ttl).ns();
  return 0;
}

bool RedisInstance::token_counter_evictable() const {
  // INCR creates the key at the first grant; it has no TTL.
  return options_.memory.policy == MaxmemoryPolicy::kAllkeysLru && data_.token_counter > 0;
}

bool RedisInstance::sample_into_eviction_pool(Context context) {
  if (options_.memory.policy == MaxmemoryPolicy::kNoEviction) return false;
  const std::vector<std::string> locks = evictable_locks();
  const std::uint64_t counter = token_counter_evictable() ? 1 : 0;
  const std::int64_t others = evictable_other_keys(context.now());
  const auto total = static_cast<std::uint64_t>(static_cast<std::int64_t>(locks.size()) + others) + counter;
  if (total == 0) return false;
  // dictGetSomeKeys: up to maxmemory-samples distinct keys, drawn from the seed.
  // Always from the seed, never `locksim verify`'s chooser: drawing until the
  // keys differ needs fresh values, and a chooser gives one site one value.
  const std::uint64_t samples = std::min<std::uint64_t>(static_cast<std::uint64_t>(options_.memory.samples), total);
  std::vector<std::uint64_t> drawn;
  while (drawn.size() < samples) {
    const std::uint64_t index = context.rng().below(total);
    if (std::find(drawn.begin(), drawn.end(), index) == drawn.end()) drawn.push_back(index);
  }
  constexpr std::size_t kPoolSize = 16;
  for (const std::uint64_t index : drawn) {
    EvictionCandidate candidate;
    if (index < locks.size()) {
      candidate.lock = locks[index];
      candidate.score = lock_score(data_.keys.at(locks[index]));
    } else if (index < locks.size() + counter) {
      candidate.token_counter = true;
      candidate.score = -static_cast<std::int64_t>(data_.token_counter_last_used);
    } else {
      candidate.score = other_keys_score();
    }
    // Ascending by score, the best last; a full pool takes only a better key, dropping its worst.
    const auto at = std::find_if(eviction_pool_.begin(), eviction_pool_.end(),
                                 [&](const EvictionCandidate& entry) { return entry.score >= candidate.score; });
    if (eviction_pool_.size() == kPoolSize) {
      if (at == eviction_pool_.begin()) continue;
      eviction_pool_.insert(at, candidate);
      eviction_pool_.erase(eviction_pool_.begin());
    } else {
      eviction_pool_.insert(at, candidate);
    }
  }
  return true;
}

std::optional<RedisInstance::EvictionCandidate> RedisInstance::take_best_candidate(LocalTime now) {
  const std::vector<std::string> locks = evictable_locks();
  const std::int64_t others_left = evictable_other_keys(now);
  while (!eviction_pool_.empty()) {
    const EvictionCandidate best = eviction_pool_.back();
    eviction_pool_.pop_back();
    // A ghost (a key deleted since it was sampled, or no longer one the policy takes) is skipped.
    const bool exists = best.lock            ? std::find(locks.begin(), locks.end(), *best.lock) != locks.end()
                        : best.token_counter ? token_counter_evictable()
                                             : others_left > 0;
    if (exists) return best;
  }
  return std::nullopt;
}

int RedisInstance::evict(Context context, int keys) {
  if (options_.role == RedisRole::kReplica) return 0;
  // Keys already past their deadline are expired, not evicted.
  std::vector<std::string> locks;
  for (const auto& [lock, key] : data_.keys) locks.push_back(lock);
  for (const std::string& lock : locks) expire_if_due(context, lock);
  int freed = 0;
  for (; freed < keys; ++freed) {
    if (!sample_into_eviction_pool(context)) break;
    const std::optional<EvictionCandidate> victim = take_best_candidate(context.now());
    if (!victim) break;
    if (victim->token_counter) {
      // Nobody is told: the next grant's INCR starts again at 1, and tokens repeat.
      data_.token_counter = 0;
      changed(context, "");  // a DEL of the counter reaches the replica too
      continue;
    }
    if (!victim->lock) {
      --data_.other_keys;
      continue;
    }
    const auto key = data_.keys.find(*victim->lock);
    // Evicted like any key: the lease vanishes without expiring, and its owner is never told.
    context.record(EventKind::kLeaseLost, {{field::kLock, key->first},
                                           {field::kOwner, key->second.owner},
                                           {field::kToken, key->second.token},
                                           {field::kReason, reason::kEvicted}});
    data_.keys.erase(key);
    changed(context, *victim->lock);  // a primary's eviction reaches its replica as a DEL
  }
  return freed;
}

void RedisInstance::watch_expiry(Context context, const std::string& lock) {
  const auto key = data_.keys.find(lock);
  if (key != data_.keys.end() && key->second.deadline != LocalTime::max()) {
    context.spawn("expire", expire_when_due(context, lock, key->second.value));
  }
}

sim::Task<> RedisInstance::expire_when_due(Context context, std::string lock, std::string value) {
  while (true) {
    const auto key = data_.keys.find(lock);
    if (key == data_.keys.end() || key->second.value != value) {
      co_return;  // released, overwritten or already expired
    }
    if (context.now() >= key->second.deadline) {
      expire_if_due(context, lock);
      co_return;
    }
    // Redis compares a key's expiry with its wall clock (mstime(); still so
    // in 7.x), so a clock set forward expires keys early (H4).
    co_await context.sleep_until(key->second.deadline, sim::ClockKind::kWall);  // an extend moves it: look again
  }
}

void RedisInstance::changed(Context context, const std::string& lock) {
  unsynced_ = true;
  fsync_if_second_moved(context);
  if (!replica_) {
    return;
  }
  ReplicateCommand change;
  change.lock = lock;
  change.token_counter = data_.token_counter;
  change.offset = ++shipped_offset_;
  if (!replica_online_) return;  // its full resync's snapshot will carry it
  if (const auto key = data_.keys.find(lock); key != data_.keys.end()) {
    change.present = true;
    change.owner = key->second.owner;
    change.value = key->second.value;
    change.token = key->second.token;
    change.lease = key->second.lease;
    change.deadline = key->second.deadline;
  }
  // Shipped in order: a later change never becomes due before an earlier one.
  // The lag is a delay, not a deadline: timed on the monotonic clock.
  ship_in_order(context, std::move(change));
}

void RedisInstance::ship_in_order(Context context, sim::Payload message) {
  const LocalTime drawn = context.monotonic_now() + context.draw(options_.replication_lag, "service.replication_lag");
  last_shipment_due_ = std::max(last_shipment_due_, drawn);
  context.spawn("replicate", ship_when_due(context, std::move(message), last_shipment_due_));
}

sim::Task<> RedisInstance::ship_when_due(Context context, sim::Payload message, LocalTime due) {
  co_await context.sleep_until(due, sim::ClockKind::kMonotonic);
  if (replica_) {
    context.send(*replica_, std::move(message));
  }
}

LocalTime RedisInstance::next_replication_cron(Context context) const {
  const std::int64_t elapsed = (context.monotonic_now() - started_at_).count_ns();
  return started_at_ + kSecond * (elapsed / kSecond.count_ns() + 1);
}

void RedisInstance::lose_link(Context context, bool at_start) {
  link_up_ = false;
  if (resyncing_) return;
  resyncing_ = true;
  context.spawn("resync", resync_with_primary(context, at_start));
}

sim::Task<> RedisInstance::resync_with_primary(Context context, bool at_start) {
  // replicationCron connects a replica whose link is down: its first run
  // comes right after the process starts, later ones once a second.
  if (!at_start) co_await context.sleep_until(next_replication_cron(context), sim::ClockKind::kMonotonic);
  while (options_.role == RedisRole::kReplica && primary_ && !link_up_) {
    context.send(*primary_, SyncRequest{followed_replication_id_});
    const LocalTime give_up = context.monotonic_now() + kReplTimeout;
    while (!link_up_ && context.monotonic_now() < give_up) {
      co_await context.sleep_until(next_replication_cron(context), sim::ClockKind::kMonotonic);
    }
  }
  resyncing_ = false;
}

void RedisInstance::new_replication_id() {
  replication_id_ = name_ + ":" + std::to_string(++replication_ids_so_far_);
}

void RedisInstance::answer_sync(Context context, sim::NodeId replica, bool partial) {
  // A new connection from the replica: the old one is gone, and with it the
  // replica's place among the good ones (freeClient, refreshGoodSlavesCount).
  replica_ = replica;
  replica_online_ = false;
  last_acknowledged_at_.reset();
  good_replicas_ = 0;
  if (partial) {
    // The backlog (1 MB by default: hours of a lock's traffic) holds every
    // change since the replica's offset: it is up to date at once.
    send_snapshot(context);
    return;
  }
  if (snapshot_pending_) return;  // it joins the snapshot already waiting
  snapshot_pending_ = true;
  context.spawn("full-resync", send_snapshot_when_due(context, context.now()));
}

sim::Task<> RedisInstance::send_snapshot_when_due(Context context, LocalTime requested_at) {
  // shouldStartChildReplication, from replicationCron: the replica has
  // waited repl-diskless-sync-delay whole seconds of the wall clock.
  const std::int64_t delay_seconds = options_.repl_diskless_sync_delay.count_ns() / kSecond.count_ns();
  do {
    co_await context.sleep_until(next_replication_cron(context), sim::ClockKind::kMonotonic);
  } while (whole_second(context.now()) - whole_second(requested_at) < delay_seconds);
  snapshot_pending_ = false;
  if (options_.role != RedisRole::kPrimary || !replica_) co_return;
  send_snapshot(context);
}

void RedisInstance::send_snapshot(Context context) {
  ReplicaSnapshot snapshot;
  snapshot.replication_id = replication_id_;
  snapshot.token_counter = data_.token_counter;
  snapshot.other_keys = data_.other_keys;
  snapshot.offset = shipped_offset_;
  for (const auto& [lock, key] : data_.keys) {
    ReplicateCommand copy;
    copy.lock = lock;
    copy.present = true;
    copy.owner = key.owner;
    copy.value = key.value;
    copy.token = key.token;
    copy.lease = key.lease;
    copy.deadline = key.deadline;
    snapshot.keys.push_back(std::move(copy));
  }
  // The stream goes on from the snapshot, behind it; the replica is online
  // (putSlaveOnline counts it good at once).
  ship_in_order(context, std::move(snapshot));
  replica_online_ = true;
  last_acknowledged_at_ = context.now();
  count_good_replicas(context);
}

void RedisInstance::load_snapshot(Context context, const ReplicaSnapshot& snapshot) {
  // repl-diskless-load disabled: the old data goes only now, when the new is loaded.
  data_.keys.clear();
  for (const ReplicateCommand& key : snapshot.keys) {
    data_.keys[key.lock] = RedisKey{key.owner, key.value, key.token, key.lease, key.deadline, ++uses_};
  }
  data_.token_counter = snapshot.token_counter;
  data_.other_keys = snapshot.other_keys;
  applied_offset_ = snapshot.offset;
  followed_replication_id_ = snapshot.replication_id;
  link_up_ = true;
  if (options_.acknowledge_changes || options_.acknowledge_every_second) {
    context.send(*primary_, ReplicaAck{applied_offset_});
  }
}

void RedisInstance::apply_replicated(Context context, const ReplicateCommand& change) {
  applied_offset_ = std::max(applied_offset_, change.offset);
  data_.token_counter = change.token_counter;
  if (change.present) {
    data_.keys[change.lock] = RedisKey{change.owner, change.value, change.token, change.lease, change.deadline, ++uses_};
  } else {
    data_.keys.erase(change.lock);
  }
  if (options_.role == RedisRole::kPrimary) {
    watch_expiry(context, change.lock);
  }
}

void RedisInstance::fsync_if_second_moved(Context context) {
  if (options_.persistence != Persistence::kEverySecond || !unsynced_) return;
  const std::int64_t second = whole_second(context.now());
  if (second <= last_fsync_second_) return;
  // The background fsync takes milliseconds; the model counts it done as it starts.
  durable_ = data_;
  last_fsync_second_ = second;
  unsynced_ = false;
}

sim::Task<> RedisInstance::fsync_on_cron(Context context) {
  while (true) {
    co_await context.sleep(kCronTick);  // serverCron's timer: the monotonic clock
    fsync_if_second_moved(context);
  }
}

void RedisInstance::promote(sim::Simulation& simulation, const RedisInstance& old_primary,
                            OldPrimary old_primary_state) {
  options_.role = RedisRole::kPrimary;
  const sim::Context context = simulation.context_of(*simulation.find_node(name_));
  if (primary_) context.send(*primary_, ReplicationClosed{});
  primary_.reset();
  // A new replication history: no replica has acknowledged any of it yet.
  shipped_offset_ = applied_offset_;
  acknowledged_offset_ = 0;
  replica_online_ = false;  // the old primary follows only after a full resync
  snapshot_pending_ = false;
  last_acknowledged_at_.reset();
  good_replicas_ = 0;
  new_replication_id();
  simulation.record(name_, EventKind::kReplicaPromote, {});
  const std::optional<sim::NodeId> old_node = simulation.find_node(old_primary.name());
  const LocalTime old_clock = old_node ? simulation.local_time(*old_node) : LocalTime{};
  adopt_live_leases(context, old_primary, old_clock);
  for (const auto& [lock, key] : old_primary.data().keys) {
    const auto copy = data_.keys.find(lock);
    const bool adopted = copy != data_.keys.end() && copy->second.value == key.value;
    if (!adopted && key.deadline > old_clock && old_primary_state == OldPrimary::kDown) {
      simulation.record(old_primary.name(), EventKind::kLeaseLost,
                        {{field::kLock, lock},
                         {field::kOwner, key.owner},
                         {field::kToken, key.token},
                         {field::kReason, reason::kFailover}});
    }
  }
  for (const auto& [lock, key] : data_.keys) {
    watch_expiry(context, lock);
  }
}

void RedisInstance::adopt_live_leases(Context context, const RedisInstance& old_primary, LocalTime old_clock) {
  for (auto copy = data_.keys.begin(); copy != data_.keys.end();) {
    const auto original = old_primary.data().keys.find(copy->first);
    const bool promised_by_old_primary = original != old_primary.data().keys.end() &&
                                         original->second.value == copy->second.value &&
                                         original->second.deadline > old_clock;
    // The deadline came as an absolute time (PXAT): this instance compares it
    // with its own clock, so the lease has what that clock says is left.
    const bool live_here = copy->second.deadline > context.now();
    if (!promised_by_old_primary || !live_here) {
      // A copy of a lease the old primary had already ended (its DEL or expiry
      // not shipped yet), or one already past its deadline here: nobody is
      // promised it, so the new primary does not keep it (a simplification:
      // Redis would keep such a key until its deadline).
      copy = data_.keys.erase(copy);
      continue;
    }
    std::vector<Field> fields{
        {field::kLock, copy->first}, {field::kOwner, copy->second.owner}, {field::kToken, copy->second.token}};
    if (copy->second.deadline != LocalTime::max()) {
      fields.emplace_back(field::kLeaseNs, copy->second.deadline - context.now());
    }
    context.record_fields(EventKind::kLeaseAdopt, fields);
    ++copy;
  }
}

void RedisInstance::rejoin(sim::Simulation& simulation, const RedisInstance& new_primary,
                           sim::NodeId new_primary_node) {
  for (const auto& [lock, key] : data_.keys) {
    const auto kept = new_primary.data().keys.find(lock);
    // The same key at the same deadline: the new primary adopted this lease
    // and nobody renewed it since, so it is promised there, not lost.
    const bool adopted = kept != new_primary.data().keys.end() && kept->second.value == key.value &&
                         kept->second.deadline == key.deadline;
    if (!adopted) {
      simulation.record(name_, EventKind::kLeaseLost,
                        {{field::kLock, lock},
                         {field::kOwner, key.owner},
                         {field::kToken, key.token},
                         {field::kReason, reason::kFailover}});
    }
  }
  // Clients blocked in WAIT are unblocked by the role change, with what was acknowledged.
  const std::optional<sim::NodeId> node = simulation.find_node(name_);
  if (simulation.is_up(*node)) answer_waits(simulation.context_of(*node), WaitsToAnswer::kAll);
  blocked_waits_.clear();
  // It asks to continue its own stream (replicationCacheMasterUsingMyself),
  // which the new primary's is not: a full resync.
  const std::string own_stream = replication_id_;
  demote();
  follow(new_primary_node, own_stream);
  if (simulation.is_up(*node)) lose_link(simulation.context_of(*node), /*at_start=*/false);
}

}  // namespace locksim::model
