#include "simulation.h"

#include <algorithm>
#include <utility>

#include <fmt/core.h>

#include "assert.h"

namespace locksim::sim {

// --- Context ----------------------------------------------------------------------

LocalTime Context::now() const { return simulation_->local_time(node_, ClockKind::kWall); }
LocalTime Context::monotonic_now() const { return simulation_->local_time(node_, ClockKind::kMonotonic); }
LocalTime Context::now(ClockKind clock) const { return simulation_->local_time(node_, clock); }
const std::string& Context::node_name() const { return simulation_->node_name(node_); }
Rng& Context::rng() const { return simulation_->node_state(node_).rng; }
Duration Context::draw(const Distribution& distribution, std::string_view what, bool lease_timed) const {
  if (Chooser* chooser = simulation_->chooser()) {
    const std::string& node = node_name();
    return chooser->choose_duration({what, node, lease_timed ? std::string_view{node} : std::string_view{}},
                                    distribution);
  }
  return distribution.sample(rng());
}

std::uint64_t Context::draw_below(std::uint64_t bound, std::string_view what) const {
  if (Chooser* chooser = simulation_->chooser()) return chooser->choose_below({what, node_name(), {}}, bound);
  return rng().below(bound);
}

bool Context::draw_chance(double probability, std::string_view what) const {
  if (Chooser* chooser = simulation_->chooser()) return chooser->choose_chance({what, node_name(), {}}, probability);
  return rng().chance(probability);
}

std::optional<NodeId> Context::find_node(std::string_view name) const { return simulation_->find_node(name); }

Context::SleepAwaiter Context::sleep(Duration length) const {
  return SleepAwaiter{*this, ClockKind::kMonotonic, monotonic_now() + length};
}
Context::SleepAwaiter Context::sleep_until(LocalTime deadline, ClockKind clock) const {
  return SleepAwaiter{*this, clock, deadline};
}
Context::ReceiveAwaiter Context::receive() const { return ReceiveAwaiter{*this}; }
Context::ReceiveForAwaiter Context::receive_for(Duration timeout) const { return ReceiveForAwaiter{*this, timeout}; }

Context::CallAwaiter Context::call(NodeId to, Payload request, Duration timeout) const {
  return CallAwaiter{*this, to, simulation_->park(std::move(request)), timeout};
}

Context::CallAllAwaiter Context::call_all(std::vector<NodeId> targets, Payload request, Duration timeout) const {
  return CallAllAwaiter{*this, std::move(targets), simulation_->park(std::move(request)), timeout};
}

void Context::send(NodeId to, Payload body) const {
  simulation_->send_message(node_, to, 0, MessageKind::kRequest, std::move(body));
}

void Context::reply(const Message& request, Payload body) const {
  simulation_->send_message(node_, request.from, request.call_id, MessageKind::kReply, std::move(body));
}

ProcessId Context::spawn(std::string name, Task<> task) const {
  return simulation_->spawn_process(node_, std::move(name), std::move(task));
}

void Context::record(EventKind event, std::initializer_list<Field> fields) const {
  simulation_->record(node_name(), event, fields);
}

void Context::record_fields(EventKind event, std::span<const Field> fields) const {
  simulation_->record_fields(node_name(), event, fields);
}

// --- building ---------------------------------------------------------------------

Simulation::Simulation(SimulationOptions options, HistorySink history_sink)
    : options_{std::move(options)},
      streams_{options_.seed},
      network_{options_.network, streams_.stream("network")},
      history_{std::move(history_sink)},
      time_limit_{Time{} + options_.time_limit} {
  if (options_.chooser != nullptr) {
    network_.choose_with(options_.chooser,
                         [this](NodeId from, NodeId to) { return node_name(from) + ">" + node_name(to); });
    options_.chooser->attach(*this);
  }
}

Simulation::~Simulation() {
  for (NodeState& node : nodes_) {
    for (std::uint32_t slot : node.processes) {
      processes_[slot].root.destroy();
    }
  }
}

NodeId Simulation::add_node(std::string name, NodeBoot boot, LocalClock clock) {
  LOCKSIM_ASSERT(!find_node(name).has_value(), "node names must be unique");
  const NodeId id{static_cast<std::uint32_t>(nodes_.size())};
  Rng rng = streams_.stream("node/" + name);
  nodes_.emplace_back(std::move(name), std::move(boot), clock, rng);
  network_.resize(nodes_.size());
  nodes_.back().boot(Context{this, id});
  return id;
}

ProcessId Simulation::spawn_process(NodeId node, std::string name, Task<> task) {
  std::uint32_t slot = 0;
  if (!free_process_slots_.empty()) {
    slot = free_process_slots_.back();
    free_process_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(processes_.size());
    processes_.emplace_back();
  }
  ProcessSlot& process = processes_[slot];
  process.alive = true;
  process.paused = false;
  process.node = node;
  process.name = std::move(name);
  process.root = task.release();
  process.root.promise().exit_hook = TaskExitHook{&Simulation::on_process_exit, this, slot};
  process.waiting = WaitKind::kNone;
  const ProcessId id{slot, process.generation};
  node_state(node).processes.push_back(slot);
  queue_.push(now_, static_cast<std::uint32_t>(QueuedKind::kStartProcess), node.index, process_ticket(id));
  return id;
}

void Simulation::schedule(Time at, std::function<void()> action) {
  LOCKSIM_ASSERT(at >= now_, "actions cannot be scheduled in the past");
  std::uint32_t slot = 0;
  if (!free_action_slots_.empty()) {
    slot = free_action_slots_.back();
    free_action_slots_.pop_back();
    actions_[slot] = std::move(action);
  } else {
    slot = static_cast<std::uint32_t>(actions_.size());
    actions_.push_back(std::move(action));
  }
  queue_.push(at, static_cast<std::uint32_t>(QueuedKind::kAction), 0, slot);
}

// --- running ----------------------------------------------------------------------

RunOutcome Simulation::run() {
  stop_requested_ = false;
  while (true) {
    if (stop_requested_) {
      return RunOutcome{StopReason::kStopped, now_, events_processed_, {}};
    }
    if (queue_.empty()) {
      return RunOutcome{StopReason::kQuiescent, now_, events_processed_, blocked_processes()};
    }
    if (queue_.next_time() > time_limit_) {
      now_ = std::max(now_, time_limit_);
      return RunOutcome{StopReason::kTimeLimit, now_, events_processed_, {}};
    }
    if (events_processed_ >= options_.event_limit) {
      return RunOutcome{StopReason::kEventLimit, now_, events_processed_, {}};
    }
    const Event event = queue_.pop();
    if (is_stale_timer(event)) {
      continue;  // released or re-timed: not an event of the run, and no reason to advance time
    }
    now_ = event.at;
    ++events_processed_;
    dispatch(event);
    if (!finished_processes_.empty()) {
      reap_finished_processes();
    }
    if (process_failure_) {
      std::rethrow_exception(std::exchange(process_failure_, nullptr));
    }
  }
}

void Simulation::dispatch(const Event& event) {
  switch (static_cast<QueuedKind>(event.kind)) {
    case QueuedKind::kStartProcess: {
      const ProcessId id = process_from_ticket(event.ticket);
      ProcessSlot* process = live_process(id);
      if (process != nullptr && !hold_back_if_paused(event, id)) {
        run_process(id, process->root);
      }
      return;
    }
    case QueuedKind::kTimer:
      fire_timer(event);
      return;
    case QueuedKind::kDeliver:
      if (!deliver(event)) {
        --messages_in_flight_;  // arrived or dropped; a held-back message is still on its way
      }
      return;
    case QueuedKind::kAction: {
      std::function<void()> action = std::move(actions_[event.ticket]);
      actions_[event.ticket] = nullptr;
      free_action_slots_.push_back(static_cast<std::uint32_t>(event.ticket));
      action();
      return;
    }
    case QueuedKind::kDrainInbox:
      if (!hold_back_if_paused(event, ProcessId{kNoSlot, 0})) {
        drain_inbox(NodeId{event.target});
      }
      return;
    case QueuedKind::kRetransmit:
      retransmit(event.ticket);
      return;
  }
  LOCKSIM_ASSERT(false, "unknown event kind");
}

void Simulation::hold_back(const Event& event, ProcessId process_id) {
  NodeState& node = nodes_[event.target];
  if (node.paused) {
    node.deferred.push_back(event);
    return;
  }
  ProcessSlot* process = live_process(process_id);
  LOCKSIM_ASSERT(process != nullptr && process->paused, "holding back an event nobody pauses");
  process->deferred.push_back(event);
}

void Simulation::run_process(ProcessId id, std::coroutine_handle<> handle) {
  processes_[id.slot].waiting = WaitKind::kNone;
  running_process_ = id;
  handle.resume();
  running_process_.reset();
}

void Simulation::on_process_exit(void* simulation, std::uint64_t slot) {
  static_cast<Simulation*>(simulation)->finished_processes_.push_back(static_cast<std::uint32_t>(slot));
}

void Simulation::reap_finished_processes() {
  for (std::uint32_t slot : finished_processes_) {
    ProcessSlot& process = processes_[slot];
    if (process.root.promise().exception && !process_failure_) {
      process_failure_ = process.root.promise().exception;
    }
    process.root.destroy();
    process.root = {};
    process.alive = false;
    ++process.generation;
    std::erase(node_state(process.node).processes, slot);
    free_process_slots_.push_back(slot);
  }
  finished_processes_.clear();
}

ProcessId Simulation::current_process() const {
  LOCKSIM_ASSERT(running_process_.has_value(), "awaiting outside of a simulated process");
  return *running_process_;
}


// --- timers -----------------------------------------------------------------------

std::uint64_t Simulation::timer_ticket(std::uint32_t slot, std::uint32_t generation) {
  return (std::uint64_t{generation} << 32) | slot;
}

std::uint64_t Simulation::process_ticket(ProcessId process) {
  return (std::uint64_t{process.generation} << 32) | process.slot;
}

ProcessId Simulation::process_from_ticket(std::uint64_t ticket) {
  return ProcessId{static_cast<std::uint32_t>(ticket), static_cast<std::uint32_t>(ticket >> 32)};
}

void Simulation::add_timer(TimerPurpose purpose, ProcessId process, ClockKind clock, LocalTime deadline,
                           std::coroutine_handle<> handle, std::uint64_t call_id, std::uint32_t* slot_out) {
  const NodeId node_id = processes_[process.slot].node;
  std::uint32_t slot = 0;
  if (!free_timer_slots_.empty()) {
    slot = free_timer_slots_.back();
    free_timer_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(timers_.size());
    timers_.emplace_back();
  }
  TimerSlot& timer = timers_[slot];
  timer.active = true;
  timer.purpose = purpose;
  timer.clock = clock;
  timer.node = node_id;
  timer.process = process;
  timer.deadline = deadline;
  timer.handle = handle;
  timer.call_id = call_id;
  NodeState& node = node_state(node_id);
  node.timers.push_back(slot);
  queue_.push(node.clock(clock).when_reads(deadline, now_), static_cast<std::uint32_t>(QueuedKind::kTimer),
              node_id.index, timer_ticket(slot, timer.generation));
  if (purpose == TimerPurpose::kSleep) {
    processes_[process.slot].waiting = WaitKind::kSleep;
  }
  if (slot_out != nullptr) {
    *slot_out = slot;
  }
}

void Simulation::release_timer(std::uint32_t slot) {
  TimerSlot& timer = timers_[slot];
  LOCKSIM_ASSERT(timer.active, "releasing an inactive timer");
  timer.active = false;
  ++timer.generation;
  timer.handle = {};
  std::vector<std::uint32_t>& node_timers = node_state(timer.node).timers;
  node_timers.erase(std::find(node_timers.begin(), node_timers.end(), slot));
  free_timer_slots_.push_back(slot);
}

bool Simulation::is_stale_timer(const Event& event) const {
  if (static_cast<QueuedKind>(event.kind) != QueuedKind::kTimer) {
    return false;
  }
  const TimerSlot& timer = timers_[static_cast<std::uint32_t>(event.ticket)];
  return !timer.active || timer.generation != static_cast<std::uint32_t>(event.ticket >> 32);
}

void Simulation::fire_timer(const Event& event) {
  const auto slot = static_cast<std::uint32_t>(event.ticket);
  TimerSlot& timer = timers_[slot];
  if (hold_back_if_paused(event, timer.process)) {
    return;
  }
  NodeState& node = node_state(timer.node);
  const ProcessId process = timer.process;
  const std::coroutine_handle<> handle = timer.handle;
  switch (timer.purpose) {
    case TimerPurpose::kSleep:
      break;
    case TimerPurpose::kReceiveTimeout:
      std::erase_if(node.receive_waiters, [slot](const ReceiveWaiter& waiter) { return waiter.timer_slot == slot; });
      break;
    case TimerPurpose::kCallTimeout: {
      // Replies still missing are dropped when they arrive; the caller sees
      // nothing for them, and gives their connections up.
      const std::uint64_t group_id = timer.call_id;
      for (const PendingCall& call : node.calls) {
        if (call.group_id == group_id) network_.reconnect(timer.node, call.target);
      }
      std::erase_if(node.calls, [group_id](const PendingCall& call) { return call.group_id == group_id; });
      std::erase_if(node.call_groups, [group_id](const CallGroup& group) { return group.group_id == group_id; });
      break;
    }
  }
  release_timer(slot);
  run_process(process, handle);
}

void Simulation::retime_timers(NodeId node_id, std::optional<ClockKind> clock) {
  NodeState& node = node_state(node_id);
  for (std::uint32_t slot : node.timers) {
    TimerSlot& timer = timers_[slot];
    if (clock && timer.clock != *clock) {
      continue;  // its clock did not change: its event stands, in its place in the queue
    }
    ++timer.generation;  // the event scheduled on the old clock is now stale
    queue_.push(node.clock(timer.clock).when_reads(timer.deadline, now_),
                static_cast<std::uint32_t>(QueuedKind::kTimer), node_id.index, timer_ticket(slot, timer.generation));
  }
}

// --- messages ---------------------------------------------------------------------

void Simulation::send_message(NodeId from, NodeId to, std::uint64_t call_id, MessageKind kind, Payload&& body) {
  send_parked(from, to, call_id, kind, park(std::move(body)));
}

void Simulation::send_parked(NodeId from, NodeId to, std::uint64_t call_id, MessageKind kind, std::uint32_t slot) {
  LOCKSIM_ASSERT(to.index < nodes_.size(), "message to an unknown node");
  auto address = [&](std::uint32_t message_slot) {
    Message& message = messages_[message_slot];
    message.from = from;
    message.to = to;
    message.call_id = call_id;
    message.kind = kind;
    message.connection = network_.connection(from, to);
  };
  address(slot);
  // Behind what a TCP partition holds on this connection, even once healed:
  // a stream delivers in order.
  if (!held_links_.empty() && is_held(messages_[slot])) [[unlikely]] {
    ++messages_in_flight_;
    hold_on_link(slot);
    return;
  }
  const Network::Route route = network_.route(from, to, now_);
  if (!route.arrival) {
    if (route.held) {
      ++messages_in_flight_;
      hold_on_link(slot);
    } else {
      release_message(slot);
    }
    return;
  }
  auto post = [&](std::uint32_t message_slot, Time arrival) {
    queue_.push(arrival, static_cast<std::uint32_t>(QueuedKind::kDeliver), to.index, message_slot);
    ++messages_in_flight_;
  };
  if (route.duplicate_arrival) {
    const std::uint32_t copy = park(Payload{messages_[slot].body});
    address(copy);
    post(copy, *route.duplicate_arrival);
  }
  post(slot, *route.arrival);
}

Message Simulation::take_message(std::uint32_t slot) {
  Message message = std::move(messages_[slot]);
  release_message(slot);
  return message;
}

// --- TCP under a partition ---------------------------------------------------------

bool Simulation::is_held(const Message& message) const {
  return std::any_of(held_links_.begin(), held_links_.end(),
                     [&](const HeldLink& link) { return link.carries(message); });
}

void Simulation::hold_on_link(std::uint32_t message_slot) {
  const Message& message = messages_[message_slot];
  const auto held = std::find_if(held_links_.begin(), held_links_.end(),
                                 [&](const HeldLink& link) { return link.carries(message); });
  if (held != held_links_.end()) {
    held->messages.push_back(message_slot);
    return;
  }
  // The first segment lost: the retransmission timer starts now.
  HeldLink link{.id = next_held_link_id_++,
                .from = message.from,
                .to = message.to,
                .connection = message.connection,
                .messages = {message_slot}};
  queue_.push(now_ + link.wait, static_cast<std::uint32_t>(QueuedKind::kRetransmit), link.to.index, link.id);
  held_links_.push_back(std::move(link));
}

bool Simulation::hold_or_drop(std::uint32_t message_slot) {
  const Message& message = messages_[message_slot];
  if (network_.is_cut(message.from, message.to) && network_.options().partition_effect == PartitionEffect::kDrop) {
    release_message(message_slot);
    return false;
  }
  hold_on_link(message_slot);
  return true;
}

void Simulation::retransmit(std::uint64_t link_id) {
  const auto held = std::find_if(held_links_.begin(), held_links_.end(),
                                 [link_id](const HeldLink& link) { return link.id == link_id; });
  if (held == held_links_.end()) {
    return;  // reset by a crash meanwhile
  }
  if (network_.is_cut(held->from, held->to)) {
    if (++held->retransmissions > TcpRetransmission::kRetransmissionsBeforeGivingUp) {
      for (std::uint32_t slot : held->messages) release_message(slot);
      messages_in_flight_ -= held->messages.size();
      held_links_.erase(held);
      return;
    }
    held->wait = std::min(held->wait * 2, TcpRetransmission::kLongestWait);
    queue_.push(now_ + held->wait, static_cast<std::uint32_t>(QueuedKind::kRetransmit), held->to.index, held->id);
    return;
  }
  // Healed: this retransmission gets through, and the rest of the stream with it.
  const HeldLink link = std::move(*held);
  held_links_.erase(held);
  for (std::uint32_t slot : link.messages) {
    queue_.push(now_, static_cast<std::uint32_t>(QueuedKind::kDeliver), link.to.index, slot);
  }
}

void Simulation::drop_held_links_of(NodeId node) {
  std::erase_if(held_links_, [&](const HeldLink& link) {
    if (link.from != node && link.to != node) return false;
    for (std::uint32_t slot : link.messages) release_message(slot);
    messages_in_flight_ -= link.messages.size();
    return true;
  });
}

bool Simulation::deliver(const Event& event) {
  const auto slot = static_cast<std::uint32_t>(event.ticket);
  const Message& message = messages_[slot];
  NodeState& node = nodes_[event.target];
  if (!node.up) {
    release_message(slot);  // the connection is reset
    return false;
  }
  if (network_.is_cut(message.from, message.to) || (!held_links_.empty() && is_held(message))) [[unlikely]] {
    return hold_or_drop(slot);
  }
  if (message.kind == MessageKind::kReply) {
    return deliver_reply(node, slot, event);
  }
  if (hold_back_if_paused(event, ProcessId{kNoSlot, 0})) {
    return true;
  }
  deliver_request(node, slot);
  return false;
}

bool Simulation::deliver_reply(NodeState& node, std::uint32_t message_slot, const Event& event) {
  const std::uint64_t call_id = messages_[message_slot].call_id;
  const auto call = std::find_if(node.calls.begin(), node.calls.end(),
                                 [call_id](const PendingCall& pending) { return pending.call_id == call_id; });
  if (call == node.calls.end()) {
    release_message(message_slot);  // the call timed out, was answered already (a duplicate), or its process is gone
    return false;
  }
  const std::uint64_t group_id = call->group_id;
  const auto group = std::find_if(node.call_groups.begin(), node.call_groups.end(),
                                  [group_id](const CallGroup& candidate) { return candidate.group_id == group_id; });
  LOCKSIM_ASSERT(group != node.call_groups.end(), "a pending call without its group");
  if (hold_back_if_paused(event, group->process)) {
    return true;
  }
  *call->result = std::move(messages_[message_slot]);
  release_message(message_slot);
  node.calls.erase(call);
  if (--group->unanswered > 0) {
    return false;
  }
  // Field by field, not a copy of the whole group: a 16-byte load of the
  // count just decremented cannot be forwarded from that 8-byte store, and
  // the stall was a tenth of a delivery's time.
  const ProcessId process = group->process;
  const std::coroutine_handle<> handle = group->handle;
  const std::uint32_t timer_slot = group->timer_slot;
  node.call_groups.erase(group);
  if (timer_slot != kNoSlot) {
    release_timer(timer_slot);
  }
  run_process(process, handle);
  return false;
}

void Simulation::deliver_request(NodeState& node, std::uint32_t message_slot) {
  node.inbox.push_back(message_slot);
  drain_inbox(NodeId{static_cast<std::uint32_t>(&node - nodes_.data())});
}

void Simulation::drain_inbox(NodeId node_id) {
  NodeState& node = node_state(node_id);
  while (!node.inbox.empty()) {
    const auto waiter = std::find_if(node.receive_waiters.begin(), node.receive_waiters.end(),
                                     [this](const ReceiveWaiter& w) { return !processes_[w.process.slot].paused; });
    if (waiter == node.receive_waiters.end()) {
      return;
    }
    const ReceiveWaiter receiver = *waiter;
    node.receive_waiters.erase(waiter);
    *receiver.delivered_slot = node.inbox.pop_front();
    if (receiver.timer_slot != kNoSlot) {
      release_timer(receiver.timer_slot);
    }
    run_process(receiver.process, receiver.handle);
  }
}

std::uint32_t Simulation::pop_inbox(NodeId node_id) {
  NodeState& node = node_state(node_id);
  return node.inbox.empty() ? kNoSlot : node.inbox.pop_front();
}

void Simulation::add_receive_waiter(ProcessId process, std::coroutine_handle<> handle, std::uint32_t* delivered_slot) {
  const NodeId node_id = processes_[process.slot].node;
  node_state(node_id).receive_waiters.push_back(ReceiveWaiter{process, handle, delivered_slot, kNoSlot});
  processes_[process.slot].waiting = WaitKind::kReceive;
}

void Simulation::add_receive_waiter(ProcessId process, std::coroutine_handle<> handle, std::uint32_t* delivered_slot,
                                    Duration timeout) {
  const NodeId node_id = processes_[process.slot].node;
  std::uint32_t timer_slot = kNoSlot;
  add_timer(TimerPurpose::kReceiveTimeout, process, ClockKind::kMonotonic,
            local_time(node_id, ClockKind::kMonotonic) + timeout, handle, 0, &timer_slot);
  node_state(node_id).receive_waiters.push_back(ReceiveWaiter{process, handle, delivered_slot, timer_slot});
  processes_[process.slot].waiting = WaitKind::kReceive;
}

void Simulation::start_call_group(ProcessId process, std::span<const NodeId> targets, std::uint32_t parked_request,
                                  Duration timeout, std::coroutine_handle<> handle, std::optional<Message>* results) {
  LOCKSIM_ASSERT(!targets.empty(), "a call needs at least one target");
  const NodeId node_id = processes_[process.slot].node;
  const std::uint64_t group_id = next_call_id_;
  std::uint32_t timer_slot = kNoSlot;
  if (timeout != Duration::max()) {
    add_timer(TimerPurpose::kCallTimeout, process, ClockKind::kMonotonic, local_time(node_id, ClockKind::kMonotonic) + timeout,
              handle, group_id, &timer_slot);
  }
  NodeState& node = node_state(node_id);
  // The timer's slot comes back in a local of its own, not written into a
  // local group through a pointer: the group was then copied into the vector
  // by wider loads that the CPU could not forward from that store, a stall
  // on every call.
  node.call_groups.push_back(CallGroup{group_id, targets.size(), process, handle, timer_slot});
  ProcessSlot& caller = processes_[process.slot];
  caller.waiting = WaitKind::kCall;
  caller.waiting_on = targets.front();
  for (std::size_t index = 0; index < targets.size(); ++index) {
    const std::uint64_t call_id = next_call_id_++;
    node.calls.push_back(PendingCall{call_id, group_id, targets[index], &results[index]});
    // The last target gets the parked request itself, the others a copy each.
    const bool last = index + 1 == targets.size();
    const std::uint32_t slot = last ? parked_request : park(Payload{messages_[parked_request].body});
    send_parked(node_id, targets[index], call_id, MessageKind::kRequest, slot);
  }
}

// --- faults -----------------------------------------------------------------------

void Simulation::pause(NodeId node) {
  LOCKSIM_ASSERT(node_state(node).up, "pausing a node that is down");
  node_state(node).paused = true;
}

void Simulation::resume(NodeId node) {
  NodeState& state = node_state(node);
  state.paused = false;
  reschedule_held_back(state.deferred);
}

void Simulation::reschedule_held_back(std::vector<Event>& held_back) {
  // New sequence numbers in the old order: the held-back work runs now, in
  // the order it would have run.
  for (const Event& event : held_back) {
    queue_.push(now_, event.kind, event.target, event.ticket);
  }
  held_back.clear();
}

void Simulation::pause_process(ProcessId process) {
  if (ProcessSlot* slot = live_process(process)) {
    slot->paused = true;
  }
}

void Simulation::resume_process(ProcessId process) {
  ProcessSlot* slot = live_process(process);
  if (slot == nullptr || !slot->paused) {
    return;
  }
  slot->paused = false;
  reschedule_held_back(slot->deferred);
  // Requests that queued up while this process was the only receiver.
  queue_.push(now_, static_cast<std::uint32_t>(QueuedKind::kDrainInbox), slot->node.index, 0);
}

void Simulation::crash(NodeId node_id) {
  LOCKSIM_ASSERT(!running_process_ || processes_[running_process_->slot].node != node_id,
                 "a node cannot crash itself from inside one of its processes");
  LOCKSIM_ASSERT(finished_processes_.empty(), "crash while finished processes await reaping");
  NodeState& node = node_state(node_id);
  if (!node.up) {
    return;
  }
  node.up = false;
  node.paused = false;
  drop_held_links_of(node_id);
  auto release_held_back_messages = [this](std::vector<Event>& held_back) {
    for (const Event& event : held_back) {
      if (static_cast<QueuedKind>(event.kind) == QueuedKind::kDeliver) {
        release_message(static_cast<std::uint32_t>(event.ticket));
        --messages_in_flight_;
      }
    }
    held_back.clear();
  };
  // Timers first: destroying a frame must not leave a timer pointing into it.
  while (!node.timers.empty()) {
    release_timer(node.timers.front());
  }
  node.receive_waiters.clear();
  node.calls.clear();
  node.call_groups.clear();
  for (std::uint32_t slot : node.inbox) {
    release_message(slot);
  }
  node.inbox.clear();
  release_held_back_messages(node.deferred);
  // Destroy the processes in spawn order: a fixed order for their destructors.
  for (std::uint32_t slot : node.processes) {
    ProcessSlot& process = processes_[slot];
    release_held_back_messages(process.deferred);
    process.alive = false;
    ++process.generation;
    process.root.destroy();
    process.root = {};
    free_process_slots_.push_back(slot);
  }
  node.processes.clear();
}

void Simulation::restart(NodeId node_id) {
  NodeState& node = node_state(node_id);
  LOCKSIM_ASSERT(!node.up, "restarting a node that is up");
  node.up = true;
  node.boot(Context{this, node_id});
}

void Simulation::jump_clock(NodeId node, Duration by) {
  // Only the wall clock is ever set; the monotonic clock never jumps.
  node_state(node).wall.jump(now_, by);
  retime_timers(node, ClockKind::kWall);
}

void Simulation::set_clock_drift(NodeId node, std::int64_t drift_ppb) {
  // One oscillator drives both clocks: a drift changes the rate of both.
  NodeState& state = node_state(node);
  state.wall.set_drift(now_, drift_ppb);
  state.monotonic.set_drift(now_, drift_ppb);
  retime_timers(node, std::nullopt);
}

// --- queries ----------------------------------------------------------------------

bool Simulation::is_up(NodeId node) const { return node_state(node).up; }
bool Simulation::is_paused(NodeId node) const { return node_state(node).paused; }
LocalTime Simulation::local_time(NodeId node) const { return local_time(node, ClockKind::kWall); }
LocalTime Simulation::local_time(NodeId node, ClockKind clock) const { return node_state(node).clock(clock).read(now_); }
const std::string& Simulation::node_name(NodeId node) const { return node_state(node).name; }

std::optional<NodeId> Simulation::find_node(std::string_view name) const {
  for (std::size_t index = 0; index < nodes_.size(); ++index) {
    if (nodes_[index].name == name) {
      return NodeId{static_cast<std::uint32_t>(index)};
    }
  }
  return std::nullopt;
}

std::optional<ProcessId> Simulation::find_process(NodeId node, std::string_view name) const {
  for (std::uint32_t slot : node_state(node).processes) {
    const ProcessSlot& process = processes_[slot];
    if (process.alive && process.name == name) {
      return ProcessId{slot, process.generation};
    }
  }
  return std::nullopt;
}

void Simulation::record_fields(std::string_view proc, EventKind event, std::span<const Field> fields) {
  history_.record(now_, proc, event, fields);
  for (const EventObserver& observer : observers_) {
    observer(proc, event, fields);
  }
}

std::vector<BlockedProcess> Simulation::blocked_processes() const {
  std::vector<BlockedProcess> blocked;
  for (const NodeState& node : nodes_) {
    for (std::uint32_t slot : node.processes) {
      const ProcessSlot& process = processes_[slot];
      std::string waiting_for;
      if (node.paused) {
        waiting_for = "its node to resume (paused)";
      } else if (process.paused) {
        waiting_for = "its process to resume (paused)";
      } else if (process.waiting == WaitKind::kReceive) {
        waiting_for = "a message";
      } else if (process.waiting == WaitKind::kCall) {
        waiting_for = fmt::format("a reply from {}", node_state(process.waiting_on).name);
      } else {
        waiting_for = "an event that was never scheduled";
      }
      blocked.push_back(BlockedProcess{node.name, process.name, std::move(waiting_for)});
    }
  }
  return blocked;
}

}  // namespace locksim::sim
