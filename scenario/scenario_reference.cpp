#include "scenario/scenario_reference.h"

#include <algorithm>
#include <array>

#include <fmt/core.h>

#include "scenario/did_you_mean.h"
#include "scenario/expectation.h"
#include "scenario/fencing_modes.h"

namespace locksim::scenario {
namespace {

// Keep in step with scenario_parser.cpp (tests/scenarios/scenario_reference_test.cpp
// asks the parser for every key it accepts) and with the defaults in
// scenarios/scenario.h and model/options.h.
constexpr std::array kReference = std::to_array<KeyReference>({
    {"/format_version", "integer", "", "2", "1 to 2; a newer version is refused",
     "the format version the file was written for: 1 = before locksim 0.2.0, 2 = 0.2.0 (see CHANGELOG.md for what "
     "changed verdicts)"},
    {"/name", "string", "", "required", "not empty; at most 200 bytes", "the scenario's name in reports and replay commands"},
    {"/description", "string", "", "\"\"", "at most 4,000 bytes", "one sentence for people; shown by `locksim list`"},
    {"/duration", "duration", "time", "10m", "> 0; at most 8760h, like every duration",
     "virtual time limit of one run; a run also ends when every job is done"},
    {"/seeds", "integer", "runs", "100", "1 to 100,000,000", "how many seeds `run` uses when --seeds is not given (the same limit as --seeds)"},
    {"/first_seed", "integer", "", "1", "0 to 1,000,000,000,000,000,000",
     "the first seed `run` uses when --first-seed/--seed is not given; `replay` runs it when --seed is not given, "
     "but only when the file states it (else replay needs --seed; a saved plan records its seed here)"},
    {"/service", "object", "", "{\"kind\": \"redis\"}", "", "the lock service"},
    {"/service/kind", "\"redis\" | \"redis-failover\" | \"redlock\" | \"consensus\"", "", "\"redis\"", "",
     "redis: one instance, SET NX PX, Lua compare-and-delete, token from INCR; redis-failover: primary redis-0 + "
     "asynchronous replica redis-1, Sentinel-style promotion; redlock: N independent instances, majority quorum; "
     "consensus: etcd-like, an ensemble of `nodes` members electing a leader (or one node), session keep-alive, the "
     "revision is the token"},
    {"/service/instances", "integer", "instances", "5", "2 to 99; only with kind redlock",
     "how many Redlock instances (redis-0 … redis-(N-1))"},
    {"/service/persistence", "\"none\" | \"everysec\" | \"always\"", "", "\"none\"", "",
     "what a restarted Redis instance keeps: none: nothing; everysec: everything after a process crash (crash), what "
     "its last fsync kept after a power loss (power-loss): Redis 7.0 fsyncs at once a write that is the first of a "
     "new second of its wall clock, a later write of that second in the first event-loop turn of the next; "
     "always: everything"},
    {"/service/replication_lag", "distribution", "time", "100ms", "",
     "redis-failover: how long a write takes to reach the replica"},
    {"/service/drift_factor", "number", "fraction", "0.01", "0 to 1",
     "redlock: the client subtracts lease × drift_factor + 2 ms from the validity"},
    {"/service/recheck_elapsed", "boolean", "", "true", "",
     "redlock: the client re-checks the elapsed time after the replies arrive"},
    {"/service/delayed_restart", "duration", "time", "0", ">= 0",
     "redlock: a crashed instance refuses to start until this long after its crash"},
    {"/service/lock_delay", "duration", "time", "0", ">= 0",
     "consensus: no grant for this long after a holder's session failed"},
    {"/service/request_timeout", "duration or \"none\"", "time", "500ms", ">= 0",
     "a client's timeout for one request to the service or storage; \"none\": it waits for a reply as long as it "
     "takes (redis-py's and ioredis's default), so a request to a frozen server waits until the server wakes; the "
     "model waits for a crashed server as for a frozen one, where a real client's connection is reset at once (a "
     "warning says so when a server crashes)"},
    {"/service/down_after", "duration", "time", "30s", ">= 0; only with kind redis-failover",
     "Sentinel's down-after-milliseconds: it fails over a primary (crashed, powered off, paused, or cut off from the "
     "sentinel node) whose oldest unanswered ping is this old; the promotion then takes Sentinel's own steps (about 1.1 to 1.4 s)"},
    {"/service/min_replicas_to_write", "integer", "replicas", "0", "0 or 1; only with kind redis-failover",
     "the primary's min-replicas-to-write: it refuses write commands (NOREPLICAS) unless this many replicas were "
     "good at its last count (once a second: acknowledged within min_replicas_max_lag, in whole seconds); 0: off"},
    {"/service/min_replicas_max_lag", "duration", "time", "10s", ">= 1s; only with kind redis-failover",
     "min-replicas-max-lag: how old, in whole seconds of the primary's wall clock, a replica's last acknowledgement "
     "may be for it to count (a fraction of a second is dropped)"},
    {"/service/repl_diskless_sync_delay", "duration", "time", "5s", ">= 0; only with kind redis-failover",
     "repl-diskless-sync-delay: a primary asked for a full resync (by a restarted replica, the replica of a restarted "
     "primary, a converted old primary) sends its snapshot at its first once-a-second replicationCron tick this many "
     "whole seconds of its wall clock later (a fraction of a second is dropped); until then the replica keeps what it "
     "had and follows no stream"},
    {"/service/maxmemory_policy", "\"noeviction\" | \"volatile-ttl\" | \"volatile-lru\" | \"allkeys-lru\"", "",
     "\"noeviction\"", "Redis services only",
     "what a Redis instance evicts under memory-pressure: nothing; among keys with a TTL the nearest expiry; among "
     "keys with a TTL the least recently used; any key, least recently used"},
    {"/service/maxmemory_samples", "integer", "keys", "5", "1 to 64; Redis services only",
     "maxmemory-samples: how many keys each eviction samples into Redis's pool of 16 candidates (kept across "
     "evictions); the policy ranks only the keys a sample met, so with many other keys the lock key is met rarely"},
    {"/service/other_keys", "integer", "keys", "0", "0 to 1,000,000; Redis services only",
     "other applications' keys in each Redis instance, written before the run (so used before any lock key)"},
    {"/service/other_keys_ttl", "duration or \"none\"", "time", "\"none\"", "> 0; Redis services only",
     "the other keys' TTL from the run's start; \"none\": they never expire (volatile-* policies skip them)"},
    {"/service/etcd_3_4_3_lock_bug", "boolean", "", "false", "consensus only",
     "behave as etcd 3.4.3's lock service (Jepsen, 2020; hazard H15): a waiter whose session expired in the queue is "
     "told it holds the lock"},
    {"/service/nodes", "integer", "members", "3", "1 to 9; consensus only",
     "the ensemble's members, consensus-0 … consensus-(N-1), electing a leader as etcd 3.4's Raft does; 1: one "
     "node, `consensus`, standing for a whole ensemble (no elections). With more than 1, `consensus-leader` is a "
     "fault target (whoever leads when the fault strikes), `consensus` in a partition's side stands for every "
     "member, and lock.lease must be whole seconds, at least etcd's shortest lease (2 s with the default timings)"},
    {"/service/heartbeat", "duration", "time", "100ms", ">= 1ms; consensus with nodes > 1",
     "etcd's --heartbeat-interval: the Raft tick; the leader's heartbeat goes out every tick"},
    {"/service/election_timeout", "duration", "time", "1000ms", "5 heartbeats to under 50s; consensus with nodes > 1",
     "etcd's --election-timeout: a follower that hears no leader for it (randomized up to twice it, in whole "
     "heartbeats) campaigns; a new leader gives every session its TTL plus this"},
    {"/lock", "object", "", "{}", "", "the lock"},
    {"/lock/name", "string", "", "\"lock\"", "at most 200 bytes", "the lock's key"},
    {"/lock/lease", "duration or \"none\"", "time", "10s", "> 0; at most 8760h",
     "the lease (TTL) a grant carries; \"none\": no expiry (the stuck-lock hazard)"},
    {"/lock/stuck_after", "duration", "time", "10 × lease; 1m without a lease", ">= 0",
     "the stuck_lock check's threshold: a lease still valid this long after its owner stopped being a useful "
     "holder"},
    {"/workers", "object", "", "{}", "", "the workers worker-1 … worker-N and their client strategy"},
    {"/workers/count", "integer", "workers", "2", "1 to 1000", "how many workers"},
    {"/workers/acquire", "\"set-nx-px\" | \"get-then-set\"", "", "\"set-nx-px\"", "",
     "set-nx-px: one atomic SET NX PX; get-then-set: GET, then SET PX if empty (two round trips: the classic race)"},
    {"/workers/release", "\"compare-and-delete\" | \"plain-del\" | \"none\"", "", "\"compare-and-delete\"", "",
     "compare-and-delete: delete only if the value is still mine; plain-del: DEL whoever holds it; none: let it "
     "expire"},
    {"/workers/renew", "\"none\" | \"watchdog\"", "", "\"none\"", "",
     "watchdog: a separate process on the worker extends the lease every renew_every (Redisson-style)"},
    {"/workers/renew_every", "duration", "time", "lease / 3", "> 0",
     "the watchdog's period; a warning when it is not shorter than the lease"},
    {"/workers/renew_command", "\"compare-and-extend\" | \"pexpire\"", "", "\"compare-and-extend\"",
     "redis, redis-failover and redlock",
     "how a renewal extends the key: compare-and-extend (Lua: PEXPIRE only if the value is still mine, as "
     "Redisson and redsync do); pexpire: a plain PEXPIRE, which extends whoever holds the key and reports "
     "success (H13)"},
    {"/workers/sentinel_discovery", "\"switch-master\" | \"on-error\"", "", "\"switch-master\"", "with kind redis-failover",
     "how a Sentinel-aware client learns of a failover: switch-master follows Sentinel's +switch-master as announced "
     "(Jedis, Redisson); on-error asks Sentinel only when a request failed (no answer, READONLY, NOREPLICAS), so it "
     "keeps using a reachable old primary until it is demoted (redis-py's Sentinel)"},
    {"/workers/renew_on_error", "\"retry\" | \"stop\"", "", "\"retry\"", "with renew watchdog",
     "after a renewal that got no answer or an error answer: retry renews again at the next period, the holder none "
     "the wiser (Redisson 3.44 and later); stop ends the watchdog (Redisson before 3.44) and the holder counts its "
     "lease lost (Redisson did not tell it). A renewal that found the lock gone or someone else's always ends it"},
    {"/workers/renew_retries", "integer", "sends", "4", "0 to 100; with renew watchdog, redis and redis-failover",
     "how many times a renewal that got no answer within request_timeout is sent again before it counts as failed "
     "(then renew_on_error decides); Redisson re-sends such a command (retryAttempts: 4 since 3.48, 3 before); 0: "
     "never. An answer, even an error, is final; Redlock rounds and consensus keep-alives are not re-sent"},
    {"/workers/renew_retry_delay", "distribution", "time", "uniform 1s to 2s", "",
     "the wait before each re-send of a renewal (Redisson 3.48+: retryDelay EqualJitterDelay(1 s, 2 s), whose first "
     "wait is 0.5 to 1 s; before 3.48 a constant 1.5 s)"},
    {"/workers/check_before_write", "boolean", "", "false", "",
     "re-check the lease on the worker's lease clock (workers.clock) just before writing, and skip the write when it "
     "ran out or a renewal failed. It does not close the gap after the check (check_to_write): a pause there is not "
     "seen, and the write lands after the next holder's; only fencing stops that write (explore finds it: a pause "
     "at before-write)"},
    {"/workers/check_to_write", "distribution", "time", "lognormal median 40us, p99 100us", "with check_before_write",
     "the client's own steps from its look at the lease to its write leaving (building the request, handing it to "
     "the connection): a rate-driven pause lands in this gap as often as its length says. Default: locksim's live "
     "worker, measured (median 37 µs, p99 104 µs over 360 writes); an application with a pool or an ORM in that "
     "path takes longer"},
    {"/workers/clock", "\"monotonic\" | \"wall\"", "", "\"monotonic\"", "",
     "the clock a client times its lease on: monotonic (Go's time.Since, Java's nanoTime; never jumps) or wall "
     "(Date.now(), currentTimeMillis; a clock-jump moves it, hazard H3)"},
    {"/workers/retry", "distribution", "time", "uniform 50ms to 500ms", "", "the wait before retrying a failed acquire"},
    {"/workers/work", "distribution", "time", "uniform 100ms to 2s", "", "how long a holder works before writing"},
    {"/workers/between", "distribution", "time", "0", "",
     "idle time between one job's release and the next acquire"},
    {"/workers/start", "distribution", "time", "uniform 0s to 1s", "",
     "how long after t = 0 each worker begins its first job, one draw per worker from the seed's plan (the same "
     "in both fencing modes and live); the default makes the first holder a fair draw among the workers; \"0s\": "
     "all ask at t = 0 and, with a constant network delay, worker-1 is granted first"},
    {"/workers/wait_replicas", "object", "", "none", "only with service kind redis-failover",
     "after each grant the client sends WAIT replicas timeout; a grant fewer replicas acknowledged is given back "
     "(compare-and-delete) and the acquire fails with not-replicated"},
    {"/workers/wait_replicas/replicas", "integer", "replicas", "1", "1", "WAIT's numreplicas"},
    {"/workers/wait_replicas/timeout", "duration", "time", "1s", "> 0",
     "WAIT's timeout on the primary's clock (Redisson's slavesSyncTimeout default)"},
    {"/workers/acquire_timeout", "duration", "time", "none (never give up)", ">= 0",
     "give a job up when its acquire has not succeeded this long after its first attempt (Redisson tryLock's "
     "wait): acquire.give_up, a failed job counted in unfinished_jobs; checked between attempts"},
    {"/workers/max_tries", "integer", "attempts", "none (never give up)", "1 to 1,000,000",
     "give a job up after this many failed acquire attempts (redsync: 32): acquire.give_up, a failed job counted "
     "in unfinished_jobs"},
    {"/workers/client", "\"redis-py\" | \"redsync\" | \"node-redlock\" | \"redisson\" | \"redis-semaphore\"", "", "none", "",
     "a real lock library's defaults, from its source: sets its lease, retry waits and tries, request timeout, "
     "renewal and lease clock, for every one of those keys the file does not set (`locksim explain /workers/client` "
     "lists each value with its source; docs/models.md, \"Client presets\")"},
    {"/workers/command", "list of strings", "", "none (locksim's own worker)", "1 to 64 strings, each at most 4,096 bytes",
     "live mode only: run this program (and arguments, no shell; relative to the scenario's directory) as each "
     "worker instead of locksim's own (docs/live.md, \"Your own worker program\"); the simulator ignores it"},
    {"/workload", "object", "", "{\"kind\": \"counter\"}", "", "what the workers do with storage while holding"},
    {"/workload/kind", "\"counter\" | \"billing\" | \"write-only\"", "", "\"counter\"", "",
     "counter: each job reads key, works, writes read+1 (stale writes, lost updates); billing: a holder charges the "
     "next unbilled customer (duplicate effects); write-only: each job works and writes its number to the shared "
     "key, no read (stale writes: an older job's result over a newer one)"},
    {"/workload/key", "string", "", "\"qty\" (counter), \"billed\" (billing), \"result\" (write-only)", "at most 200 bytes",
     "the storage key: the counter, the billing cursor, or the published result"},
    {"/workload/jobs", "integer", "jobs per worker", "10", "1 to 1,000,000; counter and write-only",
     "how many jobs each worker does"},
    {"/workload/customers", "integer", "customers", "20", "1 to 1,000,000; billing only",
     "customers shared by all workers, each to be charged once"},
    {"/workload/charge", "\"storage\" | \"external\"", "", "\"storage\"", "billing only",
     "storage: the charge is one storage write that also moves the cursor (fencing can guard it); external: a call "
     "to the `payments` node, which takes no token, then a storage write of the cursor (charge, then mark done)"},
    {"/workload/idempotency_key", "\"job\" | \"attempt\"", "", "\"job\"", "billing only; with "
     "storage.idempotency_keys",
     "the key a charge carries: job: derived from the customer, so a redo repeats it; attempt: fresh per attempt"},
    {"/storage", "object", "", "{}", "", "the protected resource"},
    {"/storage/fencing", "\"off\" | \"on\" | \"compare\"", "", "\"off\"", "",
     "on: clients send their token and storage rejects one lower than the highest seen; compare: every seed runs "
     "both ways on the same plan"},
    {"/storage/fence_reads", "boolean", "", "false", "", "reads carry the token too (closes hazard H22's window)"},
    {"/storage/validate", "\"max-seen\" | \"service\"", "", "\"max-seen\"", "",
     "how a fenced write is judged: the highest token seen, or asking the lock service whether the token is current"},
    {"/storage/idempotency_keys", "boolean", "", "false", "",
     "storage (and the payments node) drops a repeated request_id (a retried write reuses its id)"},
    {"/network", "object", "", "{}", "", "every message between nodes"},
    {"/network/delay", "distribution", "time", "1ms", "", "one-way delay of each message"},
    {"/network/drop", "number", "probability", "0", "0 to 1", "chance a message is lost"},
    {"/network/duplicate", "number", "probability", "0", "0 to 1",
     "chance a message arrives twice (the copy has its own delay)"},
    {"/network/partitions", "\"tcp\" | \"drop\"", "", "\"tcp\"", "",
     "what a partition does to a message it cuts: tcp: the sender retransmits it (200 ms, then doubling) and it "
     "lands, in order, at the first retransmission after the heal; drop: it is lost"},
    {"/clocks", "object", "", "{}", "", "the nodes' own clocks"},
    {"/clocks/drift_ppm", "integer", "ppm", "0", "0 to 400,000",
     "each node draws a drift in ±drift_ppm from the seed"},
    {"/faults", "list of faults", "", "[]", "at most 1,000 entries", "what the nemesis does; each entry draws from its own stream"},
    {"/faults/N", "object", "", "", "exactly one trigger: at, when or rate",
     "one fault: kind, target, a trigger and the kind's parameters"},
    {"/faults/N/kind",
     "\"pause\" | \"crash\" | \"clock-jump\" | \"clock-drift\" | \"partition\" | \"failover\" | \"delay-spike\" | "
     "\"starve-renewal\" | \"power-loss\" | \"memory-pressure\"",
     "", "required", "failover needs service kind redis-failover; memory-pressure a Redis service",
     "pause (for): nothing the node does is processed; crash (restart_after): the process crashes, the machine "
     "stays up; power-loss (restart_after): the machine crashes, unsynced writes are lost; clock-jump (by): the wall "
     "clock is set, the monotonic clock is not; clock-drift (ppm): both clocks; partition (between, for); failover "
     "(primary, with_primary, for): the primary crashes or is cut off with its workers (split brain) and Sentinel fails "
     "over as for any unreachable primary; delay-spike (extra, "
     "for); starve-renewal (for): the worker's renewal process alone is frozen; memory-pressure (evict, for): a "
     "Redis primary evicts by its maxmemory_policy, and stays full for `for` if it could not free the room"},
    {"/faults/N/target", "string", "", "required but for partition and failover", "a node of this scenario, or a group",
     "a node name (worker-1, redis-0, sentinel, consensus, consensus-0, storage, payments), consensus-leader (an "
     "ensemble's leader when the fault strikes; with when: any member's event, since only the leader records the "
     "service's), or workers / service / any: one node of the group, drawn from the seed for each occurrence; on a "
     "partition or failover with when: whose event triggers it"},
    {"/faults/N/at", "duration", "true time", "", ">= 0", "trigger: fire at this true time"},
    {"/faults/N/when",
     "\"after-acquire\" | \"before-write\" | \"after-grant\" | \"before-reply\" | \"before-charge\"", "", "", "",
     "trigger: fire on the target's nth acquire.ok / write.invoke (the write not yet sent) / lease.grant / "
     "acquire.invoke / effect.invoke (billing's external charge not yet sent)"},
    {"/faults/N/nth", "integer", "events", "1", "1 to 1,000,000; only with when", "which matching event triggers it"},
    {"/faults/N/delay", "duration", "time", "0", ">= 0; only with when", "fire this long after the event"},
    {"/faults/N/rate", "string \"COUNT/UNIT\"", "per s, min or h", "",
     "at least 1/8760h; the rate faults of a file may plan at most 10,000 occurrences per run on average (rate × duration, added up)",
     "trigger: a Poisson process over the whole run at this rate IN TOTAL for the fault entry (not per target); each "
     "occurrence draws its own target when target is a group"},
    {"/faults/N/for", "distribution", "time", "required (memory-pressure: 0s)", "",
     "how long a pause, partition, delay-spike, starve-renewal or a split brain (failover with primary partition) "
     "lasts; for memory-pressure, how long an instance that could not free the room stays over maxmemory (acquires "
     "answer -OOM: acquire.fail reason out-of-memory); drawn per occurrence"},
    {"/faults/N/restart_after", "duration", "time", "never restart", ">= 0",
     "crash, power-loss: restart this long after the crash (empty, or what persistence kept)"},
    {"/faults/N/evict", "integer", "keys", "1", "1 to 1,000,000",
     "memory-pressure: how many keys' room the instance must free (the policy picks them; noeviction: none)"},
    {"/faults/N/by", "duration", "time", "required", "may be negative; at most 8760h either way",
     "clock-jump: how far the target's wall clock jumps"},
    {"/faults/N/ppm", "integer", "ppm", "required", "-400,000 to 400,000", "clock-drift: the target's new drift"},
    {"/faults/N/between", "two lists of node names", "", "required", "both lists non-empty",
     "partition: messages between the two sides are held until the first TCP retransmission after the heal, or "
     "lost (/network/partitions)"},
    {"/faults/N/between/N", "list of node names", "", "", "not empty", "one side of the partition"},
    {"/faults/N/between/N/N", "string", "", "", "a node of this scenario", "a node on that side"},
    {"/faults/N/extra", "duration", "time", "required", ">= 0", "delay-spike: extra delay on the target's messages"},
    {"/faults/N/primary", "\"crash\" | \"partition\"", "", "\"crash\"", "failover only",
     "failover: the old primary crashes, or stays up cut off from Sentinel, the replica and the other workers "
     "(split brain) until the partition heals, when Sentinel demotes it and what it accepted is lost"},
    {"/faults/N/with_primary", "list of worker names", "", "[\"worker-1\"]", "failover with primary partition",
     "the workers on the old primary's side: they keep acquiring there until it is demoted"},
    {"/swarm", "boolean", "", "false", "", "each seed enables a random non-empty subset of the faults"},
    {"/allow_inert", "boolean", "", "false", "", "a fault that fires in no run is intended (else the scenario fails)"},
    {"/probes_required", "list of probe names", "", "[]", "",
     "hazard probes that must be reached in every mode, else the scenario is inert"},
    {"/probes_required/N", "string", "", "", "at most 200 bytes", "a probe: pause_past_lease, late_op_at_storage, "
     "clock_jump_beyond_drift, failover_lost_lease, foreign_key_release"},
    {"/choices", "object", "", "none", "written by `locksim verify`",
     "a verify counterexample: the run is made by these choices, not by a seed; only `replay` takes such a file "
     "(docs/verify.md)"},
    {"/choices/anchors", "integer", "events", "2", "0 to 100", "the --anchors the run's domains were made under"},
    {"/choices/faults", "integer", "faults", "0", "0 to 4", "the --faults the run was made under"},
    {"/choices/domain", "\"standard\" | \"wide\"", "", "\"standard\"", "", "the --domain the run's domains were made under"},
    {"/choices/deviations", "list of deviations", "", "[]", "in the order of their positions",
     "the choice points that take a value other than their default; every other takes its default"},
    {"/choices/deviations/N", "object", "", "", "at, index and site, all required", "one deviation"},
    {"/choices/deviations/N/at", "integer", "", "", "0 to 1,000,000",
     "the choice point's position: the run meets its choice points in this order, from 0"},
    {"/choices/deviations/N/index", "integer", "", "", "1 to 1,000,000", "the value taken: its place in the point's domain"},
    {"/choices/deviations/N/site", "string", "", "", "at most 4,000 bytes",
     "the point's name, e.g. \"workers.work of worker-1, epoch 2\"; replay refuses a file whose run meets another "
     "point there (written by another model)"},
    {"/expect", "object", "", "{}", "", "what must hold; a failed expectation is exit 1"},
    {"/expect/MODE", "object", "", "", "MODE: fencing-off, fencing-on or any",
     "expectations for runs with fencing off, on, or every mode that runs"},
    {"/expect/MODE/MEASURE", "string", "",
     "stopped_short: \"==0\" (not implied where stuck_lock or unfinished_jobs is expected to happen, e.g. \">0\"); "
     "others: none",
     "\"==N\" \">N\" \"<N\" \">=N\" \"<=N\", or a share \"<=P%\" (0 to 100, at most four decimals)",
     "MEASURE is a violation kind (double_grant, double_holder, stale_write, foreign_release, stuck_lock, "
     "lost_update, duplicate_effect, token_order: its violations, e.g. overlapping pairs), incidents.KIND (that kind's "
     "incidents: e.g. one stretch of time with two holders, however many pairs) or a run outcome (stopped_short: "
     "runs; unfinished_jobs: jobs); N bounds the total over all seeds, P% the share of runs with at least one"},
    {"DISTRIBUTION", "duration or object", "time", "", "",
     "a constant duration, or {\"dist\": …} with the members below"},
    {"DISTRIBUTION/dist", "\"uniform\" | \"exponential\" | \"lognormal\" | \"pareto\"", "", "required in an object",
     "", "the shape: uniform (min, max), exponential (mean), lognormal (median, p99), pareto (min, alpha)"},
    {"DISTRIBUTION/min", "duration", "time", "required", "uniform: <= max; pareto: > 0",
     "uniform: the smallest value; pareto: the scale (the smallest value)"},
    {"DISTRIBUTION/max", "duration", "time", "required", ">= min", "uniform: the largest value"},
    {"DISTRIBUTION/mean", "duration", "time", "required", "> 0", "exponential: the mean"},
    {"DISTRIBUTION/median", "duration", "time", "required", "> 0", "lognormal: the median"},
    {"DISTRIBUTION/p99", "duration", "time", "required", ">= median", "lognormal: the 99th percentile"},
    {"DISTRIBUTION/alpha", "number", "", "required", "finite, > 0",
     "pareto: the tail index; P(X > x) = (min / x)^alpha"},
});

std::vector<std::string_view> segments(std::string_view pointer) {
  std::vector<std::string_view> parts;
  if (pointer.starts_with('/')) pointer.remove_prefix(1);
  while (true) {
    const std::size_t slash = pointer.find('/');
    parts.push_back(pointer.substr(0, slash));
    if (slash == std::string_view::npos) break;
    pointer.remove_prefix(slash + 1);
  }
  return parts;
}

bool is_index(std::string_view segment) {
  return !segment.empty() && std::all_of(segment.begin(), segment.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_mode(std::string_view segment) {
  return segment == "any" || fencing_from_mode_name(segment).has_value();
}

bool segment_matches(std::string_view pattern, std::string_view segment) {
  if (pattern == "N") return is_index(segment);
  if (pattern == "MODE") return is_mode(segment);
  if (pattern == "MEASURE") return measure_from_name(segment).has_value();
  return pattern == segment;
}

std::optional<KeyReference> entry_matching(std::string_view pointer) {
  const std::vector<std::string_view> wanted = segments(pointer);
  for (const KeyReference& entry : kReference) {
    if (entry.pattern.starts_with("DISTRIBUTION")) continue;
    const std::vector<std::string_view> pattern = segments(entry.pattern);
    if (pattern.size() != wanted.size()) continue;
    if (std::equal(pattern.begin(), pattern.end(), wanted.begin(), segment_matches)) return entry;
  }
  return std::nullopt;
}

std::optional<KeyReference> entry_for_pattern(std::string_view pattern) {
  for (const KeyReference& entry : kReference) {
    if (entry.pattern == pattern) return entry;
  }
  return std::nullopt;
}

// "|" inside a Markdown table cell must be escaped.
std::string cell(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace

std::span<const KeyReference> scenario_key_reference() { return kReference; }

std::optional<KeyReference> find_key_reference(std::string_view pointer) {
  if (!pointer.starts_with('/') || pointer.size() < 2) return std::nullopt;
  if (std::optional<KeyReference> entry = entry_matching(pointer)) return entry;
  // A member of a distribution: the parent is a distribution-typed key.
  const std::size_t slash = pointer.rfind('/');
  if (slash == 0) return std::nullopt;
  const std::optional<KeyReference> parent = entry_matching(pointer.substr(0, slash));
  if (!parent || parent->type != "distribution") return std::nullopt;
  return entry_for_pattern(fmt::format("DISTRIBUTION{}", pointer.substr(slash)));
}

std::vector<std::string> similar_key_patterns(std::string_view pointer) {
  // Compare with indices written as the pattern writes them.
  std::string normalised;
  for (const std::string_view segment : segments(pointer)) {
    normalised += '/';
    normalised += is_index(segment) ? std::string_view{"N"} : is_mode(segment) ? std::string_view{"MODE"} : segment;
  }
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const KeyReference& entry : kReference) {
    if (entry.pattern.starts_with("DISTRIBUTION")) continue;
    const std::size_t distance = edit_distance(normalised, entry.pattern);
    if (distance <= 3) scored.emplace_back(distance, std::string{entry.pattern});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& left, const auto& right) { return left.first < right.first; });
  std::vector<std::string> patterns;
  for (auto& [distance, pattern] : scored) patterns.push_back(std::move(pattern));
  return patterns;
}

std::string key_reference_text(std::string_view pointer, const KeyReference& entry) {
  std::string text = fmt::format("{}  ({})\n", pointer, entry.pattern);
  text += fmt::format("  type:     {}\n", entry.type);
  if (!entry.unit.empty()) text += fmt::format("  unit:     {}\n", entry.unit);
  if (!entry.default_value.empty()) text += fmt::format("  default:  {}\n", entry.default_value);
  if (!entry.limits.empty()) text += fmt::format("  limits:   {}\n", entry.limits);
  text += fmt::format("  meaning:  {}\n", entry.meaning);
  return text;
}

std::string key_reference_markdown_table() {
  std::string table = "| key | type | unit | default | limits | meaning |\n|---|---|---|---|---|---|\n";
  for (const KeyReference& entry : kReference) {
    table += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", entry.pattern, cell(entry.type), cell(entry.unit),
                         cell(entry.default_value), cell(entry.limits), cell(entry.meaning));
  }
  return table;
}

std::string fault_kind_markdown_table() {
  std::string table = "| kind | parameters | what happens |\n|---|---|---|\n";
  for (std::size_t kind = 0; kind < vocabulary::kFaultKindNames.size(); ++kind) {
    std::visit(
        [&table](const auto& params) {
          using Params = std::decay_t<decltype(params)>;
          table += fmt::format("| `{}` | {} | {} |\n", fault_kind_name(Params::kKind), Params::kRow.parameters,
                               Params::kRow.effect);
        },
        model::default_fault_params(static_cast<FaultKind>(kind)));
  }
  return table;
}

}  // namespace locksim::scenario
