// A whole problem in host memory: what references, the CLI and the tests pass around.
// Tensor values are stored as float but are exactly representable in `dtype`.
#pragma once

#include "kattn/core/dtype.hpp"
#include "kattn/problem/attention_params.hpp"
#include "kattn/problem/geometry.hpp"

#include <cstdint>
#include <vector>

namespace kattn {

struct HostProblem {
  DType dtype = DType::fp32;  // q, and the cache and out unless these are fp8
  bool fp8_kv_cache = false;  // K and V stored as fp8 e4m3 (dequantised with params.k_scale / v_scale)
  bool fp8_out = false;       // out stored as fp8 e4m3 (out / params.out_scale, clamped to ±448)
  Geometry geometry;
  AttentionParams params;
  std::vector<float> q;                    // [num_tokens, num_q_heads, head_size]
  std::vector<float> k_cache;              // [num_blocks, block_size, num_kv_heads, head_size], exact in kv_dtype
  std::vector<float> v_cache;              // [num_blocks, block_size, num_kv_heads, head_size]
  std::vector<std::int32_t> block_table;   // [num_seqs, max_blocks_per_seq]
  std::vector<std::int32_t> cu_seqlens_q;  // [num_seqs + 1], cu_seqlens_q[0] = 0
  std::vector<std::int32_t> seq_lens;      // [num_seqs], context + query length
  // Optional feature tensors (empty = off).
  std::vector<float> alibi_slopes;        // [num_q_heads]: logit + slope * (key position - params.alibi_origin)
  std::vector<float> sinks;               // [num_q_heads]: a per-head logit in every row's denominator
  std::vector<std::int32_t> prefix_lens;  // [num_seqs]: prefix-LM, bidirectional over the first prefix_lens[s] tokens
  std::vector<float> qq_bias;             // [qq_bias_size, qq_bias_size]: bias between new query tokens
  int qq_bias_size = 0;

  DType kv_dtype() const { return fp8_kv_cache ? DType::fp8_e4m3 : dtype; }
  DType out_dtype() const { return fp8_out ? DType::fp8_e4m3 : dtype; }
};

}  // namespace kattn
