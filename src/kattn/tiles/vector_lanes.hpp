// Thread-scope primitives over the vector lanes of one Kokkos thread (a TeamThreadRange index with
// its ThreadVectorRange lanes), for state that each lane keeps in registers across a whole loop.
//
// Contract: called by every lane of the thread, inside one ThreadVectorRange(team, lanes) body with
// lanes == the launch's vector length, a power of two; no team barrier. On CUDA the lanes are
// consecutive threads of a warp (threadIdx.x), on HIP of a wavefront; host backends run vector
// length 1, where a lane is the whole thread and the sum is the value itself.
#pragma once

#include <Kokkos_Core.hpp>

namespace kattn {

// values[i] becomes the sum of values[i] over the thread's lanes, in every lane (xor butterfly).
template <int N>
KOKKOS_INLINE_FUNCTION void vector_lanes_sum(float (&values)[N], int lanes) {
#if defined(__CUDA_ARCH__)
  const unsigned first = (threadIdx.y * unsigned(lanes)) & 31u;
  const unsigned mask = lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1u) << first;
  for (int offset = lanes / 2; offset > 0; offset /= 2)
#pragma unroll
    for (int i = 0; i < N; ++i) values[i] += __shfl_xor_sync(mask, values[i], offset, lanes);
#elif defined(__HIP_DEVICE_COMPILE__)
  for (int offset = lanes / 2; offset > 0; offset /= 2)
#pragma unroll
    for (int i = 0; i < N; ++i) values[i] += __shfl_xor(values[i], offset, lanes);
#else
  (void)values;
  (void)lanes;  // host backends: one lane
#endif
}

// The vector lanes a kernel that keeps per-lane register state may launch with: 1 on the host
// (where ThreadVectorRange runs the lanes one after another), else up to `wanted`.
template <class Space>
constexpr int register_lanes(int wanted) {
  return Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible ? 1 : wanted;
}

}  // namespace kattn
