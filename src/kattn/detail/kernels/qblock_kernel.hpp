// Paper 4.4–4.7 (Listings 4 and 5): one team per work item (Q block, KV head[, segment]).
//  - Q block (4.4): BLOCK_Q tokens × the query heads of one KV head, flattened to block_m rows;
//    each K/V tile is staged once in scratch for all rows. A Q block's sequence and rows come
//    from its slot (qblock_slots.hpp).
//  - tile size decoupled from the KV-cache block size (4.6): a tile may span blocks.
//  - Segmented (4.5): the tiles of a Q block are split over num_segments teams that write
//    partial output, max and sum; SegmentReduceKernel merges them.
//  - static grid (4.7): a fixed number of teams loops over the work items, whose count it reads
//    from device metadata, so one launch shape serves any batch.
#pragma once

#include "kattn/detail/kernels/qblock_item.hpp"
#include "kattn/detail/kernels/segment_reduce.hpp"
#include "kattn/detail/shapes/scratch_layout.hpp"
#include "kattn/detail/tiles/tile_mma.hpp"
#include "kattn/tuning/launch_plan.hpp"

namespace kattn {

template <class Space, class Args, bool Segmented>
struct QBlockKernel {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  static constexpr bool kClaimsItems = false;  // a static grid's teams take their items by stride
  using TileScratch = Kokkos::View<QBlockTileValue<Space, typename Args::cache_type>*,
                                   typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  Args args;
  QBlockSlots q_blocks;
  SegmentPartials<typename Space::memory_space> partials;  // Segmented only
  int block_m;                                             // rows: tokens of a Q block × queries_per_kv
  int tile_size;
  FastDivisor num_segments;  // the tiles of a Q block split over this many items (1: none)
  bool static_grid;
  bool tensor_cores;  // tile products on tensor cores (LaunchPlan::tensor_cores)

  // Team scratch, carved once per team (scratch allocation is a bump pointer): the order and
  // sizes follow qblock_scratch_bytes.
  struct Scratch {
    FloatScratch<Space> q, acc, scores, row_max, row_sum, row_alpha;
    TileScratch k_tile, v_tile;

    KOKKOS_INLINE_FUNCTION Scratch(const Member& team, int block_m, int tile_size, int head_size)
        : q(team.team_scratch(0), block_m * head_size),
          acc(team.team_scratch(0), block_m * head_size),
          scores(team.team_scratch(0), block_m * tile_size),
          row_max(team.team_scratch(0), block_m),
          row_sum(team.team_scratch(0), block_m),
          row_alpha(team.team_scratch(0), block_m),
          k_tile(team.team_scratch(0), tile_size * head_size),
          v_tile(team.team_scratch(0), tile_size * head_size) {}
  };

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Scratch scratch(team, block_m, tile_size, args.head_size);
    const int items = qblock_num_items(args, q_blocks, num_segments.divisor);
    if (!static_grid) {  // a grid for the most Q blocks the plan allows: the teams past them return
      if (team.league_rank() < items) process(team, scratch, team.league_rank());
      return;
    }
    for (int item = team.league_rank(); item < items; item += team.league_size()) process(team, scratch, item);
  }

  KOKKOS_INLINE_FUNCTION void process(const Member& team, const Scratch& scratch, int item) const {
    const QBlockItem it = qblock_item(args, args.rules, q_blocks, item, tile_size, num_segments);
    const QBlockRows& rows = it.rows;
    if (rows.valid_tokens == 0) return;  // a spare slot (qblock_slots.hpp)
    const int segment = it.segment;
    const int end_key = it.end_key;
    const int head_size = args.head_size;

    const FloatScratch<Space>& q = scratch.q;
    const FloatScratch<Space>& acc = scratch.acc;
    const FloatScratch<Space>& scores = scratch.scores;
    const FloatScratch<Space>& row_max = scratch.row_max;
    const FloatScratch<Space>& row_sum = scratch.row_sum;
    const FloatScratch<Space>& row_alpha = scratch.row_alpha;
    const TileScratch& k_tile = scratch.k_tile;
    const TileScratch& v_tile = scratch.v_tile;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m * head_size), [&](int i) {
      const int r = i / head_size;
      q(i) = rows.valid(r) ? to_float(args.q(rows.token(r), rows.head(r), i - r * head_size)) : 0.0f;
      acc(i) = 0.0f;
    });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m), [&](int r) {
      // Segments start empty: the reduction adds the sink once.
      const SoftmaxState start = Segmented ? SoftmaxState{} : args.rules.initial_state(rows.head(r));
      row_max(r) = start.max;
      row_sum(r) = start.sum;
    });
    team.team_barrier();

    const std::int32_t* block_row = &args.block_table(rows.seq, 0);
    for (int tile = it.tile_begin; tile < it.tile_end; ++tile) {
      const int first = it.first_key + tile * tile_size;
      const int count = end_key - first < tile_size ? end_key - first : tile_size;
      load_kv_tile(team, args.k, block_row, args.block_size, rows.kv_head, first, count, head_size, k_tile);
      load_kv_tile(team, args.v, block_row, args.block_size, rows.kv_head, first, count, head_size, v_tile);
      team.team_barrier();
      qblock_tile_scores<typename Args::q_type>(team, tensor_cores, rows, block_m, q, k_tile, first, count, head_size,
                                                args.rules, scores);
      team.team_barrier();
      qblock_softmax_update(team, block_m, count, scores, row_max, row_sum, row_alpha);
      team.team_barrier();
      qblock_tile_accumulate<typename Args::q_type>(team, tensor_cores, block_m, count, head_size, acc, row_alpha,
                                                    scores, v_tile);
      team.team_barrier();  // the next tile overwrites K, V and the scores
    }

    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m * head_size), [&](int i) {
      const int r = i / head_size;
      if (!rows.valid(r)) return;
      const int d = i - r * head_size;
      if (Segmented) {
        partials.out(segment, rows.token(r), rows.head(r), d) = acc(i);
        if (d == 0) {
          partials.max(segment, rows.token(r), rows.head(r)) = row_max(r);
          partials.sum(segment, rows.token(r), rows.head(r)) = row_sum(r);
        }
      } else {
        const float inverse_sum = row_sum(r) > 0.0f ? 1.0f / row_sum(r) : 0.0f;
        args.store_out(rows.token(r), rows.head(r), d, acc(i) * inverse_sum);
      }
    });
    team.team_barrier();  // a static-grid team reuses the scratch for its next item
  }
};

}  // namespace kattn
