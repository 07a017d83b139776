// Team-level tile primitives shared by the kernels: scores of one query row against a tile of
// keys, and the probability-weighted accumulation of the value tile. Portable Kokkos
// implementations; backend-specific versions (tensor-core MMA) specialise these later.
#pragma once

#include "kattn/core/compat.hpp"
#include "kattn/core/storage_types.hpp"
#include "kattn/detail/tiles/paged_kv.hpp"
#include "kattn/detail/tiles/score_rules.hpp"

namespace kattn {

// The query row a tile of scores belongs to.
struct KeyRow {
  int head;
  int position;     // absolute position of the query
  int context_len;  // of its sequence
};

// scores[j] = the logit of key first + j for j < count (keys the row sees), keys addressed
// through the block-table row of the sequence. Threads take keys, vector lanes take
// the head dimension.
template <class Member, class Storage, class ScratchView>
KOKKOS_INLINE_FUNCTION void tile_scores(const Member& team, const ScratchView& q, const PagedKvAccessor<Storage>& k,
                                        const std::int32_t* block_row, int block_size, int kv_head, int first,
                                        int count, int head_size, const ScoreRules<>& rules, const KeyRow& row,
                                        const ScratchView& scores) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](int j) {
    const int position = first + j;
    const Storage* key = k.row(block_row[position / block_size], position % block_size, kv_head);
    float dot = 0.0f;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, head_size), [&](int d, float& partial) { partial += q(d) * to_float(key[d]); },
        dot);
    Kokkos::single(Kokkos::PerThread(team),
                   [&]() { scores(j) = rules.logit(dot, row.head, row.position, position, row.context_len); });
  });
}

template <class Member, class ScratchView>
KOKKOS_INLINE_FUNCTION float tile_max(const Member& team, const ScratchView& scores, int count) {
  float result = -compat::infinity();
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, count), [&](int j, float& partial) { partial = compat::fmax(partial, scores(j)); },
      Kokkos::Max<float>(result));
  return result;
}

// Replaces scores by their softmax weights and returns their sum.
template <class Member, class ScratchView, class State>
KOKKOS_INLINE_FUNCTION float tile_weights(const Member& team, const ScratchView& scores, int count,
                                          const State& state) {
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, count), [&](int j) { scores(j) = state.weight(scores(j)); });
  team.team_barrier();
  float sum = 0.0f;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(team, count), [&](int j, float& partial) { partial += scores(j); }, sum);
  return sum;
}

// acc[d] = alpha * acc[d] + sum_j weights[j] * V[first + j][d].
template <class Member, class Storage, class ScratchView>
KOKKOS_INLINE_FUNCTION void tile_accumulate(const Member& team, const ScratchView& acc, float alpha,
                                            const ScratchView& weights, const PagedKvAccessor<Storage>& v,
                                            const std::int32_t* block_row, int block_size, int kv_head, int first,
                                            int count, int head_size) {
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, head_size), [&](int d) {
    float value = acc(d) * alpha;
    for (int j = 0; j < count; ++j) {
      const int position = first + j;
      value += weights(j) * to_float(v.row(block_row[position / block_size], position % block_size, kv_head)[d]);
    }
    acc(d) = value;
  });
}

}  // namespace kattn
