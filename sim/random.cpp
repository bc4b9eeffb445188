#include "random.h"

#include "assert.h"
#include "wide_integer.h"

namespace locksim::sim {
namespace {

// FNV-1a: a stable hash of the stream name (std::hash is not stable across
// standard libraries, and this value decides every number a stream draws).
std::uint64_t stable_name_hash(std::string_view name) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (unsigned char c : name) {
    hash = (hash ^ c) * 0x100000001B3ULL;
  }
  return hash;
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::uint64_t& word : state_) {
    word = splitmix64(state);
  }
}

std::uint64_t Rng::below(std::uint64_t bound) {
  LOCKSIM_ASSERT(bound > 0, "Rng::below needs a positive bound");
  UnsignedInt128 product = static_cast<UnsignedInt128>(next_u64()) * bound;
  auto low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    const std::uint64_t threshold = -bound % bound;
    while (low < threshold) {
      product = static_cast<UnsignedInt128>(next_u64()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

std::int64_t Rng::between(std::int64_t min, std::int64_t max) {
  LOCKSIM_ASSERT(min <= max, "Rng::between needs min <= max");
  const std::uint64_t span = static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min);
  if (span == ~std::uint64_t{0}) {
    return static_cast<std::int64_t>(next_u64());
  }
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(min) + below(span + 1));
}

Rng RandomStreams::stream(std::string_view name) const {
  // Mix the root seed first so that seeds 1, 2, 3 do not give streams whose
  // seeds differ in a single low bit.
  std::uint64_t state = root_seed_;
  const std::uint64_t mixed_root = splitmix64(state);
  return Rng{mixed_root ^ stable_name_hash(name)};
}

}  // namespace locksim::sim
