// Workload specifications: what a scenario file (docs/scenarios.md) describes and what the
// seeded generator turns into problems.
#pragma once

#include "kattn/core/dtype.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kattn {

struct ModelGeometry {
  std::string name;
  int num_q_heads = 0;
  int num_kv_heads = 0;
  int head_size = 0;
};

// Known models by name: llama-3-8b (GQA 32/8 x 128), llama-2-7b (MHA 32/32 x 128),
// mqa-small (MQA 16/1 x 64), tiny (GQA 4/2 x 64, for quick tests).
ModelGeometry model_by_name(const std::string& name);

// Optional attention features of generated problems.
struct FeatureSpec {
  int window_left = -1;       // sliding window (-1 = none)
  float softcap = 0.0f;       // 0 = off
  bool alibi = false;         // standard ALiBi slopes 2^(-8 (h + 1) / num_q_heads)
  bool sinks = false;         // a sink logit per head, uniform in [-2, 2)
  bool prefix_lm = false;     // a prefix length per sequence, uniform in [0, seq_len]
  bool qq_bias = false;       // a bias matrix over the new tokens, uniform in [-1, 1)
  bool fp8_kv_cache = false;  // K and V in fp8 e4m3, dequantised by k_scale / v_scale
  bool fp8_out = false;       // out in fp8 e4m3, quantised by out_scale
  float k_scale = 1.0f;
  float v_scale = 1.0f;
  float out_scale = 1.0f;
};

struct WorkloadSpec {
  std::string name;
  ModelGeometry model;
  DType dtype = DType::fp16;
  int batch_size = 1;
  int min_seq_len = 1;  // sequence lengths are uniform in [min_seq_len, max_seq_len]
  int max_seq_len = 1;
  double decode_share = 0.0;     // fraction of sequences with query length 1 (placed first, as vLLM does)
  bool chunked_prefill = false;  // prefill sequences get a random cached context before their chunk
  int max_query_len = 0;         // cap on a prefill chunk (0 = none); the rest of the sequence is context
  int block_size = 16;
  bool permute_blocks = true;  // block ids are a random permutation instead of consecutive
  bool causal = true;
  std::uint64_t seed = 1;
  FeatureSpec features;
};

// Reads a scenario file: {"name": ..., "cases": [{...}, ...]}; a case's "dtypes" list expands it
// into one spec per dtype. Throws std::runtime_error naming the file and the bad field.
std::vector<WorkloadSpec> load_scenario(const std::string& path);

}  // namespace kattn
