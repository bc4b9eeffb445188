#pragma once
// Simulation: the single-threaded discrete-event kernel every model runs on.
//
// Nodes (workers, lock-service instances, storage) are added with a boot
// function that spawns their processes: C++20 coroutines (Task<>) that sleep
// on the node's own clocks, send and receive messages, and call other nodes
// with a timeout. Everything happens in virtual true time, in the order of
// the event queue: (time, sequence). Nothing reads the wall clock, and every
// random draw comes from a named stream of one root seed, so the same seed
// gives the same run, event for event.
//
// Faults act on nodes from outside (a nemesis action scheduled at a time, or
// a model reacting to an event):
// - pause: nothing the node would do runs and nothing it receives is
//   processed; on resume the held-back events run, in their original order,
//   at the resume time. Its clock keeps running.
// - crash: the node's processes are destroyed (in spawn order), its timers,
//   inbox and pending calls dropped; messages arriving while it is down are
//   lost. restart boots it again from its boot function.
// - clock jump: the node's wall clock is set forward or back; timers on the
//   wall clock are re-timed, timers on the monotonic clock are not.
// - clock drift: both of the node's clocks run at the new rate (one
//   oscillator drives both); every timer is re-timed.
//
// Each node has a wall clock and a monotonic clock (clock_kind.h). Sleeps,
// receive and call timeouts run on the monotonic clock, as real runtimes'
// sleeps and timeouts do; a model asks for a wall-clock timer explicitly
// (sleep_until with ClockKind::kWall) where the real system's timer is one.
// - process pause: one process alone is frozen (e.g. a starved renewal thread).
//
// Every run() is bounded by a true-time limit and an event limit; hitting one
// is a reported outcome, and so is running out of events while processes
// still wait (the outcome lists who waits for what).

#include <coroutine>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chooser.h"
#include "event_queue.h"
#include "fifo_queue.h"
#include "history_recorder.h"
#include "clock_kind.h"
#include "local_clock.h"
#include "message.h"
#include "network.h"
#include "random.h"
#include "task.h"
#include "time.h"

namespace locksim::sim {

class Simulation;
class Context;

struct SimulationOptions {
  std::uint64_t seed = 1;                            // root of every random stream; default 1
  Duration time_limit = Duration::minutes(60);       // run() stops at this true time; default 60 min
  std::uint64_t event_limit = 100'000'000;           // run() stops after this many events; default 1e8
  NetworkOptions network;                            // delays, loss, duplication; see network.h
  // Set: every draw site asks it instead of the random streams (sim/chooser.h).
  // Not owned; it must outlive the simulation.
  Chooser* chooser = nullptr;
};

// A process, as (slot, generation): a stale id never matches a reused slot.
struct ProcessId {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
  auto operator<=>(const ProcessId&) const = default;
};

// Runs when a node boots and at every restart; spawns the node's processes.
using NodeBoot = std::function<void(Context)>;

// Sees every history event right after it is recorded (event-triggered
// faults hook in here). It must not crash or pause the recording node
// directly — that node's process is running — but may schedule an action at
// the current time, which runs before the process's next step.
using EventObserver = std::function<void(std::string_view proc, EventKind event, std::span<const Field> fields)>;

enum class StopReason {
  kQuiescent,   // no events left (every process finished or waits forever)
  kTimeLimit,   // the next event lies beyond the time limit
  kEventLimit,  // the event limit was reached
  kStopped,     // a model or action called stop()
};

struct BlockedProcess {
  std::string node;
  std::string process;
  std::string waiting_for;  // e.g. "a message", "a reply from redis-0"
};

struct RunOutcome {
  StopReason reason = StopReason::kQuiescent;
  Time end;                             // true time when run() returned
  std::uint64_t events = 0;             // events processed by this simulation so far
  std::vector<BlockedProcess> blocked;  // with kQuiescent: processes that still wait
};

// What a process sees of the simulation: its node, its clock, the network.
// A small value: pass it to sub-tasks by value. The awaiters act for the
// process that awaits them, so one Context serves every process of its node.
class Context {
 public:
  // The node's own wall-clock reading (never true time: models decide by this).
  [[nodiscard]] LocalTime now() const;
  // The node's monotonic-clock reading: for measuring elapsed time.
  [[nodiscard]] LocalTime monotonic_now() const;
  // The reading of the node's clock `clock`.
  [[nodiscard]] LocalTime now(ClockKind clock) const;
  [[nodiscard]] NodeId node() const { return node_; }
  [[nodiscard]] const std::string& node_name() const;
  // The node's own random stream ("node/<name>"), e.g. for retry jitter.
  [[nodiscard]] Rng& rng() const;
  // A draw at one of the model's draw sites: from rng(), or from the
  // simulation's chooser when it has one (`locksim verify`). `what` names the
  // site; the subject is this node. `lease_timed`: the length races this
  // node's lease (or, off a worker, the holder's), so the lease left is a
  // critical value.
  [[nodiscard]] Duration draw(const Distribution& distribution, std::string_view what, bool lease_timed = false) const;
  [[nodiscard]] std::uint64_t draw_below(std::uint64_t bound, std::string_view what) const;
  [[nodiscard]] bool draw_chance(double probability, std::string_view what) const;
  [[nodiscard]] std::optional<NodeId> find_node(std::string_view name) const;

  // Resumes when the node's monotonic clock reads monotonic_now() + length
  // (at least one trip through the event loop, even for zero).
  class SleepAwaiter;
  [[nodiscard]] SleepAwaiter sleep(Duration length) const;
  // Resumes when the node's clock `clock` reads `deadline` (a wall-clock
  // deadline comes earlier or later when that clock is set).
  [[nodiscard]] SleepAwaiter sleep_until(LocalTime deadline, ClockKind clock) const;

  // The next request in the node's inbox, waiting as long as it takes.
  class ReceiveAwaiter;
  [[nodiscard]] ReceiveAwaiter receive() const;
  // The next request, or nothing if none arrives within `timeout` (monotonic clock).
  class ReceiveForAwaiter;
  [[nodiscard]] ReceiveForAwaiter receive_for(Duration timeout) const;

  // Sends `request` and waits for its reply; nothing if none arrives within
  // `timeout` (monotonic clock). A late reply is dropped.
  class CallAwaiter;
  [[nodiscard]] CallAwaiter call(NodeId to, Payload request, Duration timeout) const;
  // Sends `request` to every node of `targets` at once and waits until all
  // have replied or `timeout` passes; result i is target i's reply, if any.
  class CallAllAwaiter;
  [[nodiscard]] CallAllAwaiter call_all(std::vector<NodeId> targets, Payload request, Duration timeout) const;

  // Fire and forget.
  void send(NodeId to, Payload body) const;
  void reply(const Message& request, Payload body) const;

  // Starts another process on this node, from the event loop (not inline).
  ProcessId spawn(std::string name, Task<> task) const;

  // Appends a history event with proc = this node, t = true now.
  void record(EventKind event, std::initializer_list<Field> fields = {}) const;
  void record_fields(EventKind event, std::span<const Field> fields) const;

 private:
  friend class Simulation;
  Context(Simulation* simulation, NodeId node) : simulation_{simulation}, node_{node} {}

  Simulation* simulation_;
  NodeId node_;
};

class Simulation {
 public:
  explicit Simulation(SimulationOptions options, HistorySink history_sink = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // --- building ---------------------------------------------------------------
  // Adds a node that boots (at true time zero, or now if running) with `boot`.
  // Node names must be unique; NodeIds follow the order of add_node calls.
  // `clock` is its wall clock; its monotonic clock reads zero at true time
  // zero, with the same drift.
  NodeId add_node(std::string name, NodeBoot boot, LocalClock clock = LocalClock{});

  // --- running ----------------------------------------------------------------
  // Processes events until one of the StopReasons. May be called again to go on.
  RunOutcome run();
  void stop() { stop_requested_ = true; }
  void set_time_limit(Time limit) { time_limit_ = limit; }

  [[nodiscard]] Time now() const { return now_; }
  [[nodiscard]] std::uint64_t events_processed() const { return events_processed_; }
  // Messages sent and not yet delivered or dropped (held back by a pause included).
  [[nodiscard]] std::uint64_t messages_in_flight() const { return messages_in_flight_; }

  // Runs `action` at true time `at` (>= now). Actions are the nemesis: they
  // are not held back by pauses.
  void schedule(Time at, std::function<void()> action);

  // --- faults -----------------------------------------------------------------
  void pause(NodeId node);
  void resume(NodeId node);
  void crash(NodeId node);
  void restart(NodeId node);
  void jump_clock(NodeId node, Duration by);
  void set_clock_drift(NodeId node, std::int64_t drift_ppb);
  void pause_process(ProcessId process);
  void resume_process(ProcessId process);

  [[nodiscard]] bool is_up(NodeId node) const;
  [[nodiscard]] bool is_paused(NodeId node) const;
  // The node's wall-clock reading now; local_time(node, kind) either clock's.
  [[nodiscard]] LocalTime local_time(NodeId node) const;
  [[nodiscard]] LocalTime local_time(NodeId node, ClockKind clock) const;
  [[nodiscard]] const std::string& node_name(NodeId node) const;
  [[nodiscard]] std::optional<NodeId> find_node(std::string_view name) const;
  [[nodiscard]] std::size_t node_count() const;
  // The live process of `node` called `name`, if any.
  [[nodiscard]] std::optional<ProcessId> find_process(NodeId node, std::string_view name) const;

  // A handle to act for `node` from outside its processes (a fault handler
  // that spawns a process on it, say). It must not be awaited on directly.
  [[nodiscard]] Context context_of(NodeId node) { return Context{this, node}; }

  [[nodiscard]] Network& network() { return network_; }
  [[nodiscard]] const RandomStreams& random_streams() const { return streams_; }
  [[nodiscard]] Chooser* chooser() const { return options_.chooser; }

  // --- history ----------------------------------------------------------------
  // Appends an event for a proc that is not a node ("nemesis", "run").
  void record(std::string_view proc, EventKind event, std::initializer_list<Field> fields = {}) {
    record_fields(proc, event, std::span{fields.begin(), fields.size()});
  }
  void record_fields(std::string_view proc, EventKind event, std::span<const Field> fields);
  [[nodiscard]] const HistoryRecorder& history() const { return history_; }
  // Observers run in the order they were added.
  void observe(EventObserver observer) { observers_.push_back(std::move(observer)); }

 private:
  friend class Context;
  friend class Context::SleepAwaiter;
  friend class Context::ReceiveAwaiter;
  friend class Context::ReceiveForAwaiter;
  friend class Context::CallAwaiter;
  friend class Context::CallAllAwaiter;

  enum class QueuedKind : std::uint32_t { kStartProcess, kTimer, kDeliver, kAction, kDrainInbox, kRetransmit };
  enum class WaitKind : std::uint8_t { kNone, kSleep, kReceive, kCall };
  enum class TimerPurpose : std::uint8_t { kSleep, kReceiveTimeout, kCallTimeout };

  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

  // The kernel's bookkeeping, defined in simulation_internals.h.
  struct ProcessSlot;
  struct TimerSlot;
  struct ReceiveWaiter;
  struct PendingCall;
  struct CallGroup;
  struct NodeState;
  struct HeldLink;

  // Used by Context and its awaiters.
  void add_timer(TimerPurpose purpose, ProcessId process, ClockKind clock, LocalTime deadline,
                 std::coroutine_handle<> handle, std::uint64_t call_id, std::uint32_t* slot_out);
  // Two overloads rather than one with a std::optional<Duration>: the caller
  // builds an optional by a one-byte store and the callee reads it back by
  // a wider load, which the CPU cannot forward; that stall was a third of
  // what echoing a request cost.
  void add_receive_waiter(ProcessId process, std::coroutine_handle<> handle, std::uint32_t* delivered_slot);
  void add_receive_waiter(ProcessId process, std::coroutine_handle<> handle, std::uint32_t* delivered_slot,
                          Duration timeout);
  // The slot of the oldest message in the node's inbox, taken out of it; kNoSlot if the inbox is empty.
  std::uint32_t pop_inbox(NodeId node);
  // Keeps `body` in a message slot. (park, release_message, live_process and
  // hold_back_if_paused are defined inline in simulation_internals.h: each
  // runs once or more per event.)
  std::uint32_t park(Payload&& body);
  // The message in `slot`, moved out; the slot is free again.
  Message take_message(std::uint32_t slot);
  // Sends the parked `request` (for several targets, a copy each) and waits.
  // Requires results[0..targets.size()) to stay valid until the process resumes.
  void start_call_group(ProcessId process, std::span<const NodeId> targets, std::uint32_t parked_request,
                        Duration timeout, std::coroutine_handle<> handle, std::optional<Message>* results);
  // The functions declared `inline` here are the steps of one event: each is
  // called only from simulation.cpp, where it is defined, and `inline` lets
  // the compiler fold it into its caller (at -O2 GCC inlines little else),
  // which saves a call, a prologue and an epilogue per step.
  inline void send_message(NodeId from, NodeId to, std::uint64_t call_id, MessageKind kind, Payload&& body);
  // Addresses the message parked in `slot` and puts it on the network (or frees the slot if it is lost).
  inline void send_parked(NodeId from, NodeId to, std::uint64_t call_id, MessageKind kind, std::uint32_t slot);
  ProcessId spawn_process(NodeId node, std::string name, Task<> task);
  NodeState& node_state(NodeId node);
  const NodeState& node_state(NodeId node) const;
  ProcessSlot* live_process(ProcessId id);
  // The process being resumed right now. Requires one (awaiters only suspend inside a process).
  ProcessId current_process() const;

  // The event loop.
  inline void dispatch(const Event& event);
  // Returns true iff the event was held back: its node (event.target) or
  // `process` (kNoSlot: none) is paused.
  bool hold_back_if_paused(const Event& event, ProcessId process);
  // Keeps the event until its node or process resumes.
  void hold_back(const Event& event, ProcessId process);
  inline bool is_stale_timer(const Event& event) const;
  void fire_timer(const Event& event);
  // Both return true iff the message was held back by a pause (still on its way).
  inline bool deliver(const Event& event);
  inline bool deliver_reply(NodeState& node, std::uint32_t message_slot, const Event& event);
  inline void deliver_request(NodeState& node, std::uint32_t message_slot);
  inline void drain_inbox(NodeId node);
  // TCP under a partition: the message (addressed, counted in flight) waits
  // on its link, behind what the link already holds.
  void hold_on_link(std::uint32_t message_slot);
  // A message arriving on a cut or held link: held (returns true), or lost
  // (false) if the partition drops.
  bool hold_or_drop(std::uint32_t message_slot);
  [[nodiscard]] bool is_held(const Message& message) const;
  // A held link's retransmission: delivers what it holds if the partition
  // healed, else waits twice as long (or gives the connection up).
  void retransmit(std::uint64_t link_id);
  // A crash resets the node's connections: what they hold is lost.
  void drop_held_links_of(NodeId node);
  inline void run_process(ProcessId process, std::coroutine_handle<> handle);
  void reap_finished_processes();
  // Re-times the node's timers on `clock` (both clocks: nullopt).
  void retime_timers(NodeId node, std::optional<ClockKind> clock);
  void release_timer(std::uint32_t slot);
  void release_message(std::uint32_t slot);
  void reschedule_held_back(std::vector<Event>& held_back);
  std::vector<BlockedProcess> blocked_processes() const;
  static void on_process_exit(void* simulation, std::uint64_t slot);
  static std::uint64_t timer_ticket(std::uint32_t slot, std::uint32_t generation);
  static std::uint64_t process_ticket(ProcessId process);
  static ProcessId process_from_ticket(std::uint64_t ticket);

  SimulationOptions options_;
  RandomStreams streams_;
  Network network_;
  HistoryRecorder history_;
  EventQueue queue_;
  Time now_;
  Time time_limit_;
  std::uint64_t events_processed_ = 0;
  std::uint64_t next_call_id_ = 1;
  std::uint64_t messages_in_flight_ = 0;
  bool stop_requested_ = false;
  std::optional<ProcessId> running_process_;

  std::vector<NodeState> nodes_;
  std::vector<HeldLink> held_links_;  // few at a time, searched in order
  std::uint64_t next_held_link_id_ = 1;
  std::vector<ProcessSlot> processes_;
  std::vector<std::uint32_t> free_process_slots_;
  std::vector<std::uint32_t> finished_processes_;
  std::vector<TimerSlot> timers_;
  std::vector<std::uint32_t> free_timer_slots_;
  std::vector<Message> messages_;
  std::vector<std::uint32_t> free_message_slots_;
  std::vector<std::function<void()>> actions_;
  std::vector<std::uint32_t> free_action_slots_;
  std::exception_ptr process_failure_;
  std::vector<EventObserver> observers_;
};

}  // namespace locksim::sim

// The private state's types, the inline steps and the awaiters' bodies.
#include "sim/simulation_internals.h"
