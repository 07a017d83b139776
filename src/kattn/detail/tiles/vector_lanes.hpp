// Thread-scope primitives over the vector lanes of one Kokkos thread, for kernels written in SPMD
// style (every lane runs the whole functor body and keeps its own state in registers across a
// loop, with team barriers between steps).
//
// Contract: the launch's vector length is a power of two; on CUDA the lanes of a thread are
// consecutive threads of a warp (threadIdx.x), on HIP of a wavefront. Host backends launch vector
// length 1, where a lane is the whole thread. vector_lanes_sum is called by every lane of every
// thread of the warp (uniform control flow), with no team barrier inside.
#pragma once

#include <Kokkos_Core.hpp>

namespace kattn {

// This lane's index among its thread's vector lanes.
template <class Member>
KOKKOS_INLINE_FUNCTION int vector_lane(const Member&) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return int(threadIdx.x);
#else
  return 0;
#endif
}

#if defined(__CUDA_ARCH__)
namespace lanes_detail {
// The lanes of the calling thread's team: a Kokkos team is a CUDA block (blockDim.z is 1 for
// team kernels), so a team of fewer than 32 threads is the first lanes of its only warp.
__device__ inline unsigned team_warp_mask() {
  const unsigned threads = blockDim.x * blockDim.y;
  return threads >= 32 ? 0xffffffffu : (1u << threads) - 1u;
}
}  // namespace lanes_detail
#endif

// values[i] becomes the sum of values[i] over the thread's `lanes` lanes, in every lane (xor butterfly).
template <int N>
KOKKOS_INLINE_FUNCTION void vector_lanes_sum(float (&values)[N], int lanes) {
#if defined(__CUDA_ARCH__)
  const unsigned mask = lanes_detail::team_warp_mask();
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

}  // namespace kattn
