// The watchdog's rules after a renewal fails (model/client_rules.h), which
// the simulated and the live worker share: what is re-sent, and what ends it.
#include "model/client_rules.h"

#include <gtest/gtest.h>

#include "vocabulary/reason.h"

namespace locksim::model {
namespace {

namespace why = vocabulary::reason;

TEST(ClientRules, OnlyARedisClientReSendsARenewalAndOnlyOneThatGotNoAnswer) {
  for (const ServiceKind redis : {ServiceKind::kRedis, ServiceKind::kRedisFailover}) {
    EXPECT_TRUE(resends_renewal_after(redis, why::kTimeout));
    for (const char* answered : {why::kNotOwner, why::kNotHeld, why::kReadOnly, why::kNoReplicas}) {
      EXPECT_FALSE(resends_renewal_after(redis, answered)) << answered << ": an answer is final";
    }
  }
  EXPECT_FALSE(resends_renewal_after(ServiceKind::kRedlock, why::kTimeout)) << "redsync's Extend is one round";
  EXPECT_FALSE(resends_renewal_after(ServiceKind::kConsensus, why::kTimeout)) << "a keep-alive is not re-sent";
}

TEST(ClientRules, AFoundGoneLockEndsTheWatchdogAndOtherFailuresOnlyWithStop) {
  WorkerOptions retry;
  WorkerOptions stop;
  stop.renew_on_error = RenewOnError::kStop;
  for (const char* gone : {why::kNotOwner, why::kNotHeld, why::kSessionExpired, why::kNoQuorum}) {
    EXPECT_FALSE(renews_again_after(retry, gone)) << gone;
    EXPECT_FALSE(renews_again_after(stop, gone)) << gone;
  }
  for (const char* unanswered : {why::kTimeout, why::kReadOnly, why::kNoReplicas}) {
    EXPECT_TRUE(renews_again_after(retry, unanswered)) << unanswered;
    EXPECT_FALSE(renews_again_after(stop, unanswered)) << unanswered;
  }
}

}  // namespace
}  // namespace locksim::model
