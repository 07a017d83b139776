// The cumulative Q-block counts the Q-block kernels binary-search (paper 6.1): cu_q_blocks[s] =
// the Q blocks (ceil(query_len / block_q)) of the sequences in [first_seq, end_seq) before s;
// cu_q_blocks has num_seqs + 1 entries, and the kernels read their total from cu_q_blocks[num_seqs].
// One team scans the sequences: a kernel rather than a Kokkos scan, because graphs capture kernels
// only (Kokkos' graph nodes have no parallel_scan). Launch it with a league of one team.
#pragma once

#include "kattn/batch/batch_metadata.hpp"

namespace kattn {

template <class Space>
struct QBlockOffsetsKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;

  IndexVector cu_seqlens_q;
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged> cu_q_blocks;
  int block_q;
  int first_seq, end_seq;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int num_seqs = int(cu_seqlens_q.extent(0)) - 1;
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, num_seqs), [&](int s, std::int32_t& running, bool final) {
      if (s >= first_seq && s < end_seq) running += (cu_seqlens_q(s + 1) - cu_seqlens_q(s) + block_q - 1) / block_q;
      if (final) cu_q_blocks(s + 1) = running;
    });
    Kokkos::single(Kokkos::PerTeam(team), [&]() { cu_q_blocks(0) = 0; });
  }
};

}  // namespace kattn
