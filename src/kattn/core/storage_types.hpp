// 16-bit storage types with exact host/device conversion. Kokkos 3.4's half_t is a float on the
// host, so kattn carries its own bit-exact types; arithmetic always happens in fp32.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

namespace kattn {

struct fp16_t {
  std::uint16_t bits;
};
struct bf16_t {
  std::uint16_t bits;
};
// OCP FP8 E4M3 ("e4m3fn"): bias 7, 3 mantissa bits, largest finite 448, no infinities, NaN = S.1111.111.
struct fp8_e4m3_t {
  std::uint8_t bits;
};

namespace detail {

KOKKOS_INLINE_FUNCTION std::uint32_t float_bits(float f) {
  std::uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

KOKKOS_INLINE_FUNCTION float bits_float(std::uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

// Round-to-nearest-even of `value >> shift`, where `value` carries the bits below the cut.
KOKKOS_INLINE_FUNCTION std::uint32_t shift_round_even(std::uint32_t value, int shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

}  // namespace detail

// Round to nearest even (±65520 and beyond to ±inf; NaN stays NaN). On CUDA the conversion
// instruction rounds the same way (NaN's payload may differ): one instruction instead of ~40,
// which matters in the straight-line epilogues of kernels that write each element once.
KOKKOS_INLINE_FUNCTION fp16_t fp16_from_float(float f) {
#if defined(__CUDA_ARCH__)
  std::uint16_t bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f));
  return {bits};
#else
  const std::uint32_t x = detail::float_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return {static_cast<std::uint16_t>(sign | 0x7e00u)};   // NaN
  if (magnitude >= 0x477ff000u) return {static_cast<std::uint16_t>(sign | 0x7c00u)};  // >= 65520 -> inf
  if (magnitude < 0x38800000u) {                  // below 2^-14: fp16 subnormal (units of 2^-24) or zero
    if (magnitude <= 0x33000000u) return {sign};  // <= 2^-25 rounds to (even) zero
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    return {static_cast<std::uint16_t>(sign | detail::shift_round_even(mantissa, 126 - static_cast<int>(exponent)))};
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits; a carry
  // into the exponent is the correct result.
  return {static_cast<std::uint16_t>(sign | detail::shift_round_even(magnitude - 0x38000000u, 13))};
#endif
}

KOKKOS_INLINE_FUNCTION float fp16_to_float(fp16_t h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
#else
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  const std::uint32_t exponent = (h.bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = h.bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in fp32
    const float value = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -value : value;
  }
  if (exponent == 31) return detail::bits_float(sign | 0x7f800000u | (mantissa << 13));
  return detail::bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
#endif
}

// Round to nearest even; NaN stays NaN (as fp16_from_float, the instruction on CUDA sm_80+).
KOKKOS_INLINE_FUNCTION bf16_t bf16_from_float(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  std::uint16_t bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(f));
  return {bits};
#else
  const std::uint32_t x = detail::float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return {static_cast<std::uint16_t>((x >> 16) | 0x40u)};  // quiet NaN
  return {static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16)};
#endif
}

KOKKOS_INLINE_FUNCTION float bf16_to_float(bf16_t b) {
  return detail::bits_float(static_cast<std::uint32_t>(b.bits) << 16);
}

KOKKOS_INLINE_FUNCTION float fp8_e4m3_to_float(fp8_e4m3_t f) {
  const std::uint32_t exponent = (f.bits >> 3) & 0xfu;
  const std::uint32_t mantissa = f.bits & 0x7u;
  float value;
  if (exponent == 0xfu && mantissa == 0x7u)
    value = detail::bits_float(0x7fc00000u);  // NaN
  else if (exponent == 0)
    value = float(mantissa) * 0.001953125f;  // subnormal: m * 2^-9
  else
    value = detail::bits_float(((exponent + 120u) << 23) | (mantissa << 20));
  return (f.bits & 0x80u) ? -value : value;
}

// Round to nearest even, saturating at ±448 (the clamp fp8 outputs need); NaN stays NaN.
KOKKOS_INLINE_FUNCTION fp8_e4m3_t fp8_e4m3_from_float(float f) {
  const std::uint32_t x = detail::float_bits(f);
  const std::uint8_t sign = static_cast<std::uint8_t>((x >> 24) & 0x80u);
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return {static_cast<std::uint8_t>(sign | 0x7fu)};
  if (magnitude >= 0x43e00000u) return {static_cast<std::uint8_t>(sign | 0x7eu)};  // >= 448: saturate
  if (magnitude <= 0x3a800000u) return {sign};                                     // <= 2^-10 rounds to (even) zero
  if (magnitude < 0x3c800000u) {  // below 2^-6: subnormal, units of 2^-9
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    return {static_cast<std::uint8_t>(sign | detail::shift_round_even(mantissa, 141 - static_cast<int>(exponent)))};
  }
  // Normal: rebias 127 -> 7 and round the 20 dropped mantissa bits (a carry is correct, and the
  // largest result below 448's rounding boundary is 0x7e).
  return {static_cast<std::uint8_t>(sign | detail::shift_round_even(magnitude - 0x3c000000u, 20))};
}

// Uniform access for kernels templated on the storage type.
template <class Storage>
struct StorageTraits;

template <>
struct StorageTraits<float> {
  KOKKOS_INLINE_FUNCTION static float to_float(float v) { return v; }
  KOKKOS_INLINE_FUNCTION static float from_float(float v) { return v; }
};
template <>
struct StorageTraits<fp16_t> {
  KOKKOS_INLINE_FUNCTION static float to_float(fp16_t v) { return fp16_to_float(v); }
  KOKKOS_INLINE_FUNCTION static fp16_t from_float(float v) { return fp16_from_float(v); }
};
template <>
struct StorageTraits<bf16_t> {
  KOKKOS_INLINE_FUNCTION static float to_float(bf16_t v) { return bf16_to_float(v); }
  KOKKOS_INLINE_FUNCTION static bf16_t from_float(float v) { return bf16_from_float(v); }
};

template <>
struct StorageTraits<fp8_e4m3_t> {
  KOKKOS_INLINE_FUNCTION static float to_float(fp8_e4m3_t v) { return fp8_e4m3_to_float(v); }
  KOKKOS_INLINE_FUNCTION static fp8_e4m3_t from_float(float v) { return fp8_e4m3_from_float(v); }
};

template <class Storage>
KOKKOS_INLINE_FUNCTION float to_float(Storage v) {
  return StorageTraits<Storage>::to_float(v);
}
template <class Storage>
KOKKOS_INLINE_FUNCTION Storage from_float(float v) {
  return StorageTraits<Storage>::from_float(v);
}

}  // namespace kattn
