#include "kattn/kernels/batch_metadata.hpp"

#include <algorithm>

namespace kattn {

BatchMetadata compute_batch_metadata(const Geometry& g, const BatchIndexHost& index) {
  BatchMetadata m;
  m.num_seqs = g.num_seqs;
  m.num_tokens = g.num_tokens;
  double total_seq_len = 0.0;
  for (int s = 0; s < g.num_seqs; ++s) {
    const int query_len = index.cu_seqlens_q[s + 1] - index.cu_seqlens_q[s];
    m.num_decodes += query_len == 1 ? 1 : 0;
    m.max_query_len = std::max(m.max_query_len, query_len);
    m.max_seq_len = std::max(m.max_seq_len, int(index.seq_lens[s]));
    total_seq_len += index.seq_lens[s];
  }
  if (g.num_seqs > 0) {
    m.avg_query_len = double(g.num_tokens) / g.num_seqs;
    m.avg_seq_len = total_seq_len / g.num_seqs;
  }
  return m;
}

}  // namespace kattn
