// The few places where the Kokkos 3.4 and 4.x APIs differ; everything else in kattn uses the
// API both share.
#pragma once

#include <Kokkos_Core.hpp>

#if KOKKOS_VERSION >= 40000
#define KATTN_KOKKOS_MATH Kokkos
#else
#define KATTN_KOKKOS_MATH Kokkos::Experimental
#endif

// Full unrolling of loops over register arrays (which otherwise spill to local memory); the host
// compilers of the OpenMP builds do not know the pragma.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define KATTN_UNROLL _Pragma("unroll")
#else
#define KATTN_UNROLL
#endif

namespace kattn::compat {

KOKKOS_INLINE_FUNCTION float exp(float x) { return KATTN_KOKKOS_MATH::exp(x); }
KOKKOS_INLINE_FUNCTION float fmax(float a, float b) { return KATTN_KOKKOS_MATH::fmax(a, b); }
// Numeric traits live in Kokkos::Experimental in both versions.
KOKKOS_INLINE_FUNCTION float infinity() { return Kokkos::Experimental::infinity<float>::value; }

// Kokkos::initialize on a given device (-1: Kokkos' choice). Kokkos 3.7 replaced InitArguments
// by InitializationSettings.
inline void initialize(int device_id) {
#if KOKKOS_VERSION >= 30700
  Kokkos::InitializationSettings settings;
  if (device_id >= 0) settings.set_device_id(device_id);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.device_id = device_id;
  Kokkos::initialize(arguments);
#endif
}

}  // namespace kattn::compat

// Kokkos 3.4 calls custom reduction joins on volatile values; 4.x on plain ones.
#if KOKKOS_VERSION >= 40000
#define KATTN_JOIN_VOLATILE
#else
#define KATTN_JOIN_VOLATILE volatile
#endif
