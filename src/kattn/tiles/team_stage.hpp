// Team-scope staging of K or V rows from the paged cache into team scratch, asynchronously where
// the hardware copies without registers (CUDA sm_80+: cp.async), so that several tiles are in
// flight while the team computes on an earlier one.
//
// Contract: team_stage_rows is called by every thread of the team (it splits the tile's lane
// chunks over all of them, TeamVectorRange). On CUDA sm_80+ with aligned rows the copies are in
// flight on return: team_stage_commit() closes this thread's group of them, team_stage_wait(n)
// waits until at most n of its committed groups are pending, and a team barrier after the wait
// makes the finished tiles visible to every thread. Elsewhere the copy is done on return (commit
// and wait do nothing), so the same kernel runs on every backend.
#pragma once

#include "kattn/tiles/fast_divisor.hpp"
#include "kattn/tiles/lane_chunk.hpp"
#include "kattn/tiles/paged_kv.hpp"

#include <cstdint>

namespace kattn {

// Where a tile's rows are: the ids of the cache blocks that hold keys from first_block ·
// block_size on (block_ids[0] is block first_block of the sequence), and the KV head.
struct CacheRowsAt {
  const std::int32_t* block_ids;
  int first_block;
  FastDivisor block_size;
  int kv_head;

  // The cache block (an id from the table) and slot of sequence key `key`.
  KOKKOS_INLINE_FUNCTION std::int32_t locate(int key, int& slot) const {
    return block_ids[block_size.divmod(key, slot) - first_block];
  }
  template <class Storage>
  KOKKOS_INLINE_FUNCTION const Storage* row(const PagedKvAccessor<Storage>& cache, int key) const {
    int slot;
    const std::int32_t block = locate(key, slot);
    return cache.row(block, slot, kv_head);
  }
};

namespace stage_detail {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// Copies the chunk at `from` to shared memory at `to` in flight, or fills it with zeros.
template <std::size_t Bytes>
__device__ inline void copy_chunk_async(void* to, const void* from, bool valid) {
  const unsigned address = unsigned(__cvta_generic_to_shared(to));
  if constexpr (Bytes == 16 || Bytes == 32) {
    for (unsigned offset = 0; offset < Bytes; offset += 16)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(address + offset),
                   "l"(static_cast<const char*>(from) + offset), "r"(valid ? 16 : 0));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(address), "l"(from), "n"(Bytes),
                 "r"(valid ? int(Bytes) : 0));
  }
}
#endif

}  // namespace stage_detail

// Stages the `count` rows of keys (or values) first, first + 1, ... into `rows` rows of `stride`
// elements at `tile` (16-byte aligned, stride a multiple of kLaneElements); rows from `count` on
// and elements past head_size are zeros (their weights are 0, and 0 · garbage could be NaN).
template <class Member, class Storage>
KOKKOS_INLINE_FUNCTION void team_stage_rows(const Member& team, const PagedKvAccessor<Storage>& cache,
                                            const CacheRowsAt& at, int first, int count, int rows, int head_size,
                                            int stride, bool aligned, Storage* tile) {
  const int chunks = lanes_for(head_size);
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * chunks), [&](int i) {
    const int j = i / chunks;
    const int e = (i - j * chunks) * kLaneElements;
    auto* to = reinterpret_cast<LaneChunk<Storage>*>(tile + j * stride + e);
    const int key = first + j;
    const Storage* from = j < count ? at.row(cache, key) + e : cache.data;
    const bool whole = aligned && e + kLaneElements <= head_size;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (whole) return stage_detail::copy_chunk_async<sizeof(LaneChunk<Storage>)>(to, from, j < count);
#endif
    if (j >= count) {
      *to = LaneChunk<Storage>{};
    } else if (whole) {
      *to = *reinterpret_cast<const LaneChunk<Storage>*>(from);
    } else {
      for (int x = 0; x < kLaneElements; ++x) to->values[x] = e + x < head_size ? from[x] : Storage{0};
    }
  });
}

// Closes the group of copies this thread has staged since the last commit.
KOKKOS_INLINE_FUNCTION void team_stage_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;");
#endif
}

// Waits until at most `pending` (0 to 3) of this thread's committed groups are in flight.
KOKKOS_INLINE_FUNCTION void team_stage_wait(int pending) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  switch (pending) {
    case 0: asm volatile("cp.async.wait_group 0;"); break;
    case 1: asm volatile("cp.async.wait_group 1;"); break;
    case 2: asm volatile("cp.async.wait_group 2;"); break;
    default: asm volatile("cp.async.wait_group 3;"); break;
  }
#else
  (void)pending;
#endif
}

}  // namespace kattn
