// The C arguments checked and wrapped into unmanaged Views, for kattn_unified_attention and the
// plan functions. The checks here cover what the Views cannot express (pointers, strides of
// q/out/block_table, dtype codes, vLLM's window and max lengths); the C++ API checks the rest.
#pragma once

#include "kattn/c_api/kattn.h"
#include "kattn/core/dtype.hpp"
#include "kattn/problem/attention_inputs.hpp"
#include "kattn/problem/attention_params.hpp"

#include <cstdint>

namespace kattn::c_api {

struct Storage {
  DType q, cache, out;
};

// *args, once it is non-NULL and of this header's struct_size.
const kattn_attention_args& checked_args(const kattn_attention_args* args);
// Known codes, q not fp8, the cache and out q's type or fp8.
Storage check_dtypes(const kattn_attention_args& a);
// Shapes >= 0 (the Views' rule; the C++ API applies the geometry's).
void check_counts(const kattn_attention_args& a);
// A tensor with elements has a pointer.
void check_pointers(const kattn_attention_args& a);
// q, out and block_table contiguous, cache strides >= 0.
void check_strides(const kattn_attention_args& a);
// The scalars as AttentionParams (q_descale folded into the scale, vLLM's ALiBi origin);
// window_right checked.
AttentionParams params_of(const kattn_attention_args& a);
// max_seqlen_q and max_seqlen_k >= 0, and num_tokens splits into num_seqs queries of at most
// max_seqlen_q tokens: else the bounds hold for no batch.
void check_bounds(const kattn_attention_args& a);
// The counts as the C++ API's Geometry.
Geometry geometry_of(const kattn_attention_args& a);
// max_seqlen_q and max_seqlen_k hold for host copies of cu_seqlens_q and seq_lens.
void check_max_lengths(const kattn_attention_args& a, const std::int32_t* cu_seqlens_q, const std::int32_t* seq_lens);

template <class Q, class Cache>
AttentionInputs<Q, Cache> inputs_of(const kattn_attention_args& a) {
  using CacheView = decltype(AttentionInputs<Q, Cache>::k_cache);
  const auto cache_view = [&a](const void* data, const std::int64_t(&s)[4]) {
    return CacheView(static_cast<const Cache*>(data), Kokkos::LayoutStride(a.num_blocks, s[0], a.block_size, s[1],
                                                                           a.num_kv_heads, s[2], a.head_size, s[3]));
  };
  using PerHead = decltype(AttentionInputs<Q, Cache>::alibi_slopes);
  const auto per_head = [&a](const float* data) { return data ? PerHead(data, a.num_q_heads) : PerHead(); };
  AttentionInputs<Q, Cache> in;
  in.q = decltype(in.q)(static_cast<const Q*>(a.q), a.num_tokens, a.num_q_heads, a.head_size);
  in.k_cache = cache_view(a.k_cache, a.k_cache_strides);
  in.v_cache = cache_view(a.v_cache, a.v_cache_strides);
  in.block_table = decltype(in.block_table)(a.block_table, a.num_seqs, a.max_blocks_per_seq);
  in.cu_seqlens_q = decltype(in.cu_seqlens_q)(a.cu_seqlens_q, std::size_t(a.num_seqs) + 1);
  in.seq_lens = decltype(in.seq_lens)(a.seq_lens, a.num_seqs);
  in.alibi_slopes = per_head(a.alibi_slopes);
  in.sinks = per_head(a.sinks);
  return in;
}

template <class Out>
AttentionOutput<Out> output_of(const kattn_attention_args& a) {
  return AttentionOutput<Out>(static_cast<Out*>(a.out), a.num_tokens, a.num_q_heads, a.head_size);
}

}  // namespace kattn::c_api
