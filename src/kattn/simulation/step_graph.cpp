#include "kattn/simulation/step_graph.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace kattn::sim {
namespace {

// vLLM's capture sizes: 1, 2, 4, then multiples of 8.
int captured_batch_size(int num_seqs) {
  if (num_seqs <= 4) return num_seqs <= 1 ? 1 : num_seqs <= 2 ? 2 : 4;
  return (num_seqs + 7) / 8 * 8;
}

int power_of_two_at_least(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// The decodes that run apart: all of them when they lead (one token each, first), else none.
int decodes_apart(const HostProblem& step) {
  const BatchMetadata b = host_batch_metadata(step.cu_seqlens_q.data(), step.seq_lens.data(), step.geometry.num_seqs);
  return b.leading_decodes == b.num_decodes ? b.num_decodes : 0;
}

}  // namespace

GraphShape GraphShape::of(const HostProblem& step) {
  const int num_seqs = step.geometry.num_seqs;
  const int decodes = decodes_apart(step);
  int decode_len = 0, other_len = 0;
  for (int s = 0; s < num_seqs; ++s) {
    int& longest = s < decodes ? decode_len : other_len;
    longest = std::max(longest, int(step.seq_lens[std::size_t(s)]));
  }
  GraphShape shape;
  if (decodes > 0) {
    shape.decodes = captured_batch_size(decodes);
    shape.decode_keys = power_of_two_at_least(decode_len);
  }
  if (decodes < num_seqs) {
    shape.other_seqs = power_of_two_at_least(num_seqs - decodes + 1);
    shape.other_tokens = power_of_two_at_least(step.geometry.num_tokens - decodes);
    shape.other_keys = power_of_two_at_least(other_len);
  }
  return shape;
}

BatchMetadata GraphShape::bounds() const {
  return BatchMetadata(SequenceTotals::at_bounds(decodes, decodes, decodes > 0 ? 1 : 0, decode_keys),
                       SequenceTotals::at_bounds(other_seqs, other_tokens, other_tokens, other_keys), decodes);
}

template <class T>
StepGraph<T>::StepGraph(const GraphShape& shape, const AttentionInputs<T, T>& pool, const AttentionParams& params,
                        const AttentionOptions& options)
    : shape_(shape),
      q_("graph q", shape.num_tokens(), pool.q.extent(1), pool.q.extent(2)),
      out_("graph out", shape.num_tokens(), pool.q.extent(1), pool.q.extent(2)),
      block_table_("graph block_table", shape.num_seqs(),
                   std::max(1, (std::max(shape.decode_keys, shape.other_keys) + int(pool.k_cache.extent(1)) - 1) /
                                   int(pool.k_cache.extent(1)))),
      cu_seqlens_q_("graph cu_seqlens_q", shape.num_seqs() + 1),
      seq_lens_("graph seq_lens", shape.num_seqs()),
      table_host_(Kokkos::create_mirror_view(block_table_)),
      cu_host_(Kokkos::create_mirror_view(cu_seqlens_q_)),
      seq_lens_host_(Kokkos::create_mirror_view(seq_lens_)) {
  AttentionInputs<T, T> buffers = pool;
  buffers.q = q_;
  buffers.block_table = block_table_;
  buffers.cu_seqlens_q = cu_seqlens_q_;
  buffers.seq_lens = seq_lens_;
  graph_.emplace(
      capture_run(plan_attention(buffers, params, shape.bounds(), workspace_, options), buffers, out_, options.space));
}

template <class T>
void StepGraph<T>::load(const HostProblem& step, const AttentionInputs<T, T>& step_inputs) {
  if (!(GraphShape::of(step) == shape_)) throw std::invalid_argument("a step of another shape than the graph's");
  const Geometry& g = step.geometry;
  const int decodes = decodes_apart(step);
  const int shift = shape_.decodes - decodes;  // the padding decodes before the other sequences
  const int columns = std::min(g.max_blocks_per_seq, int(table_host_.extent(1)));
  Kokkos::deep_copy(table_host_, 0);
  cu_host_(0) = 0;
  for (int slot = 0; slot < shape_.num_seqs(); ++slot) {
    const int s = slot < decodes ? slot : slot >= shape_.decodes && slot - shift < g.num_seqs ? slot - shift : -1;
    int query_len = 0, seq_len = 0;  // padding: no key
    if (s >= 0) {
      query_len = step.cu_seqlens_q[std::size_t(s) + 1] - step.cu_seqlens_q[std::size_t(s)];
      seq_len = step.seq_lens[std::size_t(s)];
      for (int b = 0; b < columns; ++b)
        table_host_(slot, b) = step.block_table[std::size_t(s) * std::size_t(g.max_blocks_per_seq) + std::size_t(b)];
    } else if (slot < shape_.decodes) {
      query_len = 1;
    } else if (slot == g.num_seqs + shift) {
      query_len = shape_.num_tokens() - cu_host_(slot);  // the padding tokens
    }
    cu_host_(slot + 1) = cu_host_(slot) + query_len;
    seq_lens_host_(slot) = seq_len;
  }
  Kokkos::deep_copy(block_table_, table_host_);
  Kokkos::deep_copy(cu_seqlens_q_, cu_host_);
  Kokkos::deep_copy(seq_lens_, seq_lens_host_);
  const auto rows = [](const auto& view, int first, int end) {
    return Kokkos::subview(view, std::make_pair(first, end), Kokkos::ALL, Kokkos::ALL);
  };
  Kokkos::deep_copy(rows(q_, 0, decodes), rows(step_inputs.q, 0, decodes));
  Kokkos::deep_copy(rows(q_, shape_.decodes, shape_.decodes + g.num_tokens - decodes),
                    rows(step_inputs.q, decodes, g.num_tokens));
}

template class StepGraph<float>;
template class StepGraph<fp16_t>;
template class StepGraph<bf16_t>;

}  // namespace kattn::sim
