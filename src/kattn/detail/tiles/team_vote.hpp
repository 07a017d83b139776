// A team barrier that is also a vote: every thread of the team learns whether any thread's
// predicate held.
#pragma once

#include <Kokkos_Core.hpp>

namespace kattn {

// Called by every thread of the team where team.team_barrier() could be, and orders memory as it
// does. On CUDA and HIP the team must be its block (a kernel of one team a block, Kokkos' vector
// lanes along x: team_barrier() is then the block's barrier too): one barrier with an OR
// (__syncthreads_or), no more than team_barrier() costs. Elsewhere Kokkos' team reduction.
template <class Member>
KOKKOS_INLINE_FUNCTION bool team_barrier_any(const Member& team, bool pred) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  (void)team;
  return __syncthreads_or(int(pred)) != 0;
#else
  int any = pred ? 1 : 0;
  team.team_reduce(Kokkos::Max<int>(any));
  return any != 0;
#endif
}

}  // namespace kattn
