// Team-scope copies of whole K and V tiles from the paged cache by Hopper's tensor memory
// accelerator (TMA: cp.async.bulk.tensor), for the warpgroup products' double-buffered prefill:
// one instruction moves a box of a cache block's slots × 64 head elements into scratch, laid out
// by the copy engine in the 128-byte swizzle the products read (warpgroup_tile_offset), and counts
// its bytes on a shared-memory barrier. A tile of K and V then costs a warp's lane 0 one block-id
// load and 4 instructions a block, where TeamTileCopy::copy_swizzled_pair costs every thread a
// lookup, an address and 4 cp.async a row.
//
// The cache is described by two tensor maps (K and V, `CacheTileMaps`): 4-D [num_blocks][block
// size][num_kv_heads][head_size] with the cache's strides, boxes of `box_rows` slots × 1 head × 64
// elements. The host encodes them (launch/cache_tile_maps.hpp), a one-team kernel writes them
// into the workspace where it does not hold them yet (publish_tile_maps, kernels/tile_maps_kernel.hpp),
// and the copies read them there. A Q block's query
// rows and output rows go the same way (`RowTileMaps`, bulk_copy_q_block and bulk_store_out_block
// below, each with its own contract).
//
// Contract of the tile copies: a team of warps (vector length 32; warp w = team rank). TileBarriers::init is called
// by every thread once, before a team barrier and before any copy. Tiles go through stages 0, 1,
// 2, ... in order; for stage s every thread calls copy_pair (or arrive, where the tile is copied
// some other way), then TileBarriers::wait(s) before reading the tile. Stage s shares its barrier
// with s + 2: stage s + 2 is issued after every thread's wait(s), with a team barrier between
// them. A box starts at a multiple of box_rows keys and every key of a copied tile exists (the
// last, partial tile of a sequence is copied by rows: slots past its length may hold anything).
// Needs sm_90; elsewhere the bodies are empty.
#pragma once

#include "kattn/detail/shapes/tile_shapes.hpp"
#include "kattn/detail/tiles/fast_divisor.hpp"
#include "kattn/detail/tiles/warpgroup_pipeline.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kattn {

// The least box rows at which the bulk copies pay (H200, 2026-11-29, docs/performance.md): in the
// two-warpgroup kernel boxes of 16 slots run it 1.12-1.14x slower than cp.async rows (32 boxes a
// step, each warp's lane 0 held about as long as the rows hold every lane), boxes of 32, 64 and
// 128 slots 0.89-0.97x; teams of one warpgroup, two an SM, lose at every block size (1.05-1.10x),
// so only the two-warpgroup kernel takes them.
inline constexpr int kBulkCopyMinBoxRows = 32;

// Two CUtensorMaps, opaque, 128 bytes each; they sit 64-byte aligned where the copies read them.
struct alignas(64) CacheTileMaps {
  std::uint64_t k[16], v[16];
};

// The maps of a call's query rows and output rows ([tokens][query heads][head] of 2-byte elements,
// launch/cache_tile_maps.hpp) for the Q-block kernels of one warpgroup: boxes of 64 head elements ×
// queries_per_kv heads × block_q tokens, so that a box is a Q block's 64 rows (token-major, as
// QBlockRows numbers them) in the products' layout, and a Q block's half-head.
struct alignas(64) RowTileMaps {
  std::uint64_t q[16], out[16];
};

// Writes the maps (CacheTileMaps or RowTileMaps: two maps each) to `to` (global memory, 64-byte
// aligned) for the copies of later kernels: every thread of one team calls it (the first 32 store).
template <class Member, class Maps>
KOKKOS_INLINE_FUNCTION void publish_tile_maps(const Member& team, const Maps& maps, Maps* to) {
  static_assert(sizeof(Maps) == 32 * sizeof(std::uint64_t), "two 128-byte maps");
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 32), [&](int i) {
    reinterpret_cast<std::uint64_t*>(to)[i] = reinterpret_cast<const std::uint64_t*>(&maps)[i];
  });
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
#endif
}

// Makes the maps at `maps` (written by an earlier kernel) visible to the calling thread's copies.
template <class Maps>
KOKKOS_INLINE_FUNCTION void acquire_tile_maps(const Maps* maps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const std::uint64_t* words = reinterpret_cast<const std::uint64_t*>(maps);
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(words) : "memory");
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(words + 16) : "memory");
#else
  (void)maps;
#endif
}

// One thread: a Q block's 64 rows (query heads from head0, tokens from token0; rows past the
// tensor's tokens zeros) into the tile at shared address `to` (1024-byte aligned) in the products'
// layout, both halves of the head counted on the barrier at `barrier` (its arrival, expecting
// their bytes). Rows past the block's valid tokens are the next tokens' (rows are independent in
// the products and the softmax, and those are never stored).
KOKKOS_INLINE_FUNCTION void bulk_copy_q_block(const RowTileMaps* maps, unsigned to, unsigned barrier, int head0,
                                              int token0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr unsigned kHalfBytes = kWarpgroupRows * 128;
  pipeline_arrive_expecting(barrier, 2 * kHalfBytes);
  for (int half = 0; half < 2; ++half)
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
        "[%5];" ::"r"(to + half * kHalfBytes),
        "l"(maps->q), "r"(64 * half), "r"(head0), "r"(token0), "r"(barrier)
        : "memory");
#else
  (void)maps, (void)to, (void)barrier, (void)head0, (void)token0;
#endif
}

// One thread: the tile at shared address `from` (a Q block's 64 output rows in the products'
// layout, written and made visible to the copy engine by every writing thread's
// warpgroup_tile_ready and a barrier) to the output rows of query heads from head0, tokens from
// token0 — every row of the box: the block's tokens must all be valid. The copy engine reads the
// tile after this returns: bulk_store_wait_read() before anything rewrites it, bulk_store_wait()
// before the thread leaves.
KOKKOS_INLINE_FUNCTION void bulk_store_out_block(const RowTileMaps* maps, unsigned from, int head0, int token0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr unsigned kHalfBytes = kWarpgroupRows * 128;
  for (int half = 0; half < 2; ++half)
    asm volatile(
        "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(maps->out),
        "r"(64 * half), "r"(head0), "r"(token0), "r"(from + half * kHalfBytes)
        : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#else
  (void)maps, (void)from, (void)head0, (void)token0;
#endif
}

// The calling thread's bulk stores have read their tiles (which may then be rewritten).
KOKKOS_INLINE_FUNCTION void bulk_store_wait_read() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
}

// The calling thread's bulk stores are complete.
KOKKOS_INLINE_FUNCTION void bulk_store_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

// The two barriers of a team's stages (16 bytes of scratch, 8-byte aligned, at shared address `at`).
struct TileBarriers {
  unsigned at;

  // Every thread calls; thread 0 initialises, and each warp's lane 0 makes the maps the kernel reads
  // (null: none) visible to its copies.
  KOKKOS_INLINE_FUNCTION void init(const CacheTileMaps* maps, int warp, int lane) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (warp == 0 && lane == 0) {
      pipeline_init(at, 1);
      pipeline_init(at + 8, 1);
      pipeline_init_fence();
    }
    if (maps && lane == 0) acquire_tile_maps(maps);
#else
    (void)maps, (void)warp, (void)lane;
#endif
  }

  KOKKOS_INLINE_FUNCTION unsigned barrier(int stage) const { return at + unsigned(stage & 1) * 8; }

  // Stage `stage`'s arrival where its tile came by other copies (thread 0 arrives, expecting no bytes).
  KOKKOS_INLINE_FUNCTION void arrive(int stage, int warp, int lane) const { arrive_expecting(stage, 0, warp, lane); }

  // Returns once stage `stage`'s copies are in (visible to this thread and to its products).
  KOKKOS_INLINE_FUNCTION void wait(int stage) const { pipeline_wait(barrier(stage), unsigned(stage >> 1) & 1u); }

  KOKKOS_INLINE_FUNCTION void arrive_expecting(int stage, unsigned bytes, int warp, int lane) const {
    if (warp == 0 && lane == 0) pipeline_arrive_expecting(barrier(stage), bytes);
  }
};

// A team's copies of whole K and V tiles of Rows keys × 128 head elements of one KV head, by box,
// into the products' layout: a key's 128-byte rows of 64 elements, the second half Rows · 128
// bytes after the first.
template <int Rows>
struct TeamBulkTileCopy {
  static constexpr unsigned kBoxRowBytes = 64 * 2;  // a box's row: 64 two-byte elements
  static constexpr unsigned kHalfBytes = unsigned(Rows) * kBoxRowBytes;
  static constexpr unsigned kTileBytes = 2 * kHalfBytes;

  const CacheTileMaps* maps;
  int box_rows;
  int kv_head;

  // K of keys first .. first + Rows - 1 (first a multiple of box_rows; the sequence's block ids
  // start at block_ids) into the tile at shared address k_to (1024-byte aligned), V into v_to, on
  // stage `stage` of `barriers`. Every thread of the team calls; warp w's lane 0 issues the boxes
  // of blocks w, w + warps, ...
  KOKKOS_INLINE_FUNCTION void copy_pair(unsigned k_to, unsigned v_to, const TileBarriers& barriers, int stage,
                                        const std::int32_t* block_ids, const FastDivisor& block_size, int first,
                                        int warp, int warps, int lane) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    barriers.arrive_expecting(stage, 2 * kTileBytes, warp, lane);
    if (lane != 0) return;
    const unsigned barrier = barriers.barrier(stage);
    for (int box = warp; box * box_rows < Rows; box += warps) {
      int slot = 0;
      const int block = block_ids[block_size.divmod(first + box * box_rows, slot)];
      const unsigned at = unsigned(box * box_rows) * kBoxRowBytes;
      copy_box(k_to + at, maps->k, 0, slot, block, barrier);
      copy_box(k_to + at + kHalfBytes, maps->k, 64, slot, block, barrier);
      copy_box(v_to + at, maps->v, 0, slot, block, barrier);
      copy_box(v_to + at + kHalfBytes, maps->v, 64, slot, block, barrier);
    }
#else
    (void)k_to, (void)v_to, (void)barriers, (void)stage, (void)block_ids, (void)block_size, (void)first, (void)warp,
        (void)warps, (void)lane;
#endif
  }

  // One thread: box b of a tile of K (values: V) into the tile at `to`, slots slot .. slot +
  // box_rows - 1 of cache block `block`, counted on the barrier at shared address `barrier` (its
  // arrival, expecting the box's bytes).
  KOKKOS_INLINE_FUNCTION void copy_block(unsigned to, bool values, unsigned barrier, int b, int slot, int block) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    pipeline_arrive_expecting(barrier, 2 * unsigned(box_rows) * kBoxRowBytes);
    const std::uint64_t* map = values ? maps->v : maps->k;
    const unsigned at = to + unsigned(b * box_rows) * kBoxRowBytes;
    copy_box(at, map, 0, slot, block, barrier);
    copy_box(at + kHalfBytes, map, 64, slot, block, barrier);
#else
    (void)to, (void)values, (void)barrier, (void)b, (void)slot, (void)block;
#endif
  }

 private:
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // The box of head elements from `element` on, slots slot .. slot + box_rows - 1 of block `block`.
  __device__ void copy_box(unsigned to, const std::uint64_t* map, int element, int slot, int block,
                           unsigned barrier) const {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
        "%5}], [%6];" ::"r"(to),
        "l"(map), "r"(element), "r"(kv_head), "r"(slot), "r"(block), "r"(barrier)
        : "memory");
  }
#endif
};

}  // namespace kattn
