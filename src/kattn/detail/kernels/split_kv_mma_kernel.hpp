// The split-KV decode kernel on tensor cores (CUDA sm_80+, fp16/bf16 q and cache, head sizes up to
// kFragmentMaxHead in multiples of 16): the work items of SplitKvKernel, each team `warps` warps
// that keep up to 8 query heads of a KV head in registers, keys on the mma's long side
// (warp_key_rows.hpp), so a key's dot products and weighted sums cost a share of an mma instead of
// a CUDA-core loop per lane. Warp w of a team takes the partition's 16-key tiles w, w + warps, ...
// through its own ring of K/V tiles (WarpStageRing: cp.async), computing on one while the next
// ones are in flight, and waits on no other warp until its keys are done; the warps' states then
// merge through scratch. On the H100 a warp's own instruction latency bounds this kernel
// (docs/performance.md): a team's warps, tiles staged before the wait, and a compile-time head
// size for head 128 are what shorten it. Partitions merge as in SplitKvKernel: the last team of a
// row group.
#pragma once

#include "kattn/detail/kernels/split_kv_kernel.hpp"
#include "kattn/detail/tiles/warp_key_rows.hpp"
#include "kattn/detail/tiles/warp_stage.hpp"

namespace kattn {

// HeadSize: the head size fixed at compile time (its loops, guards and offsets then fold away), or
// 0 for any head size the kernel takes, read from args. Features: the score features compiled in
// (score_rules.hpp; at least args.rules' used ones).
template <class Space, class Args, int HeadSize = 0, class Features = AllScores>
struct SplitKvMmaKernel {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Cache = typename Args::cache_type;
  using BlockTiles = WarpBlockTileCopy<Cache, kKeyRowTileKeys, (HeadSize > 0 ? HeadSize : 64)>;

  Args args;
  SegmentPartials<typename Space::memory_space> partials;  // when num_partitions > 1
  std::int32_t* counters;      // when num_partitions > 1: [tokens × KV heads × row groups], zero between calls
  SplitKvGrid grid;            // rows_per_group at most kKeyRowQueries
  int stages;                  // tiles in flight a warp: split_kv_mma_stages
  FastDivisor block_size;      // the cache's
  bool aligned;                // every cache row admits 16-byte copies (else one warp a team)
  bool block_tiles;            // WarpBlockTileCopy applies (HeadSize > 0 only): tiles aligned to keys copy lean
  ScoreRules<Features> rules;  // args.rules as compiled in: a kernel parameter, not a copy in registers

  // Scratch: the warps' rings (later their merge, then the partition merge's weights), the block ids.
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    SplitKvItem it = split_kv_place(args, team.league_rank(), grid);
    const int seq_len = args.seq_lens(it.seq);  // in flight while the block ids load, where they need not wait for it
    const int head_size = HeadSize > 0 ? HeadSize : args.head_size;
    const int warps = team.team_size(), warp = team.team_rank();
    void* region = team.team_scratch(0).get_shmem_aligned(
        split_kv_mma_region_bytes(warps, stages, head_size, grid.num_partitions, sizeof(Cache)), 16);
    const int max_ids = grid.partition_size / block_size.divisor + 2;
    const IndexScratch<Space> block_ids(team.team_scratch(0), max_ids);
    const std::int32_t* table_row = &args.block_table(it.seq, 0);
    const int table_width = int(args.block_table.extent(1));
    // The partition's block ids, read once. Without a window its first key is known now: the ids
    // its keys can span (within the table row) load beside the length.
    const auto read_ids = [&](int first_block, int count) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, count),
                           [&](int i) { block_ids(i) = table_row[first_block + i]; });
    };
    const bool early_ids = !Features::window || rules.window_left < 0;
    if (early_ids) {
      const int first_block = block_size.div(split_kv_partition_first(rules, 0, it.partition, grid.partition_size));
      const int in_table = table_width - first_block;  // ids past the table row are never read
      read_ids(first_block, in_table < max_ids ? (in_table > 0 ? in_table : 0) : max_ids);
    }
    split_kv_keys(args, rules, grid, seq_len, it);
    const int first_block = block_size.div(it.first);
    if (!early_ids) read_ids(first_block, it.end > it.first ? block_size.div(it.end - 1) - first_block + 1 : 0);

    const std::size_t ring_elements = split_kv_mma_ring_bytes(stages, head_size, sizeof(Cache)) / sizeof(Cache);
    const WarpStageRing<Cache, kKeyRowTileKeys> ring{static_cast<Cache*>(region) + warp * ring_elements,
                                                     fragment_tile_stride(head_size), head_size, aligned, stages};
    team.team_barrier();  // the block ids are visible
    const CacheRowsAt at{block_ids.data(), first_block, block_size, it.kv_head};
    // This warp's tiles: the partition's 16-key tiles warp, warp + warps, ...
    const int num_tiles = (it.end - it.first + kKeyRowTileKeys - 1) / kKeyRowTileKeys;
    const int warp_tiles = num_tiles > warp ? (num_tiles - warp + warps - 1) / warps : 0;
    const auto tile_first = [&](int i) { return it.first + (warp + i * warps) * kKeyRowTileKeys; };
    const bool lean_tiles = block_tiles && it.first % kKeyRowTileKeys == 0;  // each tile inside one block
    const BlockTiles block_copy(args.k, args.v, it.kv_head, warp_lane());
    const auto stage = [&](int i) {
      if (i >= warp_tiles) return ring.skip();
      const int first = tile_first(i);
      const int count = it.end - first < kKeyRowTileKeys ? it.end - first : kKeyRowTileKeys;
      if constexpr (HeadSize > 0) {
        if (lean_tiles) {
          int slot = 0;
          const std::int32_t block = at.locate(first, slot);
          return ring.template stage_block<fragment_tile_stride(HeadSize)>(i, block_copy, block, slot, count);
        }
      }
      ring.stage(team, i, args.k, args.v, at, first, count);
    };

    const int lane = warp_lane();
    WarpKeyRowFragments f;
    int head[2];
    bool real_row[2];
    KATTN_UNROLL
    for (int h = 0; h < 2; ++h) {
      const int row = key_row_query(lane, h);
      head[h] = it.first_head + row;
      real_row[h] = row < it.rows;
      // A sink belongs to the whole row: warp 0 holds it.
      f.state[h] = grid.num_partitions > 1 || !real_row[h] || warp > 0 ? SoftmaxState{} : rules.initial_state(head[h]);
      if (lane >> 2) f.state[h].sum = 0.0f;  // a sink's 1 counted by one lane of the row's eight
    }
    const bool plain_logits = rules.plain_logits();

    // One staging site (the first stages - 1 iterations only stage): the loop's code stays small.
    for (int tile = 1 - stages; tile < warp_tiles; ++tile) {
      stage(tile + stages - 1);
      if (tile < 0) continue;
      if (tile == 0)  // after the first tiles' copies are issued: their latency hides this load's
        load_key_row_q<Cache>(f, head_size, [&](int r, int d) {
          return r < it.rows ? args.q(it.token, it.first_head + r, d) : Cache{0};
        });
      ring.wait(tile);
      const int first = tile_first(tile);
      WarpKeyScores s;
      warp_key_scores<Cache>(f, ring.k_tile(tile), head_size, s);
      if (plain_logits && first + kKeyRowTileKeys <= it.end) {
        KATTN_UNROLL
        for (auto& scores : s)
          for (float& value : scores) value *= rules.scale;
      } else {
        KATTN_UNROLL
        for (int m = 0; m < kKeyRowTileKeys / 16; ++m) {
          KATTN_UNROLL
          for (int i = 0; i < 4; ++i) {
            // Padding rows keep their zero scores: no bias of a head past the group is read, and
            // their max never moves (no rescale for them).
            const int key = first + 16 * m + key_row_element(lane, i);
            if (real_row[i & 1])
              s[m][i] = key < it.end ? rules.logit(s[m][i], head[i & 1], it.position, key, it.context_len)
                                     : -compat::infinity();
          }
        }
      }
      warp_key_softmax_step(f, s);
      warp_key_accumulate<Cache>(f, s, ring.v_tile(tile), head_size);
    }
    warp_key_finish_sums(f);
    if (warps > 1) {
      team.team_barrier();  // every ring is read: the region takes the warps' states
      warp_key_store_state(f, static_cast<float*>(region), warp, head_size);
      team.team_barrier();
      if (warp == 0) warp_key_merge_states(f, static_cast<const float*>(region), warps, head_size);
      team.team_barrier();  // read: the region is free for the partition merge
    }

    // Straight-line code each warp runs once, its instructions fetched cold: one store path per
    // launch shape, each row's address computed once.
    const auto for_row_elements = [&](int h, auto&& store) {
      KATTN_UNROLL
      for (int n = 0; n < kFragmentMaxHead / 16; ++n) {
        if (16 * n >= head_size) break;
        KATTN_UNROLL
        for (int i = h; i < 4; i += 2) store(16 * n + key_row_element(lane, i), f.o[n][i]);
      }
    };
    KATTN_UNROLL
    for (int h = 0; h < 2; ++h) {
      if (!real_row[h] || warp > 0) continue;  // warp 0 holds the merged state
      if (grid.num_partitions > 1) {
        float* const row = &partials.out(it.partition, it.token, head[h], 0);  // contiguous in d
        for_row_elements(h, [&](int d, float value) { row[d] = value; });
        if ((lane >> 2) == 0) {
          partials.max(it.partition, it.token, head[h]) = f.state[h].max;
          partials.sum(it.partition, it.token, head[h]) = f.state[h].sum;
        }
      } else {
        const float inverse_sum = f.state[h].inverse_sum();
        for_row_elements(h, [&](int d, float value) { args.store_out(it.token, head[h], d, value * inverse_sum); });
      }
    }
    if (grid.num_partitions > 1)
      merge_partitions_if_last<Space>(team, args, partials, counters + it.row_group_item, grid.num_partitions, it.token,
                                      it.first_head, it.rows, static_cast<float*>(region));  // after a barrier
  }
};

}  // namespace kattn
