// Device-resident inputs of one attention call, as Kokkos Views with explicit layouts.
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/problem/geometry.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kattn {

// Q is the storage type of q (float, fp16_t or bf16_t); Cache that of the KV cache (Q or
// fp8_e4m3_t).
template <class Q, class Cache = Q, class Memory = MemorySpace>
struct AttentionInputs {
  using memory_space = Memory;
  template <class T>
  using Vector = Kokkos::View<T, Kokkos::LayoutRight, Memory>;

  Vector<const Q***> q;  // [num_tokens, num_q_heads, head_size]
  // [num_blocks, block_size, num_kv_heads, head_size]; strided views of a larger tensor are fine
  // as long as the head dimension is contiguous.
  Kokkos::View<const Cache****, Kokkos::LayoutStride, Memory> k_cache;
  Kokkos::View<const Cache****, Kokkos::LayoutStride, Memory> v_cache;
  Vector<const std::int32_t**> block_table;  // [num_seqs, max_blocks_per_seq]
  Vector<const std::int32_t*> cu_seqlens_q;  // [num_seqs + 1]
  Vector<const std::int32_t*> seq_lens;      // [num_seqs]
  // Optional feature tensors; an empty view (extent 0) turns the feature off.
  Vector<const float*> alibi_slopes;        // [num_q_heads]
  Vector<const float*> sinks;               // [num_q_heads]
  Vector<const std::int32_t*> prefix_lens;  // [num_seqs]
  Vector<const float**> qq_bias;            // [n, n], n >= the longest query

  Geometry geometry() const {
    Geometry g;
    g.num_tokens = int(q.extent(0));
    g.num_q_heads = int(q.extent(1));
    g.head_size = int(q.extent(2));
    g.num_blocks = int(k_cache.extent(0));
    g.block_size = int(k_cache.extent(1));
    g.num_kv_heads = int(k_cache.extent(2));
    g.num_seqs = int(seq_lens.extent(0));
    g.max_blocks_per_seq = int(block_table.extent(1));
    return g;
  }
};

// [num_tokens, num_q_heads, head_size]; Out is Q or fp8_e4m3_t.
template <class Out, class Memory = MemorySpace>
using AttentionOutput = Kokkos::View<Out***, Kokkos::LayoutRight, Memory>;

}  // namespace kattn
