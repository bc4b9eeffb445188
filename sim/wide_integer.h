#pragma once
// 128-bit integers for exact products of 64-bit values (random ranges, clock
// drift). GCC and Clang provide them; __extension__ keeps -Wpedantic quiet.

namespace locksim::sim {
__extension__ typedef unsigned __int128 UnsignedInt128;
__extension__ typedef __int128 SignedInt128;
}  // namespace locksim::sim
