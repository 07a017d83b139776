// The Q-block kernels on tensor cores with register-resident rows (paper 4.4–4.7, laid out like
// FlashAttention-2): the work items of QBlockKernel (qblock_item), but a team of W warps takes a
// Q block of 16·W rows and each warp keeps its 16 rows' Q, output and softmax state in registers
// (warp_fragments.hpp). The team shares only the K/V tiles it stages in scratch, two pairs of
// them: while it computes on one, the next one's copies are in flight (cp.async on CUDA).
// The planner picks it (LaunchPlan::register_rows) for fp16/bf16 on CUDA with head sizes up to
// kFragmentMaxHead in multiples of 16; everything else runs QBlockKernel.
#pragma once

#include "kattn/kernels/qblock_item.hpp"
#include "kattn/kernels/segment_reduce.hpp"
#include "kattn/tiles/team_stage.hpp"
#include "kattn/tiles/warp_fragments.hpp"

namespace kattn {

template <class Space, class Args, bool Segmented>
struct QBlockMmaKernel {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Cache = typename Args::cache_type;

  Args args;
  Kokkos::View<const std::int32_t*, Kokkos::LayoutRight, typename Space::memory_space> cu_q_blocks;
  SegmentPartials partials;  // Segmented only
  int block_q;               // tokens per Q block: 16 · warps / queries_per_kv
  int num_segments;
  bool static_grid;
  bool aligned;  // cache rows allow 16-byte loads (lane_chunks_aligned)

  KOKKOS_INLINE_FUNCTION static std::size_t tile_bytes(int head_size) {
    return std::size_t(kFragmentTileKeys) * fragment_tile_stride(head_size) * sizeof(Cache);
  }
  static std::size_t scratch_bytes(int head_size) { return 4 * tile_bytes(head_size) + 16; }  // + alignment

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    // K and V tiles for two steps, in that order: step buffer b holds K at 2b and V at 2b + 1.
    auto* tiles = static_cast<Cache*>(team.team_scratch(0).get_shmem_aligned(4 * tile_bytes(args.head_size), 16));
    const int items = qblock_num_items(args, cu_q_blocks, num_segments);
    if (!static_grid) {  // a grid for the most Q blocks the plan allows: the teams past them return
      if (team.league_rank() < items) process(team, tiles, team.league_rank());
      return;
    }
    for (int item = team.league_rank(); item < items; item += team.league_size()) process(team, tiles, item);
  }

  KOKKOS_INLINE_FUNCTION void process(const Member& team, Cache* tiles, int item) const {
    const QBlockItem it = qblock_item(args, cu_q_blocks, item, block_q, kFragmentTileKeys, num_segments);
    const QBlockRows& rows = it.rows;
    const ScoreRules& rules = args.rules;
    const int head_size = args.head_size;
    const int lane = warp_lane();
    const int row0 = team.team_rank() * kFragmentRows;

    WarpRowFragments f;
    load_q_fragments<Cache>(f, head_size, [&](int r, int d) {
      return rows.valid(row0 + r) ? args.q(rows.token(row0 + r), rows.head(row0 + r), d) : Cache{0};
    });
    // This lane's two rows: the keys each sees, and its start (a sink's 1 counted by one lane of four).
    int position[2], head[2], key_begin[2], key_end[2];
KATTN_UNROLL
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + fragment_row(lane, 2 * h);
      position[h] = rows.position(row);
      head[h] = rows.head(row);
      key_begin[h] = rules.first_key(position[h]);
      key_end[h] = rows.valid(row) ? rules.end_key(position[h], rows.seq_len, rows.seq) : key_begin[h];
      f.state[h] = Segmented ? SoftmaxState{} : rules.initial_state(head[h]);
      if (lane & 3) f.state[h].sum = 0.0f;
    }
    // The keys of the warp's rows, for skipping tiles that none of them sees (causal diagonals).
    const int last_row = rows.valid_tokens * rows.queries_per_kv - 1 < row0 + kFragmentRows - 1
                             ? rows.valid_tokens * rows.queries_per_kv - 1
                             : row0 + kFragmentRows - 1;
    const bool warp_has_rows = row0 <= last_row;
    const int warp_key_begin = rules.first_key(rows.position(row0));
    const int warp_key_end = warp_has_rows ? rules.end_key(rows.position(last_row), rows.seq_len, rows.seq) : 0;
    // Keys every row of the warp sees, where a tile needs no mask (as wide as the last row's
    // window start to the first row's end); and whether a logit is only the scaled dot product.
    const int unmasked_begin = warp_has_rows ? rules.first_key(rows.position(last_row)) : 0;
    const int unmasked_end = warp_has_rows ? rules.end_key(rows.position(row0), rows.seq_len, rows.seq) : 0;
    const bool plain_logits = rules.softcap == 0.0f && !rules.alibi_slopes && !rules.qq_bias;

    const std::int32_t* block_row = &args.block_table(rows.seq, 0);
    const int tile_elements = kFragmentTileKeys * fragment_tile_stride(head_size);
    const auto stage = [&](int tile, int buffer) {
      const int first = tile * kFragmentTileKeys;
      const int count = it.end_key - first < kFragmentTileKeys ? it.end_key - first : kFragmentTileKeys;
      const CacheRowsAt at{block_row, 0, args.block_size, rows.kv_head};
      const int stride = fragment_tile_stride(head_size);
      team_stage_rows(team, args.k, at, first, count, kFragmentTileKeys, head_size, stride, aligned,
                      tiles + 2 * buffer * tile_elements);
      team_stage_rows(team, args.v, at, first, count, kFragmentTileKeys, head_size, stride, aligned,
                      tiles + (2 * buffer + 1) * tile_elements);
      team_stage_commit();
    };
    if (it.tile_begin < it.tile_end) stage(it.tile_begin, 0);
    for (int tile = it.tile_begin, buffer = 0; tile < it.tile_end; ++tile, buffer ^= 1) {
      if (tile + 1 < it.tile_end) {
        stage(tile + 1, buffer ^ 1);
        team_stage_wait(1);
      } else {
        team_stage_wait(0);
      }
      team.team_barrier();
      const int first = tile * kFragmentTileKeys;
      const Cache* k_tile = tiles + 2 * buffer * tile_elements;
      const Cache* v_tile = k_tile + tile_elements;
      if (warp_has_rows && first < warp_key_end && first + kFragmentTileKeys > warp_key_begin) {
        WarpScores s;
        warp_scores<Cache>(f, k_tile, head_size, s);
        if (plain_logits && first >= unmasked_begin && first + kFragmentTileKeys <= unmasked_end) {
KATTN_UNROLL
          for (auto& scores : s)
            for (float& value : scores) value *= rules.scale;
        } else {
KATTN_UNROLL
          for (int j = 0; j < kFragmentTileKeys / 8; ++j)
KATTN_UNROLL
            for (int i = 0; i < 4; ++i) {
              const int h = i >> 1, key = first + 8 * j + fragment_column(lane, i);
              s[j][i] = key >= key_begin[h] && key < key_end[h]
                            ? rules.logit(s[j][i], head[h], position[h], key, rows.context_len)
                            : -compat::infinity();
            }
        }
        warp_softmax_step(f, s);
        warp_accumulate<Cache>(f, s, v_tile, head_size);
      }
      team.team_barrier();  // the step after next stages into this buffer
    }

    warp_finish_sums(f);
KATTN_UNROLL
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + fragment_row(lane, 2 * h);
      if (!rows.valid(row)) continue;
      const int token = rows.token(row);
      const float inverse_sum = f.state[h].inverse_sum();
KATTN_UNROLL
      for (int n = 0; n < kFragmentMaxHead / 8; ++n) {
        if (8 * n >= head_size) break;
KATTN_UNROLL
        for (int i = 2 * h; i < 2 * h + 2; ++i) {
          const int d = 8 * n + fragment_column(lane, i);
          if (Segmented) partials.out(it.segment, token, head[h], d) = f.o[n][i];
          else args.store_out(token, head[h], d, f.o[n][i] * inverse_sum);
        }
      }
      if (Segmented && (lane & 3) == 0) {
        partials.max(it.segment, token, head[h]) = f.state[h].max;
        partials.sum(it.segment, token, head[h]) = f.state[h].sum;
      }
    }
  }
};

}  // namespace kattn
