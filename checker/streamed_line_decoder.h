#pragma once
// StreamedLineDecoder: the history reader's fast path. It reads one line that
// simdjson's On-Demand document stream (`iterate_many`) has found, walking its
// fields once and reading each known field as the type the history format
// gives it, straight into an Event.
//
// It only ever accepts: a line it cannot vouch for — any JSON error, a field
// of an unexpected type, a `null`, a missing required field, a value it does
// not decode itself — is declined, and the reader parses that line again with
// its one-line DOM decoder, which either takes it or says exactly what is
// wrong and where. So every message still comes from one place, and a line is
// accepted here only if the DOM decoder would accept it and make the same
// Event (tests/checker/streamed_line_decoder_test.cpp holds the two side by side).
//
// On-Demand does not validate what it is not asked to read, so this walk asks
// for everything: unknown fields are read to their last byte (up to a depth;
// deeper values are declined), as the DOM parse would.

#include <string>
#include <vector>

#include <simdjson.h>

#include "checker/event.h"

namespace locksim::checker {

class StreamedLineDecoder {
 public:
  // Reads `line`, a document of the stream at its start. True when it holds
  // an object the DOM decoder would read as event(); false when it declined.
  // event()'s strings point into the stream's buffers: valid until the stream
  // moves to its next document.
  [[nodiscard]] bool decode(simdjson::ondemand::document_reference line);

  [[nodiscard]] const Event& event() const { return event_; }

 private:
  bool decode_field(EventField field, simdjson::ondemand::value& value);
  bool decode_token(simdjson::ondemand::value& value);
  bool decode_value(simdjson::ondemand::value& value);
  bool decode_service(simdjson::ondemand::value& value);
  bool decode_workload(simdjson::ondemand::value& value);
  bool decode_final(simdjson::ondemand::value& value);
  [[nodiscard]] bool has_required_fields();

  Event event_;
  std::vector<FinalValue> final_values_;
  // Text made for the event (numbers given as job / request_id / value).
  std::string job_text_;
  std::string request_id_text_;
  std::string value_text_;
  bool has_index_ = false;
  bool has_time_ = false;
  std::string_view event_name_;
};

}  // namespace locksim::checker
