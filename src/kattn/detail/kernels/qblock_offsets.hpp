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
#include "kattn/detail/tiles/team_bulk_copy.hpp"

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
  // The items a static grid's teams have claimed (one counter, zeroed by the offsets kernel;
  // empty: the teams take their items by stride).
  Vector<std::int32_t> claimed;

  // The launch's Q blocks; a batch past the plan's bounds loses the blocks past the entries
  // rather than reading or writing past them.
  KOKKOS_INLINE_FUNCTION int count(int num_seqs) const { return within_capacity(cu_q_blocks(num_seqs)); }
  KOKKOS_INLINE_FUNCTION int within_capacity(int blocks) const {
    return blocks < int(entries.extent(0)) ? blocks : int(entries.extent(0));
  }
};

// Launch with a league of one team, with scratch_bytes(num_seqs) of team scratch where `staged`.
template <class Space>
struct QBlockOffsetsKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch = Kokkos::View<std::int32_t*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  IndexVector<typename Space::memory_space> cu_seqlens_q, seq_lens;
  QBlockTable<typename Space::memory_space> table;
  int block_q;
  int first_seq, end_seq;
  bool staged;  // the sequences' offsets, query starts and lengths are copied to team scratch (stages())
  // Where the Q-block kernel copies its tiles by the tensor memory accelerator: the cache's tensor
  // maps (encoded on the host), written where that kernel reads them; null: none.
  CacheTileMaps tile_maps{};
  CacheTileMaps* tile_maps_to = nullptr;
  // Likewise the maps of the query and output rows (RowTileMaps) for the kernel of one warpgroup.
  RowTileMaps row_maps{};
  RowTileMaps* row_maps_to = nullptr;

  // The per-sequence arrays the entries are filled from, in team scratch: each Q block's search for
  // its sequence and its reads of the lengths then take no global round trip (searching global
  // memory, the kernel took 6.9–7.3 µs on the H100 against 6.0–6.4 staged). Batches of more
  // sequences (past 2,727) read global memory: 32 KB is every backend's team scratch (the host
  // backends' level-0 maximum, under Kokkos 4.6's 40,936 bytes on CUDA).
  static std::size_t scratch_bytes(int num_seqs) { return 3 * Scratch::shmem_size(std::size_t(num_seqs) + 1); }
  static bool stages(int num_seqs) { return scratch_bytes(num_seqs) <= 32 * 1024; }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int num_seqs = int(cu_seqlens_q.extent(0)) - 1, staged_seqs = staged ? num_seqs + 1 : 0;
    const Scratch offsets(team.team_scratch(0), staged_seqs), starts(team.team_scratch(0), staged_seqs),
        lens(team.team_scratch(0), staged_seqs);
    const auto& cu_q_blocks = table.cu_q_blocks;
    Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, num_seqs), [&](int s, std::int32_t& running, bool final) {
      const int start = cu_seqlens_q(s), end = cu_seqlens_q(s + 1);
      if (s >= first_seq && s < end_seq) running += (end - start + block_q - 1) / block_q;
      if (!final) return;
      cu_q_blocks(s + 1) = running;
      if (!staged) return;
      offsets(s + 1) = running;
      starts(s + 1) = end;
      lens(s) = seq_lens(s);
    });
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      cu_q_blocks(0) = 0;
      if (table.claimed.extent(0) > 0) table.claimed(0) = 0;
      if (staged) {
        offsets(0) = 0;
        starts(0) = cu_seqlens_q(0);
      }
    });
    team.team_barrier();  // the offsets are in
    const auto fill = [&](const auto& block_offsets, const auto& query_starts, const auto& lengths) {
      const int blocks = table.within_capacity(block_offsets(num_seqs));
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, blocks), [&](int q_block) {
        const int seq = find_owner(block_offsets, num_seqs, q_block);
        const int query_start = query_starts(seq), query_len = query_starts(seq + 1) - query_start;
        const int seq_len = lengths(seq), first_local = (q_block - block_offsets(seq)) * block_q;
        const int valid_tokens = query_len - first_local < block_q ? query_len - first_local : block_q;
        table.entries(q_block) = QBlockEntry{seq,
                                             seq_len,
                                             seq_len - query_len,
                                             query_start + first_local,
                                             valid_tokens,
                                             seq_len - query_len + first_local};
      });
    };
    if (staged)
      fill(offsets, starts, lens);
    else
      fill(cu_q_blocks, cu_seqlens_q, seq_lens);
    if (tile_maps_to) publish_tile_maps(team, tile_maps, tile_maps_to);
    if (row_maps_to) publish_tile_maps(team, row_maps, row_maps_to);
  }
};

}  // namespace kattn
