// Address arithmetic of a paged KV cache [num_blocks, block_size, num_kv_heads, head_size] with
// arbitrary element strides. Offsets are int64: a cache can exceed 2^31 elements.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kattn {

template <class Storage>
struct PagedKvAccessor {
  const Storage* data = nullptr;
  std::int64_t stride_block = 0;
  std::int64_t stride_slot = 0;
  std::int64_t stride_head = 0;

  // The head_size contiguous elements of one key or value.
  KOKKOS_INLINE_FUNCTION const Storage* row(std::int32_t block, int slot, int kv_head) const {
    return data + std::int64_t(block) * stride_block + std::int64_t(slot) * stride_slot +
           std::int64_t(kv_head) * stride_head;
  }
};

}  // namespace kattn
