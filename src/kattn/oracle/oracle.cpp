#include "kattn/oracle/oracle.hpp"

#include "kattn/core/error.hpp"
#include "kattn/problem/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kattn {

std::vector<double> oracle_attention(const HostProblem& p) {
  validate(p);
  if (const std::string missing = p.params.unsupported_features(); !missing.empty())
    throw NotSupported("oracle: " + missing);

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
  for (int s = 0; s < g.num_seqs; ++s) {
    const int first_token = p.cu_seqlens_q[s];
    const int query_len = p.cu_seqlens_q[s + 1] - first_token;
    const int seq_len = p.seq_lens[s];
    const int context_len = seq_len - query_len;
    for (int i = 0; i < query_len; ++i) {
      const int token = first_token + i;
      const int position = context_len + i;  // absolute position of this query token
      const int num_keys = p.params.causal ? position + 1 : seq_len;
      for (int h = 0; h < g.num_q_heads; ++h) {
        const int kv_head = h / g.queries_per_kv();
        const float* q = &p.q[(std::size_t(token) * g.num_q_heads + h) * D];
        scores.assign(std::size_t(num_keys), 0.0);
        for (int j = 0; j < num_keys; ++j) {
          const float* k = &p.k_cache[std::size_t(cache_index(s, j, kv_head))];
          double dot = 0.0;
          for (int d = 0; d < D; ++d) dot += double(q[d]) * double(k[d]);
          scores[std::size_t(j)] = dot * p.params.softmax_scale;
        }
        if (num_keys == 0) continue;  // nothing to attend to: the output row stays zero
        const double max_score = *std::max_element(scores.begin(), scores.end());
        double denominator = 0.0;
        for (double& score : scores) denominator += (score = std::exp(score - max_score));
        double* o = &out[(std::size_t(token) * g.num_q_heads + h) * D];
        for (int j = 0; j < num_keys; ++j) {
          const float* v = &p.v_cache[std::size_t(cache_index(s, j, kv_head))];
          const double weight = scores[std::size_t(j)] / denominator;
          for (int d = 0; d < D; ++d) o[d] += weight * double(v[d]);
        }
      }
    }
  }
  return out;
}

}  // namespace kattn
