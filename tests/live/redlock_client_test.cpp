// The live Redlock client's arithmetic, as model/redlock_client.h has it:
// validity = ttl − elapsed − (drift_factor · ttl + 2 ms), the elapsed time
// left out without the re-check (H14), and a per-request timeout of
// min(request_timeout, ttl / 10).
#include <gtest/gtest.h>

#include "live/redlock_client.h"

namespace locksim::live {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

RedlockTiming timing(bool subtract_elapsed) {
  RedlockTiming result;
  result.ttl = milliseconds{500};
  result.drift_factor = 0.01;
  result.subtract_elapsed = subtract_elapsed;
  result.request_timeout = milliseconds{25};
  return result;
}

TEST(LiveRedlockClient, ValidityIsTheTtlLessTheElapsedTimeAndTheDriftAllowance) {
  asio::io_context io;
  const RedlockClient client{io.get_executor(), timing(true)};
  EXPECT_EQ(client.validity_after(milliseconds{10}), milliseconds{500 - 10 - 5 - 2});
  EXPECT_LT(client.validity_after(milliseconds{600}), nanoseconds::zero()) << "a round longer than the TTL has none left";
}

TEST(LiveRedlockClient, WithoutTheRecheckTheElapsedTimeIsForgotten) {
  asio::io_context io;
  const RedlockClient client{io.get_executor(), timing(false)};
  EXPECT_EQ(client.validity_after(milliseconds{600}), milliseconds{500 - 5 - 2});
}

TEST(LiveRedlockClient, EachRequestWaitsAtMostATenthOfTheTtl) {
  asio::io_context io;
  RedlockTiming long_timeout = timing(true);
  long_timeout.request_timeout = milliseconds{500};
  EXPECT_EQ(RedlockClient(io.get_executor(), long_timeout).per_request_timeout(), milliseconds{50});
  EXPECT_EQ(RedlockClient(io.get_executor(), timing(true)).per_request_timeout(), milliseconds{25});
  RedlockTiming no_expiry = timing(true);
  no_expiry.ttl.reset();
  EXPECT_EQ(RedlockClient(io.get_executor(), no_expiry).validity_after(milliseconds{600}), nanoseconds::max());
}

}  // namespace
}  // namespace locksim::live
