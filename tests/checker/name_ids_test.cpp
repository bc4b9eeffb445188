#include "checker/name_ids.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checker/by_id.h"

namespace locksim::checker {
namespace {

// Names of every length around the 8-byte steps of the hash and compare,
// differing only in one byte (the last, the first, or one past a word), or
// holding a NUL: each gets its own id, and gets it back.
TEST(NameIds, GivesEachNameItsOwnIdAndTheNameBack) {
  std::vector<std::string> names;
  for (std::size_t length = 1; length <= 20; ++length) {
    std::string name(length, 'w');
    names.push_back(name);
    std::string last = name;
    last.back() = 'x';
    names.push_back(last);
    std::string first = name;
    first.front() = 'y';
    names.push_back(first);
    if (length > 1) {
      std::string with_nul = name;
      with_nul[length / 2] = '\0';
      names.push_back(with_nul);
    }
  }
  names.emplace_back("worker-1");
  names.emplace_back("worker-10");
  NameIds ids;
  for (std::size_t index = 0; index < names.size(); ++index) {
    EXPECT_EQ(ids.intern(names[index]), static_cast<NameId>(index)) << "dense, in first-seen order";
  }
  for (std::size_t index = 0; index < names.size(); ++index) {
    EXPECT_EQ(ids.intern(names[index]), static_cast<NameId>(index)) << "the same id again";
    EXPECT_EQ(ids.name(static_cast<NameId>(index)), names[index]);
  }
  EXPECT_EQ(ids.intern("worker-2"), static_cast<NameId>(names.size()));
}

TEST(NameIds, AnEmptyFieldHasNoId) {
  NameIds ids;
  EXPECT_EQ(ids.intern(""), kNoName);
  EXPECT_EQ(ids.name(kNoName), "");
  EXPECT_EQ(ids.intern("orders"), NameId{0});
}

TEST(NameIds, SortsIdsByNameNotByWhenTheyWereSeen) {
  NameIds ids;
  const NameId worker_2 = ids.intern("worker-2");
  const NameId orders = ids.intern("orders");
  const NameId worker_10 = ids.intern("worker-10");
  std::vector<NameId> sorted{worker_2, orders, worker_10};
  ids.sort_by_name(sorted);
  EXPECT_EQ(sorted, (std::vector<NameId>{orders, worker_10, worker_2}));
}

TEST(ById, FindsOnlyTheIdsStoredAndMakesADefaultValueOnce) {
  ById<int> values;
  EXPECT_EQ(values.find(3), nullptr);
  EXPECT_EQ(values.find(kNoName), nullptr);
  values[3] += 2;
  values[3] += 3;
  ASSERT_NE(values.find(3), nullptr);
  EXPECT_EQ(*values.find(3), 5);
  EXPECT_EQ(values.find(0), nullptr) << "a lower id is not stored by storing a higher one";
  EXPECT_EQ(values.find(4), nullptr);
}

TEST(ById, WalksItsIdsInNameOrder) {
  NameIds ids;
  const NameId worker_2 = ids.intern("worker-2");
  const NameId unused = ids.intern("unused");
  const NameId orders = ids.intern("orders");
  ById<int> values;
  values[worker_2] = 1;
  values[orders] = 2;
  EXPECT_EQ(values.ids_in_name_order(ids), (std::vector<NameId>{orders, worker_2}));
  EXPECT_EQ(values.find(unused), nullptr);
}

}  // namespace
}  // namespace locksim::checker
