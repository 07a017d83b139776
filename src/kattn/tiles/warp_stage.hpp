// Warp-scope ring of K/V tiles in scratch for a warp that owns its pipeline (the tensor-core
// split-KV kernel): each stage holds a K tile and a V tile of `rows` keys, filled while the warp
// computes on an earlier stage.
//
// On Hopper (sm_90) with 16-byte rows a tile row is one bulk copy (cp.async.bulk, 16-byte
// multiples) completing on the stage's mbarrier: two copies per key instead of one instruction
// per 16 bytes, so staging costs the warp almost no issue slots. Elsewhere (sm_80, unaligned
// rows) the rows go through team_stage_rows (cp.async groups), and on host backends the copy is
// done on return.
//
// Contract: every call is made by all lanes of the warp, which is the whole team (a one-warp team:
// team barriers are warp barriers). init() once before the first stage(); stage(t) for t = 0, 1,
// ... in order, at most `stages` - 1 ahead of the tile being computed; wait(t) before reading tile
// t, followed by team_sync; a tile's buffer is restaged only after a barrier that follows
// the last reads of it. Rows from `count` on are zeros.
#pragma once

#include "kattn/tiles/team_stage.hpp"
#include "kattn/tiles/vector_lanes.hpp"

#include <cstdint>

namespace kattn {

template <class Storage>
struct WarpStageRing {
  Storage* tiles;            // [stages][2][rows][stride]: K then V of each stage, 16-byte aligned
  std::uint64_t* barriers;   // [stages] mbarriers (bulk copies)
  int stages, rows, stride;  // stride: elements per row, a multiple of kLaneElements
  int head_size;             // elements of a cache row
  bool aligned;              // every cache row admits LaneChunk loads (lane_chunks_aligned)

  // Whether tiles come by bulk copies here: sm_90, and rows and their scratch places in whole,
  // aligned 16-byte units.
  KOKKOS_INLINE_FUNCTION bool bulk() const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return aligned && sizeof(LaneChunk<Storage>) >= 16 && (head_size * sizeof(Storage)) % 16 == 0 &&
           (stride * sizeof(Storage)) % 16 == 0;
#else
    return false;
#endif
  }

  KOKKOS_INLINE_FUNCTION Storage* k_tile(int t) const { return tiles + std::size_t(2 * (t % stages)) * rows * stride; }
  KOKKOS_INLINE_FUNCTION Storage* v_tile(int t) const { return k_tile(t) + std::size_t(rows) * stride; }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void init(const Member& team) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (bulk() && threadIdx.x == 0 && threadIdx.y == 0)
      for (int s = 0; s < stages; ++s)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(unsigned(__cvta_generic_to_shared(barriers + s))));
    asm volatile("fence.mbarrier_init.release.cluster;");
#endif
    team_sync(team);
  }

  // Stages keys first .. first + count - 1 (count <= rows) as tile t.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void stage(const Member& team, int t, const PagedKvAccessor<Storage>& k,
                                    const PagedKvAccessor<Storage>& v, const CacheRowsAt& at, int first,
                                    int count) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (bulk()) {
      const int lane = int(threadIdx.x);
      const unsigned row_bytes = unsigned(head_size * sizeof(Storage));
      const unsigned barrier = unsigned(__cvta_generic_to_shared(barriers + t % stages));
      if (count < rows) {  // zero rows: written by this proxy, then fenced for the copies of later rounds
        const int words = stride * int(sizeof(Storage)) / 4;  // rows are whole 4-byte words (8-element multiples)
        for (int i = lane; i < (rows - count) * 2 * words; i += 32) {
          const int row = i / words;
          Storage* at_row = (row & 1 ? v_tile(t) : k_tile(t)) + std::size_t(count + row / 2) * stride;
          reinterpret_cast<std::uint32_t*>(at_row)[i - row * words] = 0u;
        }
      }
      asm volatile("fence.proxy.async.shared::cta;");  // earlier reads and writes of the buffer before the copies
      __syncwarp();
      if (lane == 0)
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(2 * count * row_bytes)
                     : "memory");
      __syncwarp();
      for (int i = lane; i < 2 * count; i += 32) {
        const int key = first + i / 2;
        const PagedKvAccessor<Storage>& cache = i & 1 ? v : k;
        const Storage* from = cache.row(at.block_ids[key / at.block_size - at.first_block], key % at.block_size, at.kv_head);
        Storage* to = (i & 1 ? v_tile(t) : k_tile(t)) + std::size_t(i / 2) * stride;
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                unsigned(__cvta_generic_to_shared(to))),
            "l"(from), "r"(row_bytes), "r"(barrier)
            : "memory");
      }
      return;
    }
#endif
    team_stage_rows(team, k, at, first, count, rows, head_size, stride, aligned, k_tile(t));
    team_stage_rows(team, v, at, first, count, rows, head_size, stride, aligned, v_tile(t));
    team_stage_commit();
  }

  // An empty stage where the ring runs past the last tile (keeps the cp.async group counts uniform).
  KOKKOS_INLINE_FUNCTION void skip() const {
    if (!bulk()) team_stage_commit();
  }

  KOKKOS_INLINE_FUNCTION void wait(int t) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (bulk()) {
      const unsigned barrier = unsigned(__cvta_generic_to_shared(barriers + t % stages));
      const unsigned parity = unsigned(t / stages) & 1u;
      unsigned done = 0;
      while (!done)
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(barrier), "r"(parity)
            : "memory");
      return;
    }
#endif
    (void)t;
    team_stage_wait(stages - 2);
  }
};

}  // namespace kattn
