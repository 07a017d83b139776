// Team-scratch budgets of the kernels, shared by the kernels (to request scratch) and the planner
// (to fit tiles into what the backend offers).
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/tiles/lane_chunk.hpp"

#include <cstddef>
#include <cstdint>

namespace kattn {

constexpr int kSplitKvMaxRows = 4;  // query heads per split-KV team: registers per lane grow with it

using FloatScratch = Kokkos::View<float*, ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
using IndexScratch = Kokkos::View<std::int32_t*, ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// Bytes of a scratch array of `count` elements of `element_bytes` each, alignment included.
inline std::size_t scratch_array_bytes(std::size_t count, std::size_t element_bytes) {
  return FloatScratch::shmem_size((count * element_bytes + sizeof(float) - 1) / sizeof(float));
}

// Q-block kernels: q and acc [block_m × head] fp32, scores [block_m × tile] fp32, row max / sum /
// alpha [block_m] fp32, K and V tiles [tile × head] in the storage type.
inline std::size_t qblock_scratch_bytes(int block_m, int tile_size, int head_size, std::size_t element_bytes) {
  return 2 * scratch_array_bytes(std::size_t(block_m) * head_size, sizeof(float)) +
         scratch_array_bytes(std::size_t(block_m) * tile_size, sizeof(float)) +
         3 * scratch_array_bytes(std::size_t(block_m), sizeof(float)) +
         2 * scratch_array_bytes(std::size_t(tile_size) * head_size, element_bytes);
}

// Split-KV kernel: keys a worker takes per step (its loads in flight per lane: two per key), and
// the lane chunks a lane holds in registers: one on GPUs (a lane per 8 head elements, up to 32
// lanes), the whole row on the host, whose vector length is 1. Head sizes up to 256 either way.
constexpr int kSplitKvStepKeys = 4;
constexpr int kSplitKvMaxThreads = 256;  // workers × lanes of a team (the kernel's launch bound)
template <class Space>
constexpr int kSplitKvLaneChunks = Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible ? 32 : 1;
constexpr int kSplitKvMaxHead = 256;

// Floats of the split-KV merge area: the workers' outputs [workers × rows × head], reused for the
// weights of the partition merge.
KOKKOS_INLINE_FUNCTION std::size_t split_kv_merge_floats(int workers, int head_size, int num_partitions) {
  const std::size_t outputs = std::size_t(workers) * kSplitKvMaxRows * head_size;
  return outputs > std::size_t(num_partitions) ? outputs : std::size_t(num_partitions);
}

// Split-KV kernel: the partition's block ids (a partition may start inside a block), the workers'
// max and sum [workers × rows] and the merge area.
inline std::size_t split_kv_scratch_bytes(int partition_size, int block_size, int head_size, int workers,
                                          int num_partitions) {
  return scratch_array_bytes(std::size_t(partition_size / block_size) + 2, sizeof(std::int32_t)) +
         2 * scratch_array_bytes(std::size_t(workers) * kSplitKvMaxRows, sizeof(float)) +
         scratch_array_bytes(split_kv_merge_floats(workers, head_size, num_partitions), sizeof(float));
}

// Baseline kernel: q and acc [head] fp32, scores [tile] fp32.
inline std::size_t baseline_scratch_bytes(int tile_size, int head_size) {
  return 2 * scratch_array_bytes(std::size_t(head_size), sizeof(float)) +
         scratch_array_bytes(std::size_t(tile_size), sizeof(float));
}

}  // namespace kattn
