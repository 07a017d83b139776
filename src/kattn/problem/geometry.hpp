// Sizes of one paged-attention batch (vLLM layout).
#pragma once

#include <cstdint>

namespace kattn {

struct Geometry {
  int num_tokens = 0;  // total query tokens of the batch
  int num_q_heads = 0;
  int num_kv_heads = 0;
  int head_size = 0;
  int num_blocks = 0;  // KV-cache blocks in the cache (not only those in use)
  int block_size = 0;  // tokens per KV-cache block
  int num_seqs = 0;
  int max_blocks_per_seq = 0;  // columns of the block table

  int queries_per_kv() const { return num_kv_heads > 0 ? num_q_heads / num_kv_heads : 0; }
  std::int64_t q_elements() const { return std::int64_t(num_tokens) * num_q_heads * head_size; }
  std::int64_t cache_elements() const { return std::int64_t(num_blocks) * block_size * num_kv_heads * head_size; }
};

}  // namespace kattn
