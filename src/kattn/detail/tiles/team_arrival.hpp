// The "last team in" handshake of kernels whose teams each leave a partial result in global memory
// and whose last team to finish combines them (the split-KV partition merge).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kattn {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define KATTN_ACQ_REL_ARRIVAL 1
#else
#define KATTN_ACQ_REL_ARRIVAL 0
#endif

// One thread's arrival on a counter shared by `count` teams: true for the arrival that completes
// the count, which also resets the counter to 0 for the next launch. On CUDA one acquire-release
// atomic (as CUTLASS's generic barrier arrives): it releases what the team wrote before a team
// barrier and acquires, for the team after its next barrier, what every arrived team released.
// Elsewhere Kokkos' atomic, with team_arrive_last's fences in every thread around it.
KOKKOS_INLINE_FUNCTION bool arrive_last(std::int32_t* counter, int count) {
#if KATTN_ACQ_REL_ARRIVAL
  std::int32_t before;
  asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;" : "=r"(before) : "l"(counter) : "memory");
#else
  const std::int32_t before = Kokkos::atomic_fetch_add(counter, 1);
#endif
  if (before != count - 1) return false;
  *counter = 0;
  return true;
}

// Every thread of the team learns whether the team arrived last; the team's writes before the call
// are visible to the last team after it. The portable path is CUDA's threadfence-reduction pattern
// (a fence in every thread before the count and after it); on CUDA the one atomic replaces those
// sequentially consistent fences, which stalled each warp of the H100's batch-1 decode for
// microseconds (docs/performance.md).
template <class Member>
KOKKOS_INLINE_FUNCTION bool team_arrive_last(const Member& team, std::int32_t* counter, int count) {
  if (!KATTN_ACQ_REL_ARRIVAL) Kokkos::memory_fence();
  team.team_barrier();
  int last = 0;
  Kokkos::single(
      Kokkos::PerTeam(team), [&](int& is_last) { is_last = arrive_last(counter, count); }, last);
  if (!KATTN_ACQ_REL_ARRIVAL && last) Kokkos::memory_fence();
  return last != 0;
}

#undef KATTN_ACQ_REL_ARRIVAL

}  // namespace kattn
