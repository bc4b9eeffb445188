#include "sim/payload.h"

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>

namespace locksim::sim {
namespace {

struct Token {  // trivially copyable and small: copied as bytes
  int number = 0;
  bool granted = false;
};

struct Block {  // trivially copyable, larger than the small-value copy
  std::array<std::uint64_t, 12> words{};
};

struct Named {  // not trivially copyable: copied and destroyed through its manager
  std::string name;
  static inline int destroyed = 0;
  explicit Named(std::string value) : name{std::move(value)} {}
  Named(const Named&) = default;
  Named(Named&&) noexcept = default;
  ~Named() { ++destroyed; }
};

static_assert(std::is_trivially_copyable_v<Token> && std::is_trivially_copyable_v<Block>);
static_assert(!std::is_trivially_copyable_v<Named>);

TEST(Payload, ASmallTrivialValueSurvivesCopyAndMove) {
  Payload original{Token{7, true}};
  const Payload copy{original};
  Payload moved{std::move(original)};
  EXPECT_TRUE(original.empty());  // NOLINT(bugprone-use-after-move): a move empties the source
  ASSERT_TRUE(copy.holds<Token>());
  ASSERT_TRUE(moved.holds<Token>());
  EXPECT_EQ(copy.get<Token>().number, 7);
  EXPECT_TRUE(moved.get<Token>().granted);
}

TEST(Payload, ALargerTrivialValueIsCopiedWhole) {
  Block block;
  for (std::size_t index = 0; index < block.words.size(); ++index) {
    block.words[index] = 1000 + index;
  }
  Payload original{block};
  Payload copy;
  copy = original;
  Payload moved;
  moved = std::move(copy);
  ASSERT_TRUE(moved.holds<Block>());
  EXPECT_EQ(moved.get<Block>().words, block.words);
  EXPECT_EQ(original.get<Block>().words, block.words);
}

TEST(Payload, ANonTrivialValueIsCopiedAndDestroyedThroughItsType) {
  Named::destroyed = 0;
  {
    Payload original{Named{std::string(100, 'x')}};  // long enough to live on the heap
    const int after_construction = Named::destroyed;  // the temporary
    Payload copy{original};
    Payload moved{std::move(original)};
    EXPECT_EQ(Named::destroyed, after_construction + 1);  // the moved-from value
    EXPECT_EQ(copy.get<Named>().name, std::string(100, 'x'));
    EXPECT_EQ(moved.get<Named>().name, std::string(100, 'x'));
    moved = Payload{Token{1, false}};  // replacing a value destroys it
    EXPECT_EQ(Named::destroyed, after_construction + 2);
    EXPECT_TRUE(moved.holds<Token>());
  }
  EXPECT_EQ(Named::destroyed, 4);  // the temporary, the moved-from, the replaced, the copy
}

}  // namespace
}  // namespace locksim::sim
