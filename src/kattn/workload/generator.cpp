#include "kattn/workload/generator.hpp"

#include "kattn/workload/random.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace kattn {
namespace {

// Uniform in [-range, range), rounded to the dtype.
void fill(std::vector<float>& values, std::mt19937_64& rng, float range, DType dtype) {
  for (float& x : values) {
    x = round_to_dtype(float((2.0 * unit_random(rng) - 1.0) * range), dtype);
  }
}

void add_features(HostProblem& p, const FeatureSpec& f, std::mt19937_64& rng) {
  const Geometry& g = p.geometry;
  p.params.window_left = f.window_left;
  p.fp8_kv_cache = f.fp8_kv_cache;
  p.fp8_out = f.fp8_out;
  p.params.k_scale = f.k_scale;
  p.params.v_scale = f.v_scale;
  p.params.out_scale = f.out_scale;
  p.params.softcap = f.softcap;
  for (int h = 0; f.alibi && h < g.num_q_heads; ++h)
    p.alibi_slopes.push_back(float(std::exp2(-8.0 * (h + 1) / g.num_q_heads)));
  for (int h = 0; f.sinks && h < g.num_q_heads; ++h) p.sinks.push_back(float(4.0 * unit_random(rng) - 2.0));
  for (int s = 0; f.prefix_lm && s < g.num_seqs; ++s)
    p.prefix_lens.push_back(uniform_int(rng, 0, p.seq_lens[std::size_t(s)]));
  if (f.qq_bias) {
    for (int s = 0; s < g.num_seqs; ++s)
      p.qq_bias_size = std::max(p.qq_bias_size, p.cu_seqlens_q[std::size_t(s) + 1] - p.cu_seqlens_q[std::size_t(s)]);
    p.qq_bias.resize(std::size_t(p.qq_bias_size) * p.qq_bias_size);
    for (float& x : p.qq_bias) x = float(2.0 * unit_random(rng) - 1.0);
  }
}

}  // namespace

HostProblem generate_batch(const BatchSpec& spec) {
  std::mt19937_64 rng(spec.seed);
  HostProblem p;
  p.dtype = spec.dtype;
  Geometry& g = p.geometry;
  g.num_q_heads = spec.model.num_q_heads;
  g.num_kv_heads = spec.model.num_kv_heads;
  g.head_size = spec.model.head_size;
  g.block_size = spec.block_size;
  g.num_seqs = int(spec.sequences.size());
  p.params.softmax_scale = 1.0 / std::sqrt(double(spec.model.head_size));
  p.params.causal = spec.causal;

  p.cu_seqlens_q.push_back(0);
  int total_blocks = 0;
  for (const SequenceShape& s : spec.sequences) {
    p.seq_lens.push_back(s.seq_len);
    p.cu_seqlens_q.push_back(p.cu_seqlens_q.back() + s.query_len);
    const int blocks = (s.seq_len + g.block_size - 1) / g.block_size;
    g.max_blocks_per_seq = std::max(g.max_blocks_per_seq, blocks);
    total_blocks += blocks;
  }
  g.max_blocks_per_seq = std::max(g.max_blocks_per_seq, 1);
  g.num_tokens = p.cu_seqlens_q.back();
  g.num_blocks = total_blocks + 1;  // one block no sequence uses, as a real cache has free blocks

  std::vector<std::int32_t> ids(std::size_t(g.num_blocks));
  std::iota(ids.begin(), ids.end(), 0);
  if (spec.permute_blocks)
    for (std::size_t i = ids.size(); i > 1; --i) std::swap(ids[i - 1], ids[rng() % i]);  // Fisher-Yates
  p.block_table.assign(std::size_t(g.num_seqs) * g.max_blocks_per_seq, 0);               // vLLM pads rows with 0
  std::size_t next = 0;
  for (int s = 0; s < g.num_seqs; ++s) {
    const int blocks = (p.seq_lens[std::size_t(s)] + g.block_size - 1) / g.block_size;
    for (int b = 0; b < blocks; ++b) p.block_table[std::size_t(s) * g.max_blocks_per_seq + b] = ids[next++];
  }

  add_features(p, spec.features, rng);
  if (!spec.with_values) return p;
  p.q.resize(std::size_t(g.q_elements()));
  p.k_cache.resize(std::size_t(g.cache_elements()));
  p.v_cache.resize(std::size_t(g.cache_elements()));
  fill(p.q, rng, 2.0f, p.dtype);  // wider than K so that the softmax is not flat
  fill(p.k_cache, rng, 1.0f, p.kv_dtype());
  fill(p.v_cache, rng, 1.0f, p.kv_dtype());
  return p;
}

BatchSpec draw_batch(const WorkloadSpec& spec) {
  std::mt19937_64 rng(spec.seed);
  BatchSpec batch;
  batch.model = spec.model;
  batch.dtype = spec.dtype;
  batch.block_size = spec.block_size;
  batch.permute_blocks = spec.permute_blocks;
  batch.causal = spec.causal;
  batch.seed = rng();
  batch.features = spec.features;
  const int num_decodes = int(std::lround(spec.decode_share * spec.batch_size));
  for (int s = 0; s < spec.batch_size; ++s) {
    SequenceShape shape;
    shape.seq_len = uniform_int(rng, spec.min_seq_len, spec.max_seq_len);
    shape.query_len = shape.seq_len;
    if (s < num_decodes)
      shape.query_len = 1;
    else if (spec.chunked_prefill)
      shape.query_len = shape.seq_len - uniform_int(rng, 0, shape.seq_len - 1);
    if (s >= num_decodes && spec.max_query_len > 0) shape.query_len = std::min(shape.query_len, spec.max_query_len);
    batch.sequences.push_back(shape);
  }
  return batch;
}

HostProblem generate_problem(const WorkloadSpec& spec) { return generate_batch(draw_batch(spec)); }

}  // namespace kattn
