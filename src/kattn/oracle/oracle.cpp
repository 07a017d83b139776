#include "kattn/oracle/oracle.hpp"

#include "kattn/core/error.hpp"
#include "kattn/problem/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kattn {
namespace {

// Dense attention in double; with `same_precision`, each softmax weight exp(s - max) is rounded to
// q's type before the P·V product and the output to its type (same_precision_reference).
std::vector<double> dense_attention(const HostProblem& p, bool same_precision) {
  validate(p);

  const Geometry& g = p.geometry;
  const int D = g.head_size;
  std::vector<double> out(std::size_t(g.q_elements()), 0.0);

  // Address of key/value `position` of sequence `s`, head `kv_head`, through the block table.
  auto cache_index = [&](int s, int position, int kv_head) {
    const std::int32_t block = p.block_table[std::size_t(s) * g.max_blocks_per_seq + position / g.block_size];
    const int slot = position % g.block_size;
    return ((std::int64_t(block) * g.block_size + slot) * g.num_kv_heads + kv_head) * D;
  };

  std::vector<double> scores;
  std::vector<int> keys;
  for (int s = 0; s < g.num_seqs; ++s) {
    const int first_token = p.cu_seqlens_q[s];
    const int query_len = p.cu_seqlens_q[s + 1] - first_token;
    const int seq_len = p.seq_lens[s];
    const int context_len = seq_len - query_len;
    const int prefix_len = p.prefix_lens.empty() ? 0 : p.prefix_lens[s];
    for (int i = 0; i < query_len; ++i) {
      const int token = first_token + i;
      const int position = context_len + i;  // absolute position of this query token
      const int alibi_origin = p.params.alibi_origin == AlibiOrigin::context_length ? context_len : position;
      keys.clear();
      for (int j = 0; j < seq_len; ++j) {
        const bool causal_ok = !p.params.causal || j <= position || j < prefix_len;  // prefix-LM: bidirectional prefix
        const bool window_ok = p.params.window_left < 0 || position - j <= p.params.window_left;
        if (causal_ok && window_ok) keys.push_back(j);
      }
      for (int h = 0; h < g.num_q_heads; ++h) {
        const int kv_head = h / g.queries_per_kv();
        const float* q = &p.q[(std::size_t(token) * g.num_q_heads + h) * D];
        scores.assign(keys.size(), 0.0);
        for (std::size_t n = 0; n < keys.size(); ++n) {
          const int j = keys[n];
          const float* k = &p.k_cache[std::size_t(cache_index(s, j, kv_head))];
          double score = 0.0;
          for (int d = 0; d < D; ++d) score += double(q[d]) * double(k[d]);
          score *= p.params.softmax_scale * p.params.k_scale;  // K dequantised
          if (p.params.softcap > 0.0f) score = p.params.softcap * std::tanh(score / p.params.softcap);
          if (!p.alibi_slopes.empty()) score += double(p.alibi_slopes[h]) * (j - alibi_origin);
          if (!p.qq_bias.empty() && j >= context_len)
            score += p.qq_bias[std::size_t(i) * p.qq_bias_size + std::size_t(j - context_len)];
          scores[n] = score;
        }
        // The sink joins the denominator as one more logit with no value.
        const bool has_sink = !p.sinks.empty();
        double max_score = has_sink ? double(p.sinks[h]) : -INFINITY;
        for (double score : scores) max_score = std::max(max_score, score);
        if (keys.empty()) continue;  // nothing visible: the row stays zero
        double denominator = has_sink ? std::exp(double(p.sinks[h]) - max_score) : 0.0;
        for (double& score : scores) denominator += (score = std::exp(score - max_score));
        double* o = &out[(std::size_t(token) * g.num_q_heads + h) * D];
        for (std::size_t n = 0; n < keys.size(); ++n) {
          const float* v = &p.v_cache[std::size_t(cache_index(s, keys[n], kv_head))];
          const double p_n = same_precision ? double(round_to_dtype(float(scores[n]), p.dtype)) : scores[n];
          const double weight = p_n / denominator * p.params.v_scale;  // V dequantised
          for (int d = 0; d < D; ++d) o[d] += weight * double(v[d]);
        }
      }
    }
  }
  if (p.fp8_out)  // an fp8 output holds out / out_scale, clamped to the fp8 range
    for (double& x : out) x = std::clamp(x / p.params.out_scale, -448.0, 448.0);
  if (same_precision)
    for (double& x : out) x = double(round_to_dtype(float(x), p.out_dtype()));
  return out;
}

}  // namespace

std::vector<double> oracle_attention(const HostProblem& problem) { return dense_attention(problem, false); }

std::vector<double> same_precision_reference(const HostProblem& problem) { return dense_attention(problem, true); }

}  // namespace kattn
