#pragma once
// The simulation kernel's private side (included at the end of
// simulation.h): the slots and waiters it keeps its processes, timers and
// calls in, the small steps inlined into the event loop, and the bodies of
// Context's awaiters. A model author needs none of it: simulation.h is the
// API. Include simulation.h, never this file by itself.

#include <coroutine>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace locksim::sim {

struct Simulation::ProcessSlot {
  std::uint32_t generation = 0;
  bool alive = false;
  bool paused = false;
  NodeId node;
  std::string name;
  Task<>::Handle root;
  WaitKind waiting = WaitKind::kNone;
  NodeId waiting_on;             // for kCall: the callee
  std::vector<Event> deferred;  // held back while the process is paused
};

struct Simulation::TimerSlot {
  std::uint32_t generation = 0;
  bool active = false;
  TimerPurpose purpose = TimerPurpose::kSleep;
  ClockKind clock = ClockKind::kMonotonic;  // which of the node's clocks `deadline` is on
  NodeId node;
  ProcessId process;
  LocalTime deadline;
  std::coroutine_handle<> handle;
  std::uint64_t call_id = 0;  // kCallTimeout: which call
};

// A process suspended in receive() or receive_for(). Delivery writes the
// message's slot into the awaiter, which takes the message out of the slot
// when the process resumes: one move from the network to the process.
struct Simulation::ReceiveWaiter {
  ProcessId process;
  std::coroutine_handle<> handle;
  std::uint32_t* delivered_slot;
  std::uint32_t timer_slot = kNoSlot;
};

// One request awaiting its reply, as part of a CallGroup.
struct Simulation::PendingCall {
  std::uint64_t call_id = 0;
  std::uint64_t group_id = 0;
  NodeId target;
  std::optional<Message>* result;
};

// A process waiting in call() (one target) or call_all() (several).
struct Simulation::CallGroup {
  std::uint64_t group_id = 0;
  std::size_t unanswered = 0;
  ProcessId process;
  std::coroutine_handle<> handle;
  std::uint32_t timer_slot = kNoSlot;
};

struct Simulation::NodeState {
  NodeState(std::string node_name, NodeBoot node_boot, LocalClock wall_clock, Rng node_rng)
      : name{std::move(node_name)},
        boot{std::move(node_boot)},
        wall{wall_clock},
        monotonic{LocalTime{}, wall_clock.drift_ppb()},
        rng{node_rng} {}

  [[nodiscard]] const LocalClock& clock(ClockKind kind) const { return kind == ClockKind::kWall ? wall : monotonic; }

  std::string name;
  NodeBoot boot;
  LocalClock wall;
  LocalClock monotonic;
  Rng rng;
  bool up = true;
  bool paused = false;
  std::vector<std::uint32_t> processes;  // process slots, in spawn order
  std::vector<std::uint32_t> timers;     // active timer slots, in setting order
  FifoQueue<std::uint32_t> inbox;       // message slots, in arrival order
  std::vector<ReceiveWaiter> receive_waiters;
  std::vector<PendingCall> calls;
  std::vector<CallGroup> call_groups;
  std::vector<Event> deferred;  // held back while the node is paused
};

// One (from, to) connection a TCP partition cut: the messages sent on it
// since, in order, and its retransmission timer's state.
struct Simulation::HeldLink {
  std::uint64_t id = 0;  // the ticket of its retransmission events
  NodeId from;
  NodeId to;
  std::uint32_t connection = 0;
  Duration wait = TcpRetransmission::kFirstWait;
  [[nodiscard]] bool carries(const Message& message) const {
    return message.from == from && message.to == to && message.connection == connection;
  }
  int retransmissions = 0;
  std::vector<std::uint32_t> messages;  // message slots, oldest first
};

// Keeps `body` in a message slot: a message is written once into its slot
// and moved out once, when a process receives it.
inline std::uint32_t Simulation::park(Payload&& body) {
  std::uint32_t slot = 0;
  if (!free_message_slots_.empty()) {
    slot = free_message_slots_.back();
    free_message_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(messages_.size());
    messages_.emplace_back();
  }
  messages_[slot].body = std::move(body);
  return slot;
}

inline std::size_t Simulation::node_count() const { return nodes_.size(); }

inline Simulation::NodeState& Simulation::node_state(NodeId node) { return nodes_[node.index]; }
inline const Simulation::NodeState& Simulation::node_state(NodeId node) const { return nodes_[node.index]; }

inline Simulation::ProcessSlot* Simulation::live_process(ProcessId id) {
  if (id.slot >= processes_.size()) {
    return nullptr;
  }
  ProcessSlot& process = processes_[id.slot];
  return process.alive && process.generation == id.generation ? &process : nullptr;
}

inline bool Simulation::hold_back_if_paused(const Event& event, ProcessId process) {
  if (!nodes_[event.target].paused) {
    const ProcessSlot* slot = live_process(process);
    if (slot == nullptr || !slot->paused) {
      return false;
    }
  }
  hold_back(event, process);
  return true;
}

inline void Simulation::release_message(std::uint32_t slot) {
  messages_[slot].body.reset();
  free_message_slots_.push_back(slot);
}

// --- awaiters -------------------------------------------------------------------

class Context::SleepAwaiter {
 public:
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> handle) {
    context_.simulation_->add_timer(Simulation::TimerPurpose::kSleep, context_.simulation_->current_process(), clock_,
                                    deadline_, handle, 0, nullptr);
  }
  void await_resume() const noexcept {}

 private:
  friend class Context;
  SleepAwaiter(Context context, ClockKind clock, LocalTime deadline)
      : context_{context}, clock_{clock}, deadline_{deadline} {}
  Context context_;
  ClockKind clock_;
  LocalTime deadline_;
};

// The receive awaiters hold the slot of the message they were given, not the
// message: the message is moved once, from its slot into the process, and
// the awaiter stays plain data (see the call awaiters).
class Context::ReceiveAwaiter {
 public:
  bool await_ready() {
    message_slot_ = context_.simulation_->pop_inbox(context_.node_);
    return message_slot_ != Simulation::kNoSlot;
  }
  void await_suspend(std::coroutine_handle<> handle) {
    context_.simulation_->add_receive_waiter(context_.simulation_->current_process(), handle, &message_slot_);
  }
  Message await_resume() {
    LOCKSIM_ASSERT(message_slot_ != Simulation::kNoSlot, "receive() resumed without a message");
    return context_.simulation_->take_message(message_slot_);
  }

 private:
  friend class Context;
  explicit ReceiveAwaiter(Context context) : context_{context} {}
  Context context_;
  std::uint32_t message_slot_ = Simulation::kNoSlot;
};

class Context::ReceiveForAwaiter {
 public:
  bool await_ready() {
    message_slot_ = context_.simulation_->pop_inbox(context_.node_);
    return message_slot_ != Simulation::kNoSlot;
  }
  void await_suspend(std::coroutine_handle<> handle) {
    context_.simulation_->add_receive_waiter(context_.simulation_->current_process(), handle, &message_slot_, timeout_);
  }
  std::optional<Message> await_resume() {
    if (message_slot_ == Simulation::kNoSlot) {
      return std::nullopt;  // timed out
    }
    return context_.simulation_->take_message(message_slot_);
  }

 private:
  friend class Context;
  ReceiveForAwaiter(Context context, Duration timeout) : context_{context}, timeout_{timeout} {}
  Context context_;
  Duration timeout_;
  std::uint32_t message_slot_ = Simulation::kNoSlot;
};

// The call awaiters hold their request in a kernel slot (parked), not inline,
// so that an awaiter is plain data: copying one bitwise, as compilers with
// coroutine bugs have done (see task.h), cannot corrupt a payload.
class Context::CallAwaiter {
 public:
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> handle) {
    Simulation& simulation = *context_.simulation_;
    simulation.start_call_group(simulation.current_process(), std::span{&to_, 1}, parked_request_, timeout_, handle,
                                &result_);
  }
  std::optional<Message> await_resume() { return std::move(result_); }

 private:
  friend class Context;
  CallAwaiter(Context context, NodeId to, std::uint32_t parked_request, Duration timeout)
      : context_{context}, to_{to}, parked_request_{parked_request}, timeout_{timeout} {}
  Context context_;
  NodeId to_;
  std::uint32_t parked_request_;
  Duration timeout_;
  std::optional<Message> result_;
};

class Context::CallAllAwaiter {
 public:
  bool await_ready() {
    if (targets_.empty()) {
      context_.simulation_->release_message(parked_request_);
      return true;
    }
    return false;
  }
  void await_suspend(std::coroutine_handle<> handle) {
    Simulation& simulation = *context_.simulation_;
    results_.resize(targets_.size());
    simulation.start_call_group(simulation.current_process(), targets_, parked_request_, timeout_, handle,
                                results_.data());
  }
  std::vector<std::optional<Message>> await_resume() { return std::move(results_); }

 private:
  friend class Context;
  CallAllAwaiter(Context context, std::vector<NodeId> targets, std::uint32_t parked_request, Duration timeout)
      : context_{context}, targets_{std::move(targets)}, parked_request_{parked_request}, timeout_{timeout} {}
  Context context_;
  std::vector<NodeId> targets_;
  std::uint32_t parked_request_;
  Duration timeout_;
  std::vector<std::optional<Message>> results_;
};

}  // namespace locksim::sim
