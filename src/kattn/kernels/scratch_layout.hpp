// Team-scratch budgets of the kernels, shared by the kernels (to request scratch) and the planner
// (to fit tiles into what the backend offers).
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/tiles/lane_chunk.hpp"

#include <cstddef>
#include <cstdint>

namespace kattn {

constexpr int kSplitKvMaxRows = 4;  // query heads per split-KV team: registers per lane grow with it
                                    // (8 rows: 122 registers and 8-15 % slower decode on the H100)

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

// Split-KV kernel: q [kSplitKvMaxRows × head padded to whole lanes], scores [rows × partition],
// row max / sum / alpha, acc [rows × head], all fp32; the block ids of a partition (at most one
// per key, plus one where the partition starts inside a block).
inline std::size_t split_kv_scratch_bytes(int partition_size, int head_size) {
  const std::size_t rows = kSplitKvMaxRows;
  return scratch_array_bytes(rows * std::size_t(lanes_for(head_size)) * kLaneElements, sizeof(float)) +
         scratch_array_bytes(rows * std::size_t(partition_size), sizeof(float)) +
         3 * scratch_array_bytes(rows, sizeof(float)) + scratch_array_bytes(rows * std::size_t(head_size), sizeof(float)) +
         scratch_array_bytes(std::size_t(partition_size) + 1, sizeof(std::int32_t));
}

// Baseline kernel: q and acc [head] fp32, scores [tile] fp32.
inline std::size_t baseline_scratch_bytes(int tile_size, int head_size) {
  return 2 * scratch_array_bytes(std::size_t(head_size), sizeof(float)) +
         scratch_array_bytes(std::size_t(tile_size), sizeof(float));
}

}  // namespace kattn
