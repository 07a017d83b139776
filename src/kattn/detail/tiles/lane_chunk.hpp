// A vector lane's slice of one key, value or query row: kLaneElements consecutive head elements,
// read with one wide load where the row allows it (16 bytes for 16-bit storage, the width that
// saturates GPU memory), converted to float. Rows of any head size work: the last lane of a row
// whose size is not a multiple of kLaneElements reads element by element and pads with zeros.
#pragma once

#include "kattn/core/storage_types.hpp"
#include "kattn/detail/shapes/tile_shapes.hpp"
#include "kattn/detail/tiles/paged_kv.hpp"

#include <cstdint>
#include <type_traits>

namespace kattn {

template <class Storage>
struct alignas(sizeof(Storage) * kLaneElements < 16 ? sizeof(Storage) * kLaneElements : 16) LaneChunk {
  Storage values[kLaneElements];
};

// True when every row of the cache (its base plus any multiple of its strides) is aligned for
// LaneChunk loads.
template <class Storage>
bool lane_chunks_aligned(const PagedKvAccessor<Storage>& cache) {
  const auto aligned = [](std::int64_t elements) { return elements % kLaneElements == 0; };
  return reinterpret_cast<std::uintptr_t>(cache.data) % alignof(LaneChunk<Storage>) == 0 &&
         aligned(cache.stride_block) && aligned(cache.stride_slot) && aligned(cache.stride_head);
}

// Storage to float for a lane's elements. On CUDA devices fp16 converts with the hardware
// instruction (exact, like fp16_to_float, in one instruction instead of a dozen): decode
// converts every K and V element it streams, and the software path made the split-KV kernel
// instruction-bound (Nsight Compute, H100, 2026-11-23: 45 % SM, 15 % DRAM throughput).
template <class Storage>
KOKKOS_INLINE_FUNCTION float lane_to_float(Storage value) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same<Storage, fp16_t>::value) {
    float result;
    asm("cvt.f32.f16 %0, %1;" : "=f"(result) : "h"(value.bits));
    return result;
  }
#endif
  return to_float(value);
}

template <class Storage>
KOKKOS_INLINE_FUNCTION void load_lane_chunk(const Storage* row, int lane, int head_size, bool aligned,
                                            float (&out)[kLaneElements]) {
  const int first = lane * kLaneElements;
  if (aligned && first + kLaneElements <= head_size) {
    const LaneChunk<Storage> chunk = *reinterpret_cast<const LaneChunk<Storage>*>(row + first);
    for (int e = 0; e < kLaneElements; ++e) out[e] = lane_to_float(chunk.values[e]);
  } else {
    for (int e = 0; e < kLaneElements; ++e) out[e] = first + e < head_size ? lane_to_float(row[first + e]) : 0.0f;
  }
}

}  // namespace kattn
