// Seeded random problems over every feature and edge case, shared by the kernel tests and the
// differential campaign. The same seed gives the same problem everywhere.
#pragma once

#include "kattn/tuning/launch_plan.hpp"
#include "kattn/workload/generator.hpp"

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace kattn::test {

struct RandomSizes {
  int max_seqs = 4;
  int max_seq_len = 90;
};

// A valid problem: random geometry (GQA/MQA/MHA, ratios 3, 5 and 7 among them, head sizes
// 32-256), dtype, block size (1..544, powers of 2 or not), batch shape (decodes, prefills with
// and without context, empty contexts, sequences with no new tokens), and features (window,
// softcap, ALiBi, sinks, prefix-LM, qq-bias, non-causal, fp8 cache and output with scales).
inline HostProblem random_problem(std::uint64_t seed, const RandomSizes& sizes = {}) {
  std::mt19937_64 rng(seed);
  auto pick = [&rng](int n) { return int(rng() % std::uint64_t(n)); };
  BatchSpec spec;
  const int kv_heads = 1 + pick(2);
  spec.model = {"random", kv_heads * std::vector<int>{1, 2, 3, 4, 5, 7, 8}[std::size_t(pick(7))], kv_heads,
                std::vector<int>{32, 64, 80, 96, 112, 128, 192, 256}[std::size_t(pick(8))]};
  spec.dtype = std::vector<DType>{DType::fp32, DType::fp16, DType::bf16}[std::size_t(pick(3))];
  spec.block_size = std::vector<int>{1, 3, 5, 16, 32, 544}[std::size_t(pick(6))];
  spec.causal = pick(4) != 0;
  spec.permute_blocks = pick(4) != 0;
  spec.seed = seed;
  spec.features.fp8_kv_cache = pick(3) == 0;
  spec.features.k_scale = spec.features.fp8_kv_cache ? 0.25f * float(1 + pick(8)) : 1.0f;
  spec.features.v_scale = spec.features.fp8_kv_cache ? 0.25f * float(1 + pick(8)) : 1.0f;
  spec.features.fp8_out = pick(4) == 0;
  spec.features.out_scale = spec.features.fp8_out ? 0.005f * float(1 + pick(8)) : 1.0f;
  spec.features.window_left = pick(2) ? pick(40) : -1;
  spec.features.softcap = pick(2) ? 2.0f + float(pick(30)) : 0.0f;
  spec.features.alibi = pick(2);
  spec.features.sinks = pick(2);
  spec.features.prefix_lm = pick(2);
  spec.features.qq_bias = pick(2);
  const int num_seqs = 1 + pick(sizes.max_seqs);
  for (int s = 0; s < num_seqs; ++s) {
    const int seq_len = 1 + pick(sizes.max_seq_len);
    int query_len;
    switch (pick(5)) {
      case 0:
        query_len = 1;
        break;  // decode
      case 1:
        query_len = seq_len;
        break;  // prefill, empty context
      case 2:
        query_len = 0;
        break;  // no new tokens
      default:
        query_len = 1 + pick(seq_len);
        break;  // chunked prefill with context
    }
    spec.sequences.push_back({seq_len, query_len});
  }
  return generate_batch(spec);
}

// The shapes and features of vLLM's Triton unified-attention tests
// (tests/kernels/attention/test_triton_unified_attention.py): heads (4, 4), (8, 2), (5, 1) and
// the other pairs of GQA ratio 5 and 7, head sizes 128 and 256, block size 16, sliding windows 64,
// 128 and 256 (window_left = window - 1) or one drawn from [64, 256], softcap 50, bf16; bf16 q
// with an fp8 cache at k_scale 0.5, v_scale 0.25; fp16 q with an fp8 output at out_scale 0.5.
// The batch is one of its lists of (query_len, seq_len), or two of them in a random order: a
// mixed batch, its 3 decodes, 533 decodes of one key, `prefills` prefills of 533 tokens (vLLM's list
// holds 533 of them).
inline HostProblem vllm_problem(std::uint64_t seed, int prefills = 1) {
  std::mt19937_64 rng(seed);
  auto pick = [&rng](int n) { return int(rng() % std::uint64_t(n)); };
  const std::vector<std::pair<int, int>> heads = {{4, 4}, {8, 2}, {5, 1}, {10, 2}, {7, 1}, {14, 2}};
  const std::pair<int, int> h = heads[std::size_t(pick(int(heads.size())))];
  BatchSpec spec;
  spec.model = {"vllm", h.first, h.second, pick(2) ? 256 : 128};
  spec.block_size = 16;
  spec.seed = seed;
  spec.dtype = DType::bf16;
  switch (pick(3)) {
    case 0:
      break;
    case 1:
      spec.features.fp8_kv_cache = true;
      spec.features.k_scale = 0.5f;
      spec.features.v_scale = 0.25f;
      break;
    default:
      spec.dtype = DType::fp16;
      spec.features.fp8_out = true;
      spec.features.out_scale = 0.5f;
  }
  const int windows[] = {-1, 64, 128, 256, 64 + pick(193)};
  const int window = windows[pick(5)];
  spec.features.window_left = window < 0 ? -1 : window - 1;
  spec.features.softcap = pick(2) ? 50.0f : 0.0f;
  const std::vector<std::vector<SequenceShape>> lists = {{{1328, 1}, {18, 5}, {463, 129}},
                                                         {{523, 1}, {37, 1}, {2011, 1}},
                                                         std::vector<SequenceShape>(533, {1, 1}),
                                                         std::vector<SequenceShape>(std::size_t(prefills), {533, 533})};
  const int first = pick(4);
  spec.sequences = lists[std::size_t(first)];
  if (pick(4) == 0) {  // a second list, before or after the first
    const auto& other = lists[std::size_t((first + 1 + pick(3)) % 4)];
    spec.sequences.insert(pick(2) ? spec.sequences.end() : spec.sequences.begin(), other.begin(), other.end());
  }
  return generate_batch(spec);
}

// Random but valid launch options: variant, tile size, Q-block rows, segments, static grid size.
inline AttentionOptions random_options(std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5eedull);
  auto pick = [&rng](int n) { return int(rng() % std::uint64_t(n)); };
  const std::vector<Variant> variants = all_variants();
  AttentionOptions options;
  options.variant = variants[std::size_t(pick(int(variants.size())))];
  options.tile_size = 1 + pick(64);
  options.block_m = 1 + pick(32);
  options.num_segments = 1 + pick(16);
  if (pick(2)) options.grid_teams = 1 + pick(8);
  return options;
}

}  // namespace kattn::test
