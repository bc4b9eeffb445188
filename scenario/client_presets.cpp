#include "scenario/client_presets.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace locksim::scenario {
namespace {

using model::ServiceKind;

// Each value is the library's default at the named version, read in its
// source (the file, and the name or line there). Keep the closing note of a
// change here in step with docs/models.md ("Client presets").
constexpr std::array kRedisPy = std::to_array<PresetSetting>({
    {"/lock/lease", "\"none\"", "redis/lock.py:80 Lock(timeout=None); :218 SET NX gets PX only `if self.timeout`: the key never expires"},
    {"/workers/acquire", "\"set-nx-px\"", "redis/lock.py:218 do_acquire: SET name token NX [PX timeout]"},
    {"/workers/retry", "\"100ms\"", "redis/lock.py:81 sleep=0.1; :206-215 acquire sleeps it between tries, no jitter"},
    {"/workers/release", "\"compare-and-delete\"", "redis/lock.py:27-34 LUA_RELEASE_SCRIPT: delete only if the token is mine"},
    {"/workers/renew", "\"none\"", "redis/lock.py:261-308 extend() and reacquire() exist; nothing calls them for you"},
    {"/workers/clock", "\"monotonic\"", "redis/lock.py:205 stop_trying_at = time.monotonic() + blocking_timeout"},
    {"/service/request_timeout", "\"none\"", "redis/client.py:906 socket_timeout=None, retry_on_timeout=False: a reply is waited for as long as it takes"},
    {"/workers/sentinel_discovery", "\"on-error\"",
     "redis/sentinel.py:40-44 _connect_retry asks Sentinel for the primary only when a connection is made, and "
     ":56-68 a READONLY reply drops the connection: nothing listens for +switch-master", {ServiceKind::kRedisFailover}},
});

constexpr std::array kRedsync = std::to_array<PresetSetting>({
    {"/lock/lease", "\"8s\"", "redsync.go:32 expiry 8 * time.Second"},
    {"/workers/acquire", "\"set-nx-px\"", "mutex.go: acquire: SET NX PX expiry on each pool"},
    {"/workers/retry", "{\"dist\": \"uniform\", \"min\": \"50ms\", \"max\": \"250ms\"}",
     "redsync.go:12-13,35 delayFunc rand.Intn(250 − 50) + 50 ms before each try after the first"},
    {"/workers/max_tries", "32", "redsync.go:33 tries 32"},
    {"/workers/release", "\"compare-and-delete\"", "scripts.go:5-14 deleteScript: DEL only if the value is mine"},
    {"/workers/renew", "\"none\"", "mutex.go:158-173 Extend() exists; nothing calls it for you"},
    {"/workers/clock", "\"monotonic\"", "mutex.go:104,114 time.Now(), compared with Sub/Before on Go's monotonic reading"},
    {"/service/request_timeout", "\"3s\"",
     "go-redis v9 options.go:370 ReadTimeout 3 s: redsync's own context.WithTimeout(expiry × 0.05 = 400 ms, mutex.go:107) "
     "does not reach the socket unless ContextTimeoutEnabled (redis.go:1033-1038)"},
    {"/service/drift_factor", "0.01", "redsync.go:38 driftFactor 0.01; mutex.go:114-116 until = now + expiry − elapsed − expiry × 0.01",
     {ServiceKind::kRedlock}},
});

constexpr std::array kNodeRedlock = std::to_array<PresetSetting>({
    {"/workers/acquire", "\"set-nx-px\"", "src/index.ts:29-58 ACQUIRE_SCRIPT: SET key value NX PX duration on each instance"},
    {"/workers/retry", "{\"dist\": \"uniform\", \"min\": \"100ms\", \"max\": \"300ms\"}",
     "src/index.ts:108-109 retryDelay 200, retryJitter 100; :450-459 max(0, 200 + floor((2·random − 1) × 100)) ms"},
    {"/workers/max_tries", "11", "src/index.ts:107 retryCount 10; :433-434 attempts = retryCount + 1"},
    {"/workers/release", "\"compare-and-delete\"", "src/index.ts:29-58 RELEASE_SCRIPT: DEL only if the value is mine"},
    {"/workers/renew", "\"none\"", "src/index.ts: acquire() and release() never extend; using() does (:709-734, not modelled)"},
    {"/workers/clock", "\"wall\"", "src/index.ts:305,328 start = Date.now(); expiration = start + duration − drift"},
    {"/service/request_timeout", "\"none\"", "ioredis v5 RedisOptions.ts: no commandTimeout by default; node-redlock sets none"},
    {"/service/drift_factor", "0.01", "src/index.ts:106 driftFactor 0.01; :318-321 drift = round(0.01 × duration) + 2", {ServiceKind::kRedlock}},
    {"/service/recheck_elapsed", "false", "src/index.ts:305-328 the expiration is computed but never checked: a slow round still succeeds",
     {ServiceKind::kRedlock}},
});

constexpr std::array kRedisson = std::to_array<PresetSetting>({
    {"/lock/lease", "\"30s\"", "config/Config.java:76 lockWatchdogTimeout 30000, the lease of lock() without a leaseTime (RedissonLock.java:189-205)"},
    {"/workers/acquire", "\"set-nx-px\"", "RedissonLock.java:218-227 tryLockInnerAsync: HINCRBY + PEXPIRE only if the key is absent or mine"},
    {"/workers/release", "\"compare-and-delete\"", "RedissonLock.java:344-367 unlockInnerAsync: only the holder's field is removed"},
    {"/workers/renew", "\"watchdog\"", "renewal/RenewalTask.java: the watchdog extends the lease while the lock is held"},
    {"/workers/renew_every", "\"10s\"", "renewal/RenewalTask.java:66-67 every lockWatchdogTimeout / 3", {}, "/workers/renew"},
    {"/workers/renew_command", "\"compare-and-extend\"", "renewal/LockTask.java:81-97 PEXPIRE only if the holder's field exists",
     {ServiceKind::kRedis, ServiceKind::kRedisFailover}, "/workers/renew"},
    {"/workers/renew_on_error", "\"retry\"", "renewal/RenewalTask.java run(): an error is logged and the next period renews again; the holder is not told", {}, "/workers/renew"},
    {"/workers/renew_retries", "4", "config/BaseConfig.java:63 retryAttempts 4 from 3.48.0 (3 up to 3.47.0, :62)", {ServiceKind::kRedis, ServiceKind::kRedisFailover}, "/workers/renew"},
    {"/workers/clock", "\"wall\"", "RedissonLock.java:233-298 tryLock(waitTime, …) times its wait with System.currentTimeMillis()"},
    {"/service/request_timeout", "\"3s\"", "config/BaseConfig.java:59 timeout 3000"},
});

constexpr std::array kRedisSemaphore = std::to_array<PresetSetting>({
    {"/lock/lease", "\"10s\"", "src/misc.ts:4 lockTimeout 10000"},
    {"/workers/acquire", "\"set-nx-px\"", "src/mutex/acquire.ts:29-40 SET key identifier NX PX lockTimeout"},
    {"/workers/retry", "\"10ms\"", "src/misc.ts:7 retryInterval 10; src/mutex/acquire.ts:29-40 delay(10) between tries, no jitter"},
    {"/workers/acquire_timeout", "\"10s\"", "src/misc.ts:5 acquireTimeout 10000 (acquireAttemptsLimit +Infinity, :6)"},
    {"/workers/release", "\"compare-and-delete\"", "src/mutex/release.ts:8-20 DEL only if the identifier is mine"},
    {"/workers/renew", "\"watchdog\"", "src/Lock.ts:86-92 setInterval(refresh, refreshInterval)"},
    {"/workers/renew_every", "\"8s\"", "src/Lock.ts:8,33 refreshInterval = round(lockTimeout × 0.8)", {}, "/workers/renew"},
    {"/workers/renew_command", "\"compare-and-extend\"", "src/mutex/refresh.ts:7-23 PEXPIRE only if the identifier is mine",
     {ServiceKind::kRedis, ServiceKind::kRedisFailover, ServiceKind::kRedlock}, "/workers/renew"},
    {"/workers/renew_on_error", "\"stop\"", "src/Lock.ts:116-128 a failed refresh calls onLockLost: by default it throws (src/misc.ts:10-12)", {}, "/workers/renew"},
    {"/workers/renew_retries", "0", "src/Lock.ts:104-128 a refresh is not sent again", {ServiceKind::kRedis, ServiceKind::kRedisFailover}, "/workers/renew"},
    {"/workers/clock", "\"wall\"", "src/mutex/acquire.ts:29-30 the acquire timeout is timed with Date.now()"},
    {"/service/request_timeout", "\"none\"", "the library sets none; ioredis v5 has no commandTimeout by default"},
});

constexpr std::array kPresets = std::to_array<ClientPreset>({
    {"redis-py", "redis-py 4.3 (redis.lock.Lock; read at tag v4.3.6, the same from 4.3.0; Debian 12's python3-redis 4.3.4)",
     {ServiceKind::kRedis, ServiceKind::kRedisFailover}, kRedisPy,
     "blocking_timeout (a caller's bound on the wait; default none) and its no-last-try rule (lock.py:206-215)"},
    {"redsync", "redsync v4 (Go; read at tag v4.17.0, the defaults as since v4.5.0)", {ServiceKind::kRedis, ServiceKind::kRedlock}, kRedsync,
     "its drift has no + 2 ms (the model's Redlock adds it); go-redis's own 3 re-sends of a timed-out command"},
    {"node-redlock", "node-redlock 5.0.0-beta.2 (npm redlock; read at tag v5.0.0-beta.2)", {ServiceKind::kRedis, ServiceKind::kRedlock}, kNodeRedlock,
     "validity counted from the first try, across retries (index.ts:305); using()'s automatic extension 500 ms before "
     "expiry and its abort signal; release() of a lock that is gone retries like an acquire (about 2 s) before it throws"},
    {"redisson", "Redisson 3.48 (Java, RLock.lock(); read at tags redisson-3.47.0 and 3.48.0)", {ServiceKind::kRedis, ServiceKind::kRedisFailover}, kRedisson,
     "tryLock's wait on the unlock channel (pub/sub, RedissonLock.java:248-311); a renewal period that starts after "
     "the previous renewal's reply (RenewalTask.java), not at a fixed rate"},
    {"redis-semaphore", "redis-semaphore 5.8 (npm, Mutex over ioredis; lib/ identical to tag v5.7.0's src/)", {ServiceKind::kRedis, ServiceKind::kRedlock},
     kRedisSemaphore,
     "onLockLost's default throws inside the refresh: an unhandled rejection that ends the Node process (live mode "
     "counts that worker as ended); any Redis error in a refresh ends it the same way"},
});

constexpr std::array kEveryServiceKind{ServiceKind::kRedis, ServiceKind::kRedisFailover, ServiceKind::kRedlock,
                                       ServiceKind::kConsensus};

// The file's service kind as far as a preset needs it: its name, or the
// default's. A name that is no kind is the parser's to refuse.
std::string service_kind_of(const nlohmann::json& document) {
  const std::string fallback = model::service_kind_name(model::ServiceOptions{}.kind);
  const auto service = document.find("service");
  if (service == document.end() || !service->is_object()) return fallback;
  const auto kind = service->find("kind");
  return kind != service->end() && kind->is_string() ? kind->get<std::string>() : fallback;
}

bool takes(ServiceKinds kinds, const std::string& name) {
  return std::ranges::any_of(kinds.kinds(), [&](ServiceKind kind) { return name == model::service_kind_name(kind); });
}

}  // namespace

std::vector<ServiceKind> ServiceKinds::kinds() const {
  std::vector<ServiceKind> kinds;
  for (const ServiceKind kind : kEveryServiceKind) {
    if (contains(kind)) kinds.push_back(kind);
  }
  return kinds;
}

std::string ServiceKinds::text() const {
  std::string text;
  for (const ServiceKind kind : kinds()) {
    text += fmt::format("{}\"{}\"", text.empty() ? "" : " or ", model::service_kind_name(kind));
  }
  return text;
}

std::span<const ClientPreset> client_presets() { return kPresets; }

const ClientPreset* find_client_preset(std::string_view name) {
  for (const ClientPreset& preset : kPresets) {
    if (preset.name == name) return &preset;
  }
  return nullptr;
}

std::string client_preset_names() {
  std::string names;
  for (const ClientPreset& preset : kPresets) names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", preset.name);
  return names;
}

std::string apply_client_preset(const ClientPreset& preset, nlohmann::json& document) {
  const std::string kind = service_kind_of(document);
  const nlohmann::json as_written = document;
  if (!takes(preset.services, kind)) {
    return fmt::format("{} locks with service kind {}, not \"{}\"", preset.name, preset.services.text(), kind);
  }
  for (const PresetSetting& setting : preset.settings) {
    if (!setting.services.empty() && !takes(setting.services, kind)) continue;
    if (!setting.follows.empty() && as_written.contains(nlohmann::json::json_pointer{std::string{setting.follows}})) continue;
    const nlohmann::json::json_pointer pointer{std::string{setting.pointer}};
    if (document.contains(pointer)) continue;  // the file says otherwise
    document[pointer] = nlohmann::json::parse(setting.value);
  }
  return "";
}

std::string client_presets_text() {
  std::string text;
  for (const ClientPreset& preset : kPresets) {
    text += fmt::format("\n\"{}\": {}; services: {}\n", preset.name, preset.library, preset.services.text());
    for (const PresetSetting& setting : preset.settings) {
      text += fmt::format("  {} = {}{}\n      {}\n", setting.pointer, setting.value,
                          setting.services.empty() ? "" : fmt::format(" (with {})", setting.services.text()), setting.source);
    }
    text += fmt::format("  not modelled: {}\n", preset.not_modelled);
  }
  return text;
}

std::string client_presets_markdown_table() {
  std::string table = "| preset | key | value | the library's source |\n|---|---|---|---|\n";
  for (const ClientPreset& preset : kPresets) {
    table += fmt::format("| `{}` | | | {}; services: {}; not modelled: {} |\n", preset.name, preset.library,
                         preset.services.text(), preset.not_modelled);
    for (const PresetSetting& setting : preset.settings) {
      table += fmt::format("| | `{}` | `{}`{} | {} |\n", setting.pointer, setting.value,
                           setting.services.empty() ? "" : fmt::format(" (with {})", setting.services.text()), setting.source);
    }
  }
  return table;
}

}  // namespace locksim::scenario
