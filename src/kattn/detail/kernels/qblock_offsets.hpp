// The Q blocks of a Q-block launch (paper 6.1), written by one team before it (QBlockOffsetsKernel):
// cu_q_blocks[s] = the Q blocks (ceil(query_len / block_q)) of the sequences in [first_seq, end_seq)
// before s (num_seqs + 1 entries, the last their count), and per Q block an entry with its sequence
// and rows. A work item reads its entry in one 32-byte load where it would otherwise binary-search
// the offsets and then read its sequence's lengths: two chains of dependent loads, the largest
// stall of single-tile items. A kernel rather than a Kokkos scan, because graphs capture kernels
// only (Kokkos' graph nodes have no parallel_scan).
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/detail/kernels/kernel_args.hpp"

namespace kattn {

// QBlockRows' fields of one Q block (qblock_tile_ops.hpp); 16-byte aligned for vector loads.
struct alignas(16) QBlockEntry {
  std::int32_t seq, seq_len, context_len, first_token, valid_tokens, first_position;
};

template <class Memory>
struct QBlockTable {
  template <class T>
  using Vector = Kokkos::View<T*, Kokkos::LayoutRight, Memory, Kokkos::MemoryUnmanaged>;

  Vector<std::int32_t> cu_q_blocks;
  Vector<QBlockEntry> entries;  // as many as the plan's bounds allow (PartLaunch::max_q_blocks)

  // The launch's Q blocks; a batch past the plan's bounds loses the blocks past the entries
  // rather than reading or writing past them.
  KOKKOS_INLINE_FUNCTION int count(int num_seqs) const {
    const int blocks = cu_q_blocks(num_seqs), capacity = int(entries.extent(0));
    return blocks < capacity ? blocks : capacity;
  }
};

// Launch with a league of one team.
template <class Space>
struct QBlockOffsetsKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;

  IndexVector cu_seqlens_q, seq_lens;
  QBlockTable<MemorySpace> table;
  int block_q;
  int first_seq, end_seq;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int num_seqs = int(cu_seqlens_q.extent(0)) - 1;
    const auto& cu_q_blocks = table.cu_q_blocks;
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, num_seqs), [&](int s, std::int32_t& running, bool final) {
      if (s >= first_seq && s < end_seq) running += (cu_seqlens_q(s + 1) - cu_seqlens_q(s) + block_q - 1) / block_q;
      if (final) cu_q_blocks(s + 1) = running;
    });
    Kokkos::single(Kokkos::PerTeam(team), [&]() { cu_q_blocks(0) = 0; });
    team.team_barrier();  // the offsets are in
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, table.count(num_seqs)), [&](int q_block) {
      const int seq = find_owner(cu_q_blocks, num_seqs, q_block);
      const int query_start = cu_seqlens_q(seq), query_len = cu_seqlens_q(seq + 1) - query_start;
      const int seq_len = seq_lens(seq), first_local = (q_block - cu_q_blocks(seq)) * block_q;
      const int valid_tokens = query_len - first_local < block_q ? query_len - first_local : block_q;
      table.entries(q_block) = QBlockEntry{seq,
                                           seq_len,
                                           seq_len - query_len,
                                           query_start + first_local,
                                           valid_tokens,
                                           seq_len - query_len + first_local};
    });
  }
};

}  // namespace kattn
