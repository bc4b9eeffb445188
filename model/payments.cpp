#include "model/payments.h"

#include <vector>

#include "model/protocol.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"

namespace locksim::model {

using vocabulary::EventKind;
namespace field = vocabulary::field;
namespace reason = vocabulary::reason;

using sim::Context;

sim::NodeBoot Payments::boot() {
  return [this](Context context) { context.spawn("server", serve(context)); };
}

sim::Task<> Payments::serve(Context context) {
  while (true) {
    sim::Message request = co_await context.receive();
    const auto* charge = request.body.get_if<ChargeCommand>();
    if (charge == nullptr) continue;
    std::vector<sim::Field> fields{{field::kJob, charge->job}, {field::kWriter, charge->writer}};
    if (charge->request_id) fields.emplace_back(field::kRequestId, *charge->request_id);
    if (charge->token) fields.emplace_back(field::kToken, *charge->token);
    const bool repeat = idempotency_keys_ && charge->request_id && seen_request_ids_.contains(*charge->request_id);
    if (repeat) {
      fields.emplace_back(field::kReason, reason::kDuplicateRequest);
      context.record_fields(EventKind::kEffectReject, fields);
      context.reply(request, ChargeReply{true, true});
      continue;
    }
    if (idempotency_keys_ && charge->request_id) seen_request_ids_.insert(*charge->request_id);
    context.record_fields(EventKind::kEffectAccept, fields);
    context.reply(request, ChargeReply{true, false});
  }
}

}  // namespace locksim::model
