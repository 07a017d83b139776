// Per-batch metadata (paper 6.1), built once per call on the device: the features that drive the
// launch plan (the Q-block kernels' items find their Q blocks at run time, qblock_slots.hpp).
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/problem/attention_params.hpp"

#include <cstdint>

namespace kattn {

template <class Memory = MemorySpace>
using IndexVector = Kokkos::View<const std::int32_t*, Kokkos::LayoutRight, Memory>;

// Sums and maxima over a set of sequences.
struct SequenceTotals {
  std::int64_t total_seq_len = 0;
  int num_seqs = 0;
  int num_tokens = 0;
  int max_query_len = 0;
  int max_seq_len = 0;

  // num_seqs sequences at the given maxima, each with max_seq_len keys (a bound, not a count).
  static SequenceTotals at_bounds(int num_seqs, int num_tokens, int max_query_len, int max_seq_len) {
    SequenceTotals t;
    t.num_seqs = num_seqs;
    t.num_tokens = num_tokens;
    t.max_query_len = max_query_len;
    t.max_seq_len = max_seq_len;
    t.total_seq_len = std::int64_t(num_seqs) * max_seq_len;
    return t;
  }

  KOKKOS_INLINE_FUNCTION void add(const SequenceTotals& other) {
    total_seq_len += other.total_seq_len;
    num_seqs += other.num_seqs;
    num_tokens += other.num_tokens;
    if (other.max_query_len > max_query_len) max_query_len = other.max_query_len;
    if (other.max_seq_len > max_seq_len) max_seq_len = other.max_seq_len;
  }
};

struct BatchMetadata {
  int num_seqs = 0;
  int num_tokens = 0;
  int num_decodes = 0;  // sequences with query length 1
  int max_query_len = 0;
  int max_seq_len = 0;
  double avg_query_len = 0.0;
  double avg_seq_len = 0.0;
  int window_left = -1;            // the call's sliding window (from AttentionParams), -1 = none
  int leading_decodes = 0;         // decode sequences before the first longer query (vLLM puts decodes first)
  SequenceTotals decodes, others;  // the decode sequences and the rest

  BatchMetadata() = default;
  BatchMetadata(const SequenceTotals& decodes, const SequenceTotals& others, int leading_decodes);

  // A mixed batch whose decodes all come first (vLLM's order): plan_call may run them apart.
  bool decodes_lead() const { return leading_decodes > 0 && leading_decodes == num_decodes && num_decodes < num_seqs; }
  double decode_share() const { return num_seqs > 0 ? double(num_decodes) / num_seqs : 0.0; }
  // Keys a query can see at most: the window if there is one, else the longest sequence.
  int max_visible_keys() const {
    return window_left >= 0 && window_left + 1 < max_seq_len ? window_left + 1 : max_seq_len;
  }
  // Takes the call's window: it bounds the keys a query sees only from the left, so not with a
  // bidirectional prefix (prefix_lm) or without the causal mask.
  void apply_call_window(const AttentionParams& params, bool prefix_lm) {
    if (params.causal && !prefix_lm) window_left = params.window_left;
  }
  // The metadata of the leading decodes, or of the sequences after them, as batches of their own.
  BatchMetadata leading_decode_part() const;
  BatchMetadata after_leading_decodes() const;
};

// The features from host copies of cu_seqlens_q [num_seqs + 1] and seq_lens [num_seqs]: exact, no
// device work.
BatchMetadata host_batch_metadata(const std::int32_t* cu_seqlens_q, const std::int32_t* seq_lens, int num_seqs);

// An upper bound from what a server knows without the arrays (vLLM passes max_seqlen_q and
// max_seqlen_k): every sequence at the longest length; all decodes when max_query_len is 1.
BatchMetadata bounded_batch_metadata(int num_seqs, int num_tokens, int max_query_len, int max_seq_len);

// One device reduction over the sequences on `space` and one small copy back (built for every
// backend: core/backends.hpp).
template <class Space>
BatchMetadata compute_batch_metadata(const Space& space, const IndexVector<typename Space::memory_space>& cu_seqlens_q,
                                     const IndexVector<typename Space::memory_space>& seq_lens);

// compute_batch_metadata for a call with these parameters (apply_call_window).
template <class Space>
BatchMetadata call_batch_metadata(const Space& space, const IndexVector<typename Space::memory_space>& cu_seqlens_q,
                                  const IndexVector<typename Space::memory_space>& seq_lens,
                                  const AttentionParams& params, bool prefix_lm);

// At most how many Q-block slots of block_q tokens (detail/kernels/qblock_slots.hpp: a sequence's
// Q blocks and at most one spare) a batch within these bounds has: the grid of a Q-block launch,
// whose teams past the real count return at once.
int max_q_slots(const BatchMetadata& batch, int block_q);

}  // namespace kattn
