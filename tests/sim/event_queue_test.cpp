#include "sim/event_queue.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace locksim::sim {
namespace {

TEST(EventQueue, PopsTheEarliestEventFirst) {
  EventQueue queue;
  queue.push(Time::from_ns(30), 0, 0, 3);
  queue.push(Time::from_ns(10), 0, 0, 1);
  queue.push(Time::from_ns(20), 0, 0, 2);
  EXPECT_EQ(queue.pop().ticket, 1u);
  EXPECT_EQ(queue.pop().ticket, 2u);
  EXPECT_EQ(queue.pop().ticket, 3u);
  EXPECT_TRUE(queue.empty());
}

TEST(EventQueue, SameTimeEventsRunInScheduleOrder) {
  EventQueue queue;
  for (std::uint64_t ticket = 0; ticket < 100; ++ticket) {
    queue.push(Time::from_ns(5), 0, 0, ticket);
  }
  for (std::uint64_t ticket = 0; ticket < 100; ++ticket) {
    EXPECT_EQ(queue.pop().ticket, ticket);
  }
}

RC_GTEST_PROP(EventQueue, PopsInTimeThenScheduleOrder, (std::vector<std::uint8_t> times)) {
  EventQueue queue;
  for (std::size_t index = 0; index < times.size(); ++index) {
    queue.push(Time::from_ns(times[index]), 0, 0, index);
  }
  Event previous{};
  bool first = true;
  while (!queue.empty()) {
    const Event event = queue.pop();
    RC_ASSERT(Time::from_ns(times[event.ticket]) == event.at);
    if (!first) {
      RC_ASSERT((previous.at < event.at) || (previous.at == event.at && previous.sequence < event.sequence));
    }
    previous = event;
    first = false;
  }
}

}  // namespace
}  // namespace locksim::sim
