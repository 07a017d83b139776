#include "kattn/simulation/step_batch_layout.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kattn::sim {

HostProblem step_layout(const StepBatch& batch, const ModelConfig& config) {
  if (batch.empty()) throw std::invalid_argument("an empty step has no attention batch");
  HostProblem p;
  p.dtype = config.dtype;
  Geometry& g = p.geometry;
  g.num_q_heads = config.geometry.num_q_heads;
  g.num_kv_heads = config.geometry.num_kv_heads;
  g.head_size = config.geometry.head_size;
  g.block_size = config.block_size;
  g.num_blocks = config.num_kv_blocks;
  g.num_seqs = int(batch.sequences.size());
  p.params.softmax_scale = 1.0 / std::sqrt(double(g.head_size));
  p.params.causal = true;
  p.cu_seqlens_q.push_back(0);
  for (const ScheduledSequence& s : batch.sequences) {
    p.seq_lens.push_back(s.seq_len());
    p.cu_seqlens_q.push_back(p.cu_seqlens_q.back() + s.new_tokens);
    g.max_blocks_per_seq = std::max(g.max_blocks_per_seq, int(s.blocks.size()));
  }
  g.num_tokens = p.cu_seqlens_q.back();
  p.block_table.assign(std::size_t(g.num_seqs) * std::size_t(g.max_blocks_per_seq), 0);  // vLLM pads rows with 0
  for (std::size_t s = 0; s < batch.sequences.size(); ++s)
    std::copy(batch.sequences[s].blocks.begin(), batch.sequences[s].blocks.end(),
              p.block_table.begin() + std::ptrdiff_t(s * std::size_t(g.max_blocks_per_seq)));
  return p;
}

}  // namespace kattn::sim
