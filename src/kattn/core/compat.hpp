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

}  // namespace kattn::compat

// Kokkos 3.4 calls custom reduction joins on volatile values; 4.x on plain ones.
#if KOKKOS_VERSION >= 40000
#define KATTN_JOIN_VOLATILE
#else
#define KATTN_JOIN_VOLATILE volatile
#endif
