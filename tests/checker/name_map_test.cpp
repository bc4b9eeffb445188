#include "checker/name_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace locksim::checker {
namespace {

// Names of every length around the 8-byte steps of the hash and compare,
// differing only in one byte (the last, the first, or one past a word), or
// holding a NUL: each finds exactly its own value.
TEST(NameMap, FindsEachNameAndNoOther) {
  std::vector<std::string> names;
  for (std::size_t length = 0; length <= 20; ++length) {
    std::string name(length, 'w');
    names.push_back(name);
    if (length > 0) {
      std::string last = name;
      last.back() = 'x';
      names.push_back(last);
      std::string first = name;
      first.front() = 'y';
      names.push_back(first);
      std::string with_nul = name;
      with_nul[length / 2] = '\0';
      names.push_back(with_nul);
    }
  }
  names.emplace_back("worker-1");
  names.emplace_back("worker-10");
  NameMap<int> map;
  for (std::size_t index = 0; index < names.size(); ++index) {
    map[names[index]] = static_cast<int>(index);
  }
  for (std::size_t index = 0; index < names.size(); ++index) {
    const int* found = map.find(names[index]);
    ASSERT_NE(found, nullptr) << index;
    EXPECT_EQ(*found, static_cast<int>(index)) << index;
  }
  EXPECT_EQ(map.find("worker-2"), nullptr);
  EXPECT_EQ(map.find(std::string(21, 'w')), nullptr);
}

TEST(NameMap, OperatorBracketMakesADefaultValueOnce) {
  NameMap<int> map;
  EXPECT_EQ(map.find("orders"), nullptr);
  map["orders"] += 2;
  map["orders"] += 3;
  ASSERT_NE(map.find("orders"), nullptr);
  EXPECT_EQ(*map.find("orders"), 5);
}

}  // namespace
}  // namespace locksim::checker
