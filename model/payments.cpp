#include "model/payments.h"

#include <vector>

#include "model/protocol.h"

namespace locksim::model {

using sim::Context;

sim::NodeBoot Payments::boot() {
  return [this](Context context) { context.spawn("server", serve(context)); };
}

sim::Task<> Payments::serve(Context context) {
  while (true) {
    sim::Message request = co_await context.receive();
    const auto* charge = request.body.get_if<ChargeCommand>();
    if (charge == nullptr) continue;
    std::vector<sim::Field> fields{{"job", charge->job}, {"writer", charge->writer}};
    if (charge->request_id) fields.emplace_back("request_id", *charge->request_id);
    if (charge->token) fields.emplace_back("token", *charge->token);
    const bool repeat = idempotency_keys_ && charge->request_id && seen_request_ids_.contains(*charge->request_id);
    if (repeat) {
      fields.emplace_back("reason", "duplicate-request");
      context.record_fields("effect.reject", fields);
      context.reply(request, ChargeReply{true, true});
      continue;
    }
    if (idempotency_keys_ && charge->request_id) seen_request_ids_.insert(*charge->request_id);
    charged_jobs_.insert(charge->job);
    context.record_fields("effect.accept", fields);
    context.reply(request, ChargeReply{true, false});
  }
}

}  // namespace locksim::model
