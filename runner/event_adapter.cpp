#include "runner/event_adapter.h"

#include <iterator>
#include <variant>

namespace locksim::runner {
namespace {

using checker::EventField;

const std::string_view* as_text(const sim::Field& field) { return std::get_if<std::string_view>(&field.value); }
const std::int64_t* as_integer(const sim::Field& field) { return std::get_if<std::int64_t>(&field.value); }

// A duration the reader accepts: an integer, 0 ≤ ns ≤ kLongestTimeNs (others
// go the text way, where the reader says what is wrong).
bool adapt_duration(const sim::Field& field, std::optional<std::int64_t>& out) {
  const std::int64_t* number = as_integer(field);
  if (number == nullptr || *number < 0 || *number > checker::kLongestTimeNs) return false;
  out = *number;
  return true;
}

// `job` / `request_id`: text as is, an integer as its decimal text.
bool adapt_name(const sim::Field& field, std::string_view& out, fmt::memory_buffer& storage) {
  if (const std::string_view* text = as_text(field)) {
    out = *text;
    return true;
  }
  if (const std::int64_t* number = as_integer(field)) {
    storage.clear();
    fmt::format_to(std::back_inserter(storage), "{}", *number);
    out = std::string_view{storage.data(), storage.size()};
    return true;
  }
  return false;
}

// The text path's reader, kept warm across the runs of a thread. It holds
// no state from one line to the next that could reach a verdict: read()
// starts each line afresh.
checker::LineReader& line_reader() {
  thread_local checker::LineReader reader;
  return reader;
}

bool adapt_text(const sim::Field& field, std::string_view& out) {
  const std::string_view* text = as_text(field);
  if (text != nullptr) out = *text;
  return text != nullptr;
}

}  // namespace

std::optional<std::string> EventAdapter::adapt(std::uint64_t index, sim::Time time, std::string_view proc,
                                               sim::EventKind event, std::span<const sim::Field> fields) {
  event_ = checker::Event{};
  current_ = &event_;
  event_.index = static_cast<std::int64_t>(index);
  event_.time_ns = time.ns();
  event_.process = proc;
  const FieldsAdapted fields_adapted = adapt_fields(fields);
  if (fields_adapted == FieldsAdapted::kOwnFieldGiven) {
    // The key would be on the line twice, and the reader would take the
    // second: the recorder's contract is that it writes those four itself.
    return fmt::format("a record may not carry field `{}`: the recorder writes it for every line", own_field_);
  }
  const bool mapped = !proc.empty() && time.ns() <= checker::kLongestTimeNs && fields_adapted == FieldsAdapted::kMapped;
  if (!mapped) {
    if (auto problem = adapt_through_text(index, time, proc, event, fields)) return problem;
  } else {
    event_.kind = event;
    if (auto problem = checker::missing_required_field(event_)) return problem;
  }
  ++summary_.events;
  summary_.has_run_begin = summary_.has_run_begin || current_->kind == checker::EventKind::kRunBegin;
  summary_.has_run_end = summary_.has_run_end || current_->kind == checker::EventKind::kRunEnd;
  return std::nullopt;
}

EventAdapter::FieldsAdapted EventAdapter::adapt_fields(std::span<const sim::Field> fields) {
  FieldsAdapted result = FieldsAdapted::kMapped;
  for (const sim::Field& field : fields) {
    bool mapped = true;
    switch (checker::event_field_from_name(field.key)) {
      case EventField::kLock: mapped = adapt_text(field, event_.lock); break;
      case EventField::kOwner: mapped = adapt_text(field, event_.owner); break;
      case EventField::kBy: mapped = adapt_text(field, event_.by); break;
      case EventField::kReason: mapped = adapt_text(field, event_.reason); break;
      case EventField::kKey: mapped = adapt_text(field, event_.key); break;
      case EventField::kWriter: mapped = adapt_text(field, event_.writer); break;
      case EventField::kReader: mapped = adapt_text(field, event_.reader); break;
      case EventField::kJob: mapped = adapt_name(field, event_.job, job_text_); break;
      case EventField::kRequestId: mapped = adapt_name(field, event_.request_id, request_id_text_); break;
      case EventField::kToken:
        if (const std::int64_t* number = as_integer(field)) {
          event_.token = *number;
        } else {
          const std::string_view* text = as_text(field);
          mapped = text != nullptr && !text->empty();  // "" is bad input: the reader says why
          if (mapped) event_.token_text = *text;
        }
        break;
      case EventField::kLeaseNs: mapped = adapt_duration(field, event_.lease_ns); break;
      case EventField::kStuckAfterNs: mapped = adapt_duration(field, event_.stuck_after_ns); break;
      case EventField::kValue:
        if (const std::int64_t* number = as_integer(field)) {
          event_.value_integer = *number;
          value_text_ = fmt::format("{}", *number);
        } else if (const std::string_view* text = as_text(field)) {
          value_text_ = checker::json_string_literal(*text);
        } else if (const bool* flag = std::get_if<bool>(&field.value)) {
          value_text_ = *flag ? "true" : "false";
        } else {
          mapped = false;  // raw JSON: the reader's minified form comes from the text path
        }
        event_.value_json = value_text_;
        break;
      case EventField::kUnknown: break;  // the reader ignores unknown fields too
      // Nested objects: the reader's decoder reads them from the text.
      case EventField::kService:
      case EventField::kWorkload:
      case EventField::kFinal: mapped = false; break;
      // The line's own fields.
      case EventField::kIndex:
      case EventField::kTime:
      case EventField::kProcess:
      case EventField::kEvent: own_field_ = field.key; return FieldsAdapted::kOwnFieldGiven;
    }
    if (!mapped) result = FieldsAdapted::kThroughText;
  }
  return result;
}

std::optional<std::string> EventAdapter::adapt_through_text(std::uint64_t index, sim::Time time, std::string_view proc,
                                                            sim::EventKind event, std::span<const sim::Field> fields) {
  line_.clear();
  sim::format_history_line(line_, index, time, proc, event, fields);
  checker::LineReader& reader = line_reader();
  if (auto problem = reader.read(std::string_view{line_.data(), line_.size()})) return problem;
  current_ = &reader.event();
  return std::nullopt;
}

}  // namespace locksim::runner
