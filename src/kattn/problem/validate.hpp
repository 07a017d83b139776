// Validation at the API boundary. Each failure throws InvalidProblem naming the field and value.
#pragma once

#include "kattn/problem/attention_params.hpp"
#include "kattn/problem/geometry.hpp"
#include "kattn/problem/host_problem.hpp"

#include <cstdint>

namespace kattn {

// Element strides of a paged KV cache [num_blocks, block_size, num_kv_heads, head_size]; the
// head dimension is contiguous. vLLM's caches can be strided views of a larger tensor.
struct KvCacheStrides {
  std::int64_t block = 0;
  std::int64_t slot = 0;
  std::int64_t head = 0;

  static KvCacheStrides contiguous(const Geometry& g) {
    return {std::int64_t(g.block_size) * g.num_kv_heads * g.head_size, std::int64_t(g.num_kv_heads) * g.head_size,
            g.head_size};
  }
};

// Host copies of the batch index tensors, laid out as in HostProblem.
struct BatchIndexHost {
  const std::int32_t* block_table;            // [num_seqs, max_blocks_per_seq], or null: not checked
  const std::int32_t* cu_seqlens_q;           // [num_seqs + 1]
  const std::int32_t* seq_lens;               // [num_seqs]
  const std::int32_t* prefix_lens = nullptr;  // [num_seqs] or null
  int qq_bias_size = -1;                      // side of the qq-bias matrix, or -1 for none
};

void validate_geometry(const Geometry& g);
void validate_params(const AttentionParams& params);
// Per-head feature tensors: `count` entries (0 = absent) must be num_q_heads finite values
// (values == nullptr checks the count alone).
void validate_head_values(const Geometry& g, const float* values, std::size_t count, const char* name);
// The qq-bias matrix: `count` finite values.
void validate_qq_bias_values(const float* values, std::size_t count);
// `allocation` is the number of elements behind the cache pointer.
void validate_kv_cache(const Geometry& g, const KvCacheStrides& strides, std::int64_t allocation, const char* name);
void validate_batch_index(const Geometry& g, const BatchIndexHost& index);

// All of the above plus the sizes of the host tensors.
void validate(const HostProblem& problem);

}  // namespace kattn
