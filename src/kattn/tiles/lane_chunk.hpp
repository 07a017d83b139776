// A vector lane's slice of one key, value or query row: kLaneElements consecutive head elements,
// read with one wide load where the row allows it (16 bytes for 16-bit storage, the width that
// saturates GPU memory), converted to float. Rows of any head size work: the last lane of a row
// whose size is not a multiple of kLaneElements reads element by element and pads with zeros.
#pragma once

#include "kattn/core/storage_types.hpp"

#include <cstdint>

namespace kattn {

constexpr int kLaneElements = 8;

template <class Storage>
struct alignas(sizeof(Storage) * kLaneElements < 16 ? sizeof(Storage) * kLaneElements : 16) LaneChunk {
  Storage values[kLaneElements];
};

// Lanes that cover a row of head_size elements.
KOKKOS_INLINE_FUNCTION int lanes_for(int head_size) { return (head_size + kLaneElements - 1) / kLaneElements; }

// True when every row start (base + any multiple of the strides) is aligned for LaneChunk loads.
template <class Storage>
bool lane_chunks_aligned(const Storage* base, std::int64_t stride_block, std::int64_t stride_slot,
                         std::int64_t stride_head) {
  const auto aligned = [](std::int64_t elements) { return elements % kLaneElements == 0; };
  return reinterpret_cast<std::uintptr_t>(base) % alignof(LaneChunk<Storage>) == 0 && aligned(stride_block) &&
         aligned(stride_slot) && aligned(stride_head);
}

template <class Storage>
KOKKOS_INLINE_FUNCTION void load_lane_chunk(const Storage* row, int lane, int head_size, bool aligned,
                                            float (&out)[kLaneElements]) {
  const int first = lane * kLaneElements;
  if (aligned && first + kLaneElements <= head_size) {
    const LaneChunk<Storage> chunk = *reinterpret_cast<const LaneChunk<Storage>*>(row + first);
    for (int e = 0; e < kLaneElements; ++e) out[e] = to_float(chunk.values[e]);
  } else {
    for (int e = 0; e < kLaneElements; ++e) out[e] = first + e < head_size ? to_float(row[first + e]) : 0.0f;
  }
}

}  // namespace kattn
