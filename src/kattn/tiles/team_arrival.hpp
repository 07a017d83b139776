// The "last team in" handshake of kernels whose teams each leave a partial result in global memory
// and whose last team to finish combines them (the split-KV partition merge).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kattn {

// One thread's arrival on a counter shared by `count` teams: true for the arrival that completes
// the count, which also resets the counter to 0 for the next launch.
// Release: the writes the calling team made before a team barrier are visible to whoever reads
// the counter's final value; acquire: the caller sees every arrived team's writes after its next
// team barrier. On CUDA one acq_rel atomic does both, as CUTLASS's generic barrier does; a
// sequentially consistent __threadfence per thread (Kokkos::memory_fence) stalled each warp of the
// H100's split-KV decode for microseconds. Elsewhere: Kokkos' fence and atomic.
KOKKOS_INLINE_FUNCTION bool arrive_last(std::int32_t* counter, int count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  std::int32_t before;
  asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;" : "=r"(before) : "l"(counter) : "memory");
#else
  Kokkos::memory_fence();
  const std::int32_t before = Kokkos::atomic_fetch_add(counter, 1);
  Kokkos::memory_fence();
#endif
  if (before != count - 1) return false;
  *counter = 0;
  return true;
}

// Every thread of the team learns whether the team arrived last (arrive_last by one thread after a
// team barrier, broadcast by a second one); the team's writes before the call are released.
template <class Member>
KOKKOS_INLINE_FUNCTION bool team_arrive_last(const Member& team, std::int32_t* counter, int count) {
  team.team_barrier();
  int last = 0;
  Kokkos::single(
      Kokkos::PerTeam(team), [&](int& is_last) { is_last = arrive_last(counter, count); }, last);
  return last != 0;
}

}  // namespace kattn
