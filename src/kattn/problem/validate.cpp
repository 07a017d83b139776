#include "kattn/problem/validate.hpp"

#include "kattn/core/error.hpp"

#include <cmath>
#include <string>

namespace kattn {
namespace {

std::string indexed(const char* name, std::int64_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

void require_positive(const char* field, std::int64_t value) {
  if (value <= 0) throw InvalidProblem(field, "must be positive, got " + std::to_string(value));
}

void require_finite_positive(const std::string& field, double value) {
  if (!std::isfinite(value) || value <= 0.0)
    throw InvalidProblem(field, "must be finite and positive, got " + std::to_string(value));
}

}  // namespace

void validate_geometry(const Geometry& g) {
  if (g.num_tokens < 0) throw InvalidProblem("num_tokens", "must not be negative, got " + std::to_string(g.num_tokens));
  require_positive("num_q_heads", g.num_q_heads);
  require_positive("num_kv_heads", g.num_kv_heads);
  require_positive("head_size", g.head_size);
  require_positive("num_blocks", g.num_blocks);
  require_positive("block_size", g.block_size);
  require_positive("num_seqs", g.num_seqs);
  require_positive("max_blocks_per_seq", g.max_blocks_per_seq);
  if (g.num_q_heads % g.num_kv_heads != 0)
    throw InvalidProblem("num_q_heads", std::to_string(g.num_q_heads) + " is not a multiple of num_kv_heads " +
                                            std::to_string(g.num_kv_heads));
}

void validate_params(const AttentionParams& p) {
  require_finite_positive("softmax_scale", p.softmax_scale);
  if (p.window_left < -1)
    throw InvalidProblem("window_left", "must be -1 (no window) or >= 0, got " + std::to_string(p.window_left));
  if (!std::isfinite(p.softcap) || p.softcap < 0.0f)
    throw InvalidProblem("softcap", "must be 0 (off) or finite and positive, got " + std::to_string(p.softcap));
  require_finite_positive("k_scale", p.k_scale);
  require_finite_positive("v_scale", p.v_scale);
  require_finite_positive("out_scale", p.out_scale);
}

void validate_head_values(const Geometry& g, const float* values, std::size_t count, const char* name) {
  if (count == 0) return;
  if (count != std::size_t(g.num_q_heads))
    throw InvalidProblem(
        name, "has " + std::to_string(count) + " entries, expected num_q_heads = " + std::to_string(g.num_q_heads));
  for (std::size_t h = 0; values && h < count; ++h)
    if (!std::isfinite(values[h]))
      throw InvalidProblem(indexed(name, std::int64_t(h)), "must be finite, got " + std::to_string(values[h]));
}

void validate_qq_bias_values(const float* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (!std::isfinite(values[i])) throw InvalidProblem("qq_bias", "holds a non-finite value");
}

void validate_kv_cache(const Geometry& g, const KvCacheStrides& s, std::int64_t allocation, const char* name) {
  const std::string field(name);
  if (s.head < g.head_size)
    throw InvalidProblem(field + ".stride_head", std::to_string(s.head) + " is smaller than head_size " +
                                                     std::to_string(g.head_size) + " (heads would overlap)");
  if (s.slot < s.head * g.num_kv_heads)
    throw InvalidProblem(field + ".stride_slot", std::to_string(s.slot) +
                                                     " is smaller than num_kv_heads × stride_head = " +
                                                     std::to_string(s.head * g.num_kv_heads));
  if (s.block < s.slot * g.block_size)
    throw InvalidProblem(field + ".stride_block",
                         std::to_string(s.block) +
                             " is smaller than block_size × stride_slot = " + std::to_string(s.slot * g.block_size));
  const std::int64_t last =
      s.block * (g.num_blocks - 1) + s.slot * (g.block_size - 1) + s.head * (g.num_kv_heads - 1) + g.head_size;
  if (last > allocation)
    throw InvalidProblem(field, "needs " + std::to_string(last) + " elements for its shape and strides but holds " +
                                    std::to_string(allocation));
}

void validate_batch_index(const Geometry& g, const BatchIndexHost& index) {
  if (index.cu_seqlens_q[0] != 0)
    throw InvalidProblem("cu_seqlens_q[0]", "must be 0, got " + std::to_string(index.cu_seqlens_q[0]));
  for (int s = 0; s < g.num_seqs; ++s) {
    const std::int32_t begin = index.cu_seqlens_q[s];
    const std::int32_t end = index.cu_seqlens_q[s + 1];
    if (end < begin)
      throw InvalidProblem(indexed("cu_seqlens_q", s + 1), std::to_string(end) + " is smaller than cu_seqlens_q[" +
                                                               std::to_string(s) + "] = " + std::to_string(begin) +
                                                               " (must be non-decreasing)");
    const std::int32_t query_len = end - begin;
    const std::int32_t seq_len = index.seq_lens[s];
    if (seq_len < query_len)
      throw InvalidProblem(indexed("seq_lens", s),
                           std::to_string(seq_len) + " is smaller than its query length " + std::to_string(query_len));
    const std::int64_t capacity = std::int64_t(g.max_blocks_per_seq) * g.block_size;
    if (seq_len > capacity)
      throw InvalidProblem(
          indexed("seq_lens", s),
          std::to_string(seq_len) + " exceeds max_blocks_per_seq × block_size = " + std::to_string(capacity));
    if (index.prefix_lens && (index.prefix_lens[s] < 0 || index.prefix_lens[s] > seq_len))
      throw InvalidProblem(indexed("prefix_lens", s), std::to_string(index.prefix_lens[s]) +
                                                          " is outside [0, seq_len = " + std::to_string(seq_len) + "]");
    if (index.qq_bias_size >= 0 && query_len > index.qq_bias_size)
      throw InvalidProblem("qq_bias", "is " + std::to_string(index.qq_bias_size) + " × " +
                                          std::to_string(index.qq_bias_size) + " but sequence " + std::to_string(s) +
                                          " has " + std::to_string(query_len) + " query tokens");
    // Only the blocks a sequence uses must be valid; vLLM pads the rest of a row.
    const int used_blocks = index.block_table ? (seq_len + g.block_size - 1) / g.block_size : 0;
    for (int b = 0; b < used_blocks; ++b) {
      const std::int32_t block = index.block_table[std::int64_t(s) * g.max_blocks_per_seq + b];
      if (block < 0 || block >= g.num_blocks)
        throw InvalidProblem(
            "block_table[" + std::to_string(s) + "][" + std::to_string(b) + "]",
            "block id " + std::to_string(block) + " is outside [0, num_blocks = " + std::to_string(g.num_blocks) + ")");
    }
  }
  if (index.cu_seqlens_q[g.num_seqs] != g.num_tokens)
    throw InvalidProblem(
        indexed("cu_seqlens_q", g.num_seqs),
        std::to_string(index.cu_seqlens_q[g.num_seqs]) + " differs from num_tokens = " + std::to_string(g.num_tokens));
}

void validate(const HostProblem& p) {
  const Geometry& g = p.geometry;
  if (p.dtype == DType::fp8_e4m3) throw InvalidProblem("dtype", "q cannot be fp8_e4m3 (only the cache and out can)");
  validate_geometry(g);
  validate_params(p.params);
  auto require_size = [](const char* field, std::size_t actual, std::int64_t expected) {
    if (std::int64_t(actual) != expected)
      throw InvalidProblem(field,
                           "has " + std::to_string(actual) + " elements, its shape needs " + std::to_string(expected));
  };
  require_size("q", p.q.size(), g.q_elements());
  require_size("k_cache", p.k_cache.size(), g.cache_elements());
  require_size("v_cache", p.v_cache.size(), g.cache_elements());
  require_size("block_table", p.block_table.size(), std::int64_t(g.num_seqs) * g.max_blocks_per_seq);
  require_size("cu_seqlens_q", p.cu_seqlens_q.size(), std::int64_t(g.num_seqs) + 1);
  require_size("seq_lens", p.seq_lens.size(), g.num_seqs);
  validate_head_values(g, p.alibi_slopes.data(), p.alibi_slopes.size(), "alibi_slopes");
  validate_head_values(g, p.sinks.data(), p.sinks.size(), "sinks");
  if (!p.prefix_lens.empty()) require_size("prefix_lens", p.prefix_lens.size(), g.num_seqs);
  if (p.qq_bias_size < 0) throw InvalidProblem("qq_bias_size", "must not be negative");
  require_size("qq_bias", p.qq_bias.size(), std::int64_t(p.qq_bias_size) * p.qq_bias_size);
  validate_qq_bias_values(p.qq_bias.data(), p.qq_bias.size());
  validate_batch_index(
      g, {p.block_table.data(), p.cu_seqlens_q.data(), p.seq_lens.data(),
          p.prefix_lens.empty() ? nullptr : p.prefix_lens.data(), p.qq_bias.empty() ? -1 : p.qq_bias_size});
}

}  // namespace kattn
