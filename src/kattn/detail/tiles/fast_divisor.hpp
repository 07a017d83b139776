// Division of non-negative ints by a divisor fixed at run time, as a multiply-high and a shift
// (Granlund & Montgomery, "Division by invariant integers using multiplication", 1994): the
// staging primitives turn every key into a cache block and slot, and a hardware-less integer
// division costs a GPU about twenty instructions.
//
// Contract: divisor in [1, 2^30], numerator in [0, 2^31). Construction costs one 64-bit division
// (once per team or per call); div() and divmod() are exact for every numerator in range.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kattn {

struct FastDivisor {
  int divisor = 1;
  std::uint32_t multiplier = 1;  // floor(2^32 (2^shift - divisor) / divisor) + 1
  int shift = 0;                 // ceil(log2(divisor))

  FastDivisor() = default;
  // Implicit: a FastDivisor stands wherever a plain divisor was given.
  KOKKOS_INLINE_FUNCTION FastDivisor(int d) : divisor(d) {
    while ((1 << shift) < d) ++shift;
    multiplier = std::uint32_t(
        ((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - std::uint64_t(d))) / std::uint64_t(d) + 1);
  }

  KOKKOS_INLINE_FUNCTION int div(int n) const {
#if defined(__CUDA_ARCH__)
    const std::uint32_t high = __umulhi(std::uint32_t(n), multiplier);
#else
    const auto high = std::uint32_t((std::uint64_t(std::uint32_t(n)) * multiplier) >> 32);
#endif
    return int((high + std::uint32_t(n)) >> shift);
  }
  KOKKOS_INLINE_FUNCTION int divmod(int n, int& remainder) const {
    const int quotient = div(n);
    remainder = n - quotient * divisor;
    return quotient;
  }
};

}  // namespace kattn
