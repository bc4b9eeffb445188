#pragma once
// The project's own randomness. The standard library's engines are portable
// but its distributions are not (libstdc++ and libc++ draw differently), so
// locksim draws everything through Rng and the distributions built on it.
//
// Rng is xoshiro256** (Blackman & Vigna), seeded through splitmix64. Streams
// are named: RandomStreams derives each stream from the root seed and the
// stream's name alone, so adding a worker (a new stream) never shifts the
// numbers another component (the fault plan, the network) draws.

#include <array>
#include <cstdint>
#include <string_view>

namespace locksim::sim {

// One step of splitmix64: a bijective 64-bit mixer, also the seeder.
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  // 64 uniformly random bits.
  std::uint64_t next_u64() {
    const std::uint64_t result = rotate_left(state_[1] * 5, 7) * 9;
    const std::uint64_t shifted = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= shifted;
    state_[3] = rotate_left(state_[3], 45);
    return result;
  }

  // Uniform in [0, bound) without modulo bias (Lemire's method). Requires bound > 0.
  std::uint64_t below(std::uint64_t bound);
  // Uniform in [min, max], both included. Requires min <= max.
  std::int64_t between(std::int64_t min, std::int64_t max);
  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // True with probability `probability` (clamped to [0, 1]).
  bool chance(double probability) { return unit() < probability; }

 private:
  static constexpr std::uint64_t rotate_left(std::uint64_t value, int bits) {
    return (value << bits) | (value >> (64 - bits));
  }
  std::array<std::uint64_t, 4> state_{};
};

// The root of a run's randomness: one seed, any number of named streams.
class RandomStreams {
 public:
  explicit RandomStreams(std::uint64_t root_seed) : root_seed_{root_seed} {}

  // The stream called `name`. Same root seed and name → same sequence; the
  // order in which streams are requested does not matter.
  [[nodiscard]] Rng stream(std::string_view name) const;

 private:
  std::uint64_t root_seed_;
};

}  // namespace locksim::sim
