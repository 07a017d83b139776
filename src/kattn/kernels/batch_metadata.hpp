// Per-batch metadata (paper 6.1), built once per call on the device: the features that drive the
// launch plan, and the cumulative Q-block counts the Q-block kernels binary-search.
#pragma once

#include "kattn/core/execution_space.hpp"

#include <cstdint>

namespace kattn {

using IndexVector = Kokkos::View<const std::int32_t*, Kokkos::LayoutRight, MemorySpace>;

struct BatchMetadata {
  int num_seqs = 0;
  int num_tokens = 0;
  int num_decodes = 0;  // sequences with query length 1
  int max_query_len = 0;
  int max_seq_len = 0;
  double avg_query_len = 0.0;
  double avg_seq_len = 0.0;
  int window_left = -1;  // the call's sliding window (from AttentionParams), -1 = none

  double decode_share() const { return num_seqs > 0 ? double(num_decodes) / num_seqs : 0.0; }
  // Keys a query can see at most: the window if there is one, else the longest sequence.
  int max_visible_keys() const {
    return window_left >= 0 && window_left + 1 < max_seq_len ? window_left + 1 : max_seq_len;
  }
};

// One device reduction over the sequences on `space` and one small copy back.
BatchMetadata compute_batch_metadata(const ExecutionSpace& space, const IndexVector& cu_seqlens_q,
                                     const IndexVector& seq_lens);

// cu_q_blocks[s] = number of Q blocks (ceil(query_len / block_q)) of the sequences before s;
// cu_q_blocks has num_seqs + 1 entries. Returns the total.
int build_q_block_offsets(const ExecutionSpace& space, const IndexVector& cu_seqlens_q, int block_q,
                          const Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace>& cu_q_blocks);

}  // namespace kattn
