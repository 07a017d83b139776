// Outputs as bit patterns, for the tests that promise bit-identical results (NaN payloads and the
// sign of zero included, which comparing values would not see).
#pragma once

#include "kattn/core/storage_types.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

namespace kattn::test {

inline std::uint32_t value_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
template <class Storage>
std::uint32_t value_bits(Storage value) {
  return value.bits;
}

inline std::vector<std::uint32_t> value_bits(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = value_bits(values[i]);
  return bits;
}

// A contiguous device view's elements as bit patterns (waits for the kernels writing it).
template <class View>
std::vector<std::uint32_t> output_bits(const View& out) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::vector<std::uint32_t> bits(host.span());
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = value_bits(host.data()[i]);
  return bits;
}

}  // namespace kattn::test
