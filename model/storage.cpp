#include "model/storage.h"

#include <utility>

#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"

namespace locksim::model {

using vocabulary::EventKind;
namespace field = vocabulary::field;
namespace reason = vocabulary::reason;

using sim::Context;

Storage::Storage(StorageOptions options, std::string lock_name, sim::Duration request_timeout)
    : options_{options}, lock_name_{std::move(lock_name)}, request_timeout_{request_timeout} {}

sim::NodeBoot Storage::boot() {
  return [this](Context context) { context.spawn("server", serve(context)); };
}

sim::Task<> Storage::serve(Context context) {
  while (true) {
    sim::Message request = co_await context.receive();
    if (request.body.holds<ReadCommand>()) {
      co_await handle_read(context, std::move(request));
    } else if (request.body.holds<WriteCommand>()) {
      co_await handle_write(context, std::move(request));
    }
  }
}

sim::Task<> Storage::handle_read(Context context, sim::Message request) {
  const ReadCommand& command = request.body.get<ReadCommand>();
  const auto value = values_.find(command.key);
  ReadReply reply{true, value == values_.end() ? 0 : value->second, {}};
  // Every read that reaches storage is recorded: the checker orders holders'
  // reads against writes from storage's side, not from the readers' read.ok.
  std::vector<sim::Field> fields{{field::kKey, command.key}, {field::kReader, command.reader}};
  if (options_.fencing == Fencing::kOn && options_.fence_reads) {
    // Not a conditional expression: GCC 12 destroys a co_await's temporary
    // in one twice (a freed string), so the two cases are two statements.
    Verdict verdict;
    if (options_.mutation == StorageMutation::kReadsSkipCompare) {
      verdict = register_without_compare(command.key, command.token);
    } else {
      verdict = co_await check_token(context, command.key, command.token);
    }
    fields.emplace_back(field::kToken, command.token.value_or(0));
    if (!verdict.accepted) {
      fields.emplace_back(field::kReason, verdict.reason);
      context.record_fields(EventKind::kReadReject, fields);
      context.reply(request, ReadReply{false, 0, verdict.reason});
      co_return;
    }
  }
  context.record_fields(EventKind::kReadAccept, fields);
  context.reply(request, std::move(reply));
}

sim::Task<> Storage::handle_write(Context context, sim::Message request) {
  const WriteCommand& command = request.body.get<WriteCommand>();
  Verdict verdict;
  if (options_.idempotency_keys && command.request_id && seen_request_ids_.contains(*command.request_id)) {
    verdict = Verdict{false, reason::kDuplicateRequest};
  } else if (options_.fencing == Fencing::kOn) {
    verdict = co_await check_token(context, command.key, command.token);
  }
  // The history's write.accept / write.reject carry every identifying field present.
  const std::string& request_id = command.request_id.value_or(std::string{});
  std::vector<sim::Field> fields{
      {field::kKey, command.key}, {field::kValue, command.value}, {field::kWriter, command.writer}};
  if (command.token) fields.emplace_back(field::kToken, *command.token);
  if (command.request_id) fields.emplace_back(field::kRequestId, request_id);
  if (command.job) fields.emplace_back(field::kJob, *command.job);
  if (verdict.accepted) {
    values_[command.key] = command.value;
    if (options_.idempotency_keys && command.request_id) {
      seen_request_ids_.insert(*command.request_id);
    }
    context.record_fields(EventKind::kWriteAccept, fields);
  } else {
    fields.emplace_back(field::kReason, verdict.reason);
    context.record_fields(EventKind::kWriteReject, fields);
  }
  context.reply(request, WriteReply{verdict.accepted, verdict.reason});
}

sim::Task<Storage::Verdict> Storage::check_token(Context context, std::string key, std::optional<std::int64_t> token) {
  if (!token) {
    co_return Verdict{false, reason::kStaleToken};  // fencing is on and the client sent none
  }
  if (options_.validate == Validation::kService) {
    if (!co_await token_is_current(context, *token)) {
      co_return Verdict{false, reason::kNotCurrent};
    }
    co_return Verdict{};
  }
  std::int64_t& highest = highest_token_[key];
  if (*token < highest) {
    co_return Verdict{false, reason::kStaleToken};
  }
  highest = *token;
  co_return Verdict{};
}

Storage::Verdict Storage::register_without_compare(const std::string& key, std::optional<std::int64_t> token) {
  if (token) highest_token_[key] = *token;
  return Verdict{};
}

sim::Task<bool> Storage::token_is_current(Context context, std::int64_t token) {
  // Ask each validator in turn; one that does not answer in time counts as no.
  const std::vector<sim::NodeId> validators = current_validators_ ? current_validators_() : std::vector<sim::NodeId>{};
  for (const sim::NodeId validator : validators) {
    ValidateCommand question{lock_name_, token};
    ++validation_calls_;
    const std::optional<sim::Message> reply = co_await context.call(validator, std::move(question), request_timeout_);
    if (reply) {
      co_return reply->body.get<ValidateReply>().current;
    }
  }
  co_return false;
}

}  // namespace locksim::model
