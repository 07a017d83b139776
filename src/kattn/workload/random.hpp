// Random values from the raw output of std::mt19937_64: the standard distributions are not
// specified bit-for-bit across standard libraries, these are, so a seed gives the same problems
// and traces everywhere (integrations/torch/scenario_shapes.py reproduces them in Python).
#pragma once

#include <cstdint>
#include <random>

namespace kattn {

// [0, 1)
inline double unit_random(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

// An integer in [low, high].
inline int uniform_int(std::mt19937_64& rng, int low, int high) {
  return low + int(rng() % std::uint64_t(high - low + 1));
}

}  // namespace kattn
