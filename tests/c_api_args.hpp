// The C API's arguments for a problem resident on the device: shared by the C API tests.
#pragma once

#include "kattn/c_api/kattn.h"
#include "kattn/harness/device_problem.hpp"

#include <algorithm>

namespace kattn::test {

inline std::int32_t dtype_code(DType dtype) {
  switch (dtype) {
    case DType::fp32:
      return KATTN_DTYPE_FP32;
    case DType::fp16:
      return KATTN_DTYPE_FP16;
    case DType::bf16:
      return KATTN_DTYPE_BF16;
    case DType::fp8_e4m3:
      return KATTN_DTYPE_FP8_E4M3;
  }
  return -1;
}

template <std::size_t Rank, class View>
void copy_strides(std::int64_t (&into)[Rank], const View& view) {
  for (std::size_t dim = 0; dim < Rank; ++dim) into[dim] = std::int64_t(view.stride(dim));
}

// The C arguments of a problem resident on the device; max_seqlen_q and max_seqlen_k exact.
template <class Q, class Cache, class Out>
kattn_attention_args args_of(const HostProblem& p, const DeviceProblem<Q, Cache, Out>& d) {
  const Geometry& g = p.geometry;
  kattn_attention_args a;
  kattn_attention_args_init(&a);
  a.q = d.inputs.q.data();
  a.q_dtype = dtype_code(p.dtype);
  a.num_tokens = g.num_tokens;
  a.num_q_heads = g.num_q_heads;
  a.head_size = g.head_size;
  copy_strides(a.q_strides, d.inputs.q);
  a.k_cache = d.inputs.k_cache.data();
  a.v_cache = d.inputs.v_cache.data();
  a.cache_dtype = dtype_code(p.kv_dtype());
  a.num_blocks = g.num_blocks;
  a.block_size = g.block_size;
  a.num_kv_heads = g.num_kv_heads;
  copy_strides(a.k_cache_strides, d.inputs.k_cache);
  copy_strides(a.v_cache_strides, d.inputs.v_cache);
  a.out = d.out.data();
  a.out_dtype = dtype_code(p.out_dtype());
  copy_strides(a.out_strides, d.out);
  a.cu_seqlens_q = d.inputs.cu_seqlens_q.data();
  a.seq_lens = d.inputs.seq_lens.data();
  a.num_seqs = g.num_seqs;
  for (int s = 0; s < g.num_seqs; ++s) {
    a.max_seqlen_q = std::max(a.max_seqlen_q, p.cu_seqlens_q[std::size_t(s) + 1] - p.cu_seqlens_q[std::size_t(s)]);
    a.max_seqlen_k = std::max(a.max_seqlen_k, p.seq_lens[std::size_t(s)]);
  }
  a.block_table = d.inputs.block_table.data();
  a.max_blocks_per_seq = g.max_blocks_per_seq;
  copy_strides(a.block_table_strides, d.inputs.block_table);
  a.softmax_scale = p.params.softmax_scale;
  a.causal = p.params.causal;
  a.window_left = p.params.window_left;
  a.window_right = p.params.causal && p.params.window_left >= 0 ? 0 : -1;  // what vLLM passes with a window
  a.softcap = p.params.softcap;
  a.k_descale = p.params.k_scale;
  a.v_descale = p.params.v_scale;
  a.output_scale = p.params.out_scale;
  a.alibi_slopes = d.inputs.alibi_slopes.extent(0) ? d.inputs.alibi_slopes.data() : nullptr;
  a.sinks = d.inputs.sinks.extent(0) ? d.inputs.sinks.data() : nullptr;
  return a;
}

}  // namespace kattn::test
