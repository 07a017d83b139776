// Team-scratch budgets of the kernels, shared by the kernels (to request scratch) and the planner
// (to fit tiles into what the backend offers).
#pragma once

#include "kattn/core/arch.hpp"
#include "kattn/core/execution_space.hpp"
#include "kattn/detail/shapes/tile_shapes.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace kattn {

constexpr int kSplitKvMaxRows = 4;  // query heads per split-KV team: registers per lane grow with it

// Arrays in the team scratch of Space's kernels.
template <class Space>
using FloatScratch = Kokkos::View<float*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
template <class Space>
using IndexScratch = Kokkos::View<std::int32_t*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// Bytes of a scratch array of `count` elements of `element_bytes` each, alignment included (Kokkos
// aligns scratch arrays alike on every space).
inline std::size_t scratch_array_bytes(std::size_t count, std::size_t element_bytes) {
  return FloatScratch<ExecutionSpace>::shmem_size((count * element_bytes + sizeof(float) - 1) / sizeof(float));
}

// The split-KV partition merge (merge_partitions_if_last): each row's 1/total, then each row's
// partition maxima (turned into weights) and sums, for up to `rows` rows.
KOKKOS_INLINE_FUNCTION std::size_t split_kv_merge_bytes(int rows, int num_partitions) {
  return std::size_t(rows) * (2 * std::size_t(num_partitions) + 1) * sizeof(float);
}

// The K/V tile element of the portable Q-block kernel: fp32 where its products are Kokkos Kernels'
// (they take one scalar type; the cache's type converts as it is staged), else the cache's own.
template <class Space, class Cache>
using QBlockTileValue = std::conditional_t<team_gemm_available<Space>(), float, Cache>;

// Its bytes, for a cache of `element_bytes` (the planner knows the cache by its size only).
template <class Space>
std::size_t qblock_tile_element_bytes(std::size_t element_bytes) {
  return team_gemm_available<Space>() ? sizeof(float) : element_bytes;
}

// Q-block kernels: q and acc [block_m × head] fp32, scores [block_m × tile] fp32, row max / sum /
// alpha [block_m] fp32, K and V tiles [tile × head] of `element_bytes` (qblock_tile_element_bytes).
inline std::size_t qblock_scratch_bytes(int block_m, int tile_size, int head_size, std::size_t element_bytes) {
  return 2 * scratch_array_bytes(std::size_t(block_m) * head_size, sizeof(float)) +
         scratch_array_bytes(std::size_t(block_m) * tile_size, sizeof(float)) +
         3 * scratch_array_bytes(std::size_t(block_m), sizeof(float)) +
         2 * scratch_array_bytes(std::size_t(tile_size) * head_size, element_bytes);
}

// The longest tile, halving from tile_size (≥ 1), whose Q-block kernel scratch fits `limit`; 1 if none does.
inline int fit_qblock_tile(int block_m, int tile_size, int head_size, std::size_t element_bytes, std::size_t limit) {
  while (tile_size > 1 && qblock_scratch_bytes(block_m, tile_size, head_size, element_bytes) > limit) tile_size /= 2;
  return tile_size;
}

// Split-KV decode kernel (split_kv_kernel.hpp). A team of `workers` Kokkos threads stages K/V
// tiles of stage_keys() keys through `stages` scratch buffers; each worker takes worker_keys of
// every tile. Scratch: the partition's block ids, the workers' max/sum [workers × kSplitKvMaxRows]
// (fp32), and one region that holds the stage buffers during the key loop, then the workers'
// outputs [workers × kSplitKvMaxRows × head] (fp32), then the partitions' merge weights.
constexpr int kSplitKvMaxWorkerKeys = 2;                // keys a worker takes from each tile, at most
constexpr int kSplitKvMaxStages = 4;                    // tiles in flight, at most
constexpr int kSplitKvMaxHead = 256;                    // on GPUs a lane holds 8 elements of a row, a thread 32 lanes
constexpr std::size_t kSplitKvStageBudget = 24 * 1024;  // bytes of stage buffers a team aims for

struct SplitKvShape {
  int workers = 1;      // the team size
  int worker_keys = 1;  // keys a worker takes from each tile
  int stages = 2;       // tiles in flight (2 to kSplitKvMaxStages)
  int stride = 8;       // elements of a scratch row: head_size rounded up to whole lane chunks

  KOKKOS_INLINE_FUNCTION int stage_keys() const { return workers * worker_keys; }
  KOKKOS_INLINE_FUNCTION std::size_t stage_bytes(std::size_t element_bytes) const {  // K and V of one tile
    return 2 * std::size_t(stage_keys()) * std::size_t(stride) * element_bytes;
  }
};

// The workers' outputs, which the team adds up in worker order (SplitKvKernel::merge_workers).
KOKKOS_INLINE_FUNCTION std::size_t split_kv_worker_out_bytes(int workers, int head_size) {
  return std::size_t(workers) * kSplitKvMaxRows * std::size_t(head_size) * sizeof(float);
}

// The region of the stage buffers, the workers' outputs and the partitions' merge weights.
KOKKOS_INLINE_FUNCTION std::size_t split_kv_region_bytes(const SplitKvShape& shape, int head_size, int num_partitions,
                                                         std::size_t element_bytes) {
  const std::size_t stages = std::size_t(shape.stages) * shape.stage_bytes(element_bytes);
  const std::size_t outs = split_kv_worker_out_bytes(shape.workers, head_size);
  const std::size_t weights = split_kv_merge_bytes(kSplitKvMaxRows, num_partitions);
  const std::size_t larger = stages > outs ? stages : outs;
  return larger > weights ? larger : weights;
}

inline std::size_t split_kv_scratch_bytes(const SplitKvShape& shape, int partition_size, int block_size, int head_size,
                                          int num_partitions, std::size_t element_bytes) {
  return scratch_array_bytes(std::size_t(partition_size) / std::size_t(block_size) + 2, sizeof(std::int32_t)) +
         2 * scratch_array_bytes(std::size_t(shape.workers) * kSplitKvMaxRows, sizeof(float)) +
         split_kv_region_bytes(shape, head_size, num_partitions, element_bytes) + 16;
}

// The largest tiles (up to kSplitKvMaxWorkerKeys keys a worker) of which at least two fit beside
// the rest of the kernel's scratch, and as many stages of them as the budget holds; nullopt when
// not even two one-key tiles fit.
inline std::optional<SplitKvShape> split_kv_shape(int workers, int partition_size, int block_size, int head_size,
                                                  int num_partitions, std::size_t element_bytes,
                                                  std::size_t scratch_limit) {
  SplitKvShape shape;
  shape.workers = workers;
  shape.stride = lanes_for(head_size) * kLaneElements;
  for (shape.worker_keys = kSplitKvMaxWorkerKeys; shape.worker_keys >= 1; --shape.worker_keys) {
    const std::size_t stage = shape.stage_bytes(element_bytes);
    shape.stages = int(std::clamp<std::size_t>(kSplitKvStageBudget / stage, 2, kSplitKvMaxStages));
    while (shape.stages > 2 && split_kv_scratch_bytes(shape, partition_size, block_size, head_size, num_partitions,
                                                      element_bytes) > scratch_limit)
      --shape.stages;
    if (split_kv_scratch_bytes(shape, partition_size, block_size, head_size, num_partitions, element_bytes) <=
        scratch_limit)
      return shape;
  }
  return std::nullopt;
}

// Tensor-core split-KV kernel (split_kv_mma_kernel.hpp): `warps` warps a team, each with its own
// ring of `stages` K/V tile pairs of kKeyRowTileKeys keys. The region of the rings is reused, once
// every warp is done with its ring, by the warps' merge (each warp's accumulator and softmax state
// as fp32) and then by the partitions' merge weights; the partition's block ids follow it.
constexpr int kSplitKvMmaMaxWarps = 4;
constexpr int kSplitKvMmaMaxStages = 4;          // stages a warp's ring holds at most
constexpr int kSplitKvMmaRows = kKeyRowQueries;  // query heads a team takes (block_m)

KOKKOS_INLINE_FUNCTION std::size_t split_kv_mma_ring_bytes(int stages, int head_size, std::size_t element_bytes) {
  return std::size_t(stages) * 2 * kKeyRowTileKeys * std::size_t(fragment_tile_stride(head_size)) * element_bytes;
}
KOKKOS_INLINE_FUNCTION std::size_t split_kv_mma_region_bytes(int warps, int stages, int head_size, int num_partitions,
                                                             std::size_t element_bytes) {
  const std::size_t rings = std::size_t(warps) * split_kv_mma_ring_bytes(stages, head_size, element_bytes);
  const std::size_t warp_states = warps > 1 ? std::size_t(warps) * kKeyRowQueries * (head_size + 2) * sizeof(float) : 0;
  const std::size_t weights = num_partitions > 1 ? split_kv_merge_bytes(kKeyRowQueries, num_partitions) : 0;
  const std::size_t larger = rings > warp_states ? rings : warp_states;
  return larger > weights ? larger : weights;
}
inline std::size_t split_kv_mma_scratch_bytes(int warps, int stages, int partition_size, int block_size, int head_size,
                                              int num_partitions, std::size_t element_bytes) {
  return split_kv_mma_region_bytes(warps, stages, head_size, num_partitions, element_bytes) + 16 +
         scratch_array_bytes(std::size_t(partition_size) / std::size_t(block_size) + 2, sizeof(std::int32_t));
}
// The ring a warp gets with which `warps` warps fit in `limit` bytes of team scratch: up to
// kSplitKvMmaMaxStages tiles for a team of one warp, 2 for larger teams (the H100 ran 2-warp teams
// of 4 tiles a warp 1.14x slower on b8 4k than of 2), halved down to 2; 0 where none fits. The
// planner and the launch both ask it.
inline int split_kv_mma_stages(int warps, int partition_size, int block_size, int head_size, int num_partitions,
                               std::size_t element_bytes, std::size_t limit) {
  for (int stages = warps > 1 ? 2 : kSplitKvMmaMaxStages; stages >= 2; stages /= 2)
    if (split_kv_mma_scratch_bytes(warps, stages, partition_size, block_size, head_size, num_partitions,
                                   element_bytes) <= limit)
      return stages;
  return 0;
}

// Register-row Q-block kernel (QBlockMmaKernel): one K and one V tile of kFragmentTileKeys keys,
// or, double-buffered (`deep`), two K, three V (one read by a product in flight) and the Q rows
// (as many as a tile's keys), in buffers of one tile each, `align`-aligned (the warpgroup
// products' swizzle needs more than 16 bytes). Teams of several warpgroups (deep) take tiles of
// kFragmentTileKeys keys a warpgroup, and Q rows as many.
constexpr int kRegisterRowBuffers = 2, kRegisterRowDeepBuffers = 6;
inline std::size_t register_rows_scratch_bytes(int head_size, std::size_t element_bytes, std::size_t align,
                                               bool deep = false, int warpgroups = 1) {
  const std::size_t buffers = deep ? kRegisterRowDeepBuffers : kRegisterRowBuffers;
  const std::size_t tile_keys = std::size_t(kFragmentTileKeys) * std::size_t(deep ? warpgroups : 1);
  return buffers * tile_keys * std::size_t(fragment_tile_stride(head_size)) * element_bytes + align;
}

// Its warp-specialized team (a producer warpgroup beside two consumers, tiles of 128 keys): rings
// of kProducerKSlots K, kProducerVSlots V and kProducerQSlots Q buffers (a Q buffer holds both
// consumers' 64 Q rows, which then stage their output rows: a tile's size), the rings' barriers
// (two 8-byte words a slot) and a Q slot's work item for the consumers (kProducerItemBytes each).
// Six tiles at head 128 (204 KB) are what an SM's 227 KB take.
constexpr int kProducerKSlots = 2, kProducerVSlots = 2, kProducerQSlots = 2;
constexpr std::size_t kProducerBarrierBytes = 16 * (kProducerKSlots + kProducerVSlots + kProducerQSlots);
constexpr std::size_t kProducerItemBytes = 128;
inline std::size_t producer_rows_scratch_bytes(int head_size, std::size_t element_bytes, std::size_t align) {
  const std::size_t tile =
      2 * std::size_t(kFragmentTileKeys) * std::size_t(fragment_tile_stride(head_size)) * element_bytes;
  return (kProducerKSlots + kProducerVSlots + kProducerQSlots) * tile + kProducerBarrierBytes +
         kProducerQSlots * kProducerItemBytes + align;
}

// Baseline kernel: q and acc [head] fp32, scores [tile] fp32.
inline std::size_t baseline_scratch_bytes(int tile_size, int head_size) {
  return 2 * scratch_array_bytes(std::size_t(head_size), sizeof(float)) +
         scratch_array_bytes(std::size_t(tile_size), sizeof(float));
}

}  // namespace kattn
