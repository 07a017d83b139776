// Team-level primitives of the Q-block kernels (paper 4.4–4.6): a Q block of block_m rows
// (BLOCK_Q tokens × the query heads of one KV head, flattened) against K/V tiles of any size,
// staged once in team scratch for all rows. Portable Kokkos implementations.
#pragma once

#include "kattn/core/compat.hpp"
#include "kattn/core/storage_types.hpp"
#include "kattn/detail/tiles/fast_divisor.hpp"
#include "kattn/detail/tiles/online_softmax.hpp"
#include "kattn/detail/tiles/paged_kv.hpp"
#include "kattn/detail/tiles/score_rules.hpp"

#include <type_traits>

namespace kattn {

// Where a Q block's rows sit: row r is token r / queries_per_kv of the block and query head
// kv_head * queries_per_kv + r % queries_per_kv.
struct QBlockRows {
  int seq = 0;
  int seq_len = 0;
  int context_len = 0;
  int first_token = 0;         // global index of the block's first query token
  int valid_tokens = 0;        // tokens of the block inside its sequence (<= block_q)
  int first_position = 0;      // absolute position of the first token (context + offset in the query)
  FastDivisor queries_per_kv;  // a row's token and head by multiply-high, not integer division
  int kv_head = 0;

  KOKKOS_INLINE_FUNCTION bool valid(int r) const { return queries_per_kv.div(r) < valid_tokens; }
  KOKKOS_INLINE_FUNCTION int token(int r) const { return first_token + queries_per_kv.div(r); }
  KOKKOS_INLINE_FUNCTION int head(int r) const {
    int group_row = 0;
    queries_per_kv.divmod(r, group_row);
    return kv_head * queries_per_kv.divisor + group_row;
  }
  KOKKOS_INLINE_FUNCTION int position(int r) const { return first_position + queries_per_kv.div(r); }
};

// Copies `count` keys (or values) starting at sequence position `first` into a [tile][head_size]
// scratch tile of the cache's type, or of fp32 (converted here, once per element). Consecutive
// lanes read consecutive elements of a row; the tile may span blocks.
template <class Member, class Storage, class TileView>
KOKKOS_INLINE_FUNCTION void load_kv_tile(const Member& team, const PagedKvAccessor<Storage>& cache,
                                         const std::int32_t* block_row, int block_size, int kv_head, int first,
                                         int count, int head_size, const TileView& tile) {
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, count * head_size), [&](int i) {
    const int j = i / head_size;
    const int position = first + j;
    const Storage value =
        cache.row(block_row[position / block_size], position % block_size, kv_head)[i - j * head_size];
    if constexpr (std::is_same<typename TileView::value_type, Storage>::value)
      tile(i) = value;
    else
      tile(i) = to_float(value);
  });
}

// scores[r][j] = the logit of row r against key first + j, or -inf where the key is not visible
// to the row (ScoreRules) or the row is padding.
template <class Member, class QView, class TileView, class ScoreView>
KOKKOS_INLINE_FUNCTION void qblock_scores(const Member& team, const QBlockRows& rows, int block_m, const QView& q,
                                          const TileView& k, int first, int count, int head_size,
                                          const ScoreRules<>& rules, const ScoreView& scores) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, block_m * count), [&](int pair) {
    const int r = pair / count;
    const int j = pair - r * count;
    const bool visible = rows.valid(r) && rules.visible(rows.position(r), first + j, rows.seq_len, rows.seq);
    float dot = 0.0f;
    if (visible)
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, head_size),
          [&](int d, float& partial) { partial += q(r * head_size + d) * to_float(k(j * head_size + d)); }, dot);
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      scores(pair) =
          visible ? rules.logit(dot, rows.head(r), rows.position(r), first + j, rows.context_len) : -compat::infinity();
    });
  });
}

// The masking and logit step on raw dot products (as the tensor-core products leave them):
// scores[r][j] = the logit of row r against key first + j, or -inf where not visible.
template <class Member, class ScoreView>
KOKKOS_INLINE_FUNCTION void qblock_apply_rules(const Member& team, const QBlockRows& rows, int block_m, int first,
                                               int count, const ScoreRules<>& rules, const ScoreView& scores) {
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m * count), [&](int pair) {
    const int r = pair / count;
    const int j = pair - r * count;
    const bool visible = rows.valid(r) && rules.visible(rows.position(r), first + j, rows.seq_len, rows.seq);
    scores(pair) = visible ? rules.logit(scores(pair), rows.head(r), rows.position(r), first + j, rows.context_len)
                           : -compat::infinity();
  });
}

// Online-softmax step per row: new running max, rescale factor alpha[r], scores replaced by
// their weights, running sum updated. Rows whose keys are all masked keep max -inf, sum 0.
template <class Member, class ScoreView, class RowView>
KOKKOS_INLINE_FUNCTION void qblock_softmax_update(const Member& team, int block_m, int count, const ScoreView& scores,
                                                  const RowView& row_max, const RowView& row_sum,
                                                  const RowView& row_alpha) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, block_m), [&](int r) {
    float tile_max = -compat::infinity();
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, count),
        [&](int j, float& partial) { partial = compat::fmax(partial, scores(r * count + j)); },
        Kokkos::Max<float>(tile_max));
    // The lane that writes the row's state is the only one that reads it (and broadcasts it), so
    // no lane reads while another writes without a barrier between them.
    SoftmaxState state;
    Kokkos::single(
        Kokkos::PerThread(team),
        [&](SoftmaxState& s) {
          s = SoftmaxState{row_max(r), row_sum(r)};
        },
        state);
    const float alpha = state.rescale_to(tile_max);
    float tile_sum = 0.0f;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, count),
        [&](int j, float& partial) {
          const float weight = state.weight(scores(r * count + j));
          scores(r * count + j) = weight;
          partial += weight;
        },
        tile_sum);
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      row_max(r) = state.max;
      row_sum(r) = state.sum + tile_sum;
      row_alpha(r) = alpha;
    });
  });
}

// acc[r][d] = alpha[r] * acc[r][d] + sum_j weights[r][j] * v[j][d].
template <class Member, class AccView, class RowView, class ScoreView, class TileView>
KOKKOS_INLINE_FUNCTION void qblock_accumulate(const Member& team, int block_m, int count, int head_size,
                                              const AccView& acc, const RowView& row_alpha, const ScoreView& weights,
                                              const TileView& v) {
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m * head_size), [&](int i) {
    const int r = i / head_size;
    const int d = i - r * head_size;
    float value = acc(i) * row_alpha(r);
    for (int j = 0; j < count; ++j) value += weights(r * count + j) * to_float(v(j * head_size + d));
    acc(i) = value;
  });
}

}  // namespace kattn
