// Paper 4.3 (Listing 3): one team per (query token, query head), online softmax over tiles of
// keys read through the block table, fp32 accumulation in team scratch.
#pragma once

#include "kattn/detail/kernels/kernel_args.hpp"
#include "kattn/detail/shapes/scratch_layout.hpp"
#include "kattn/detail/tiles/online_softmax.hpp"
#include "kattn/detail/tiles/team_tile_ops.hpp"

namespace kattn {

template <class Space, class Args>
struct BaselineKernel {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;

  Args args;
  int tile_size;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int token = team.league_rank() / args.num_q_heads;
    const int head = team.league_rank() % args.num_q_heads;
    const int kv_head = args.queries_per_kv.div(head);
    const int seq = args.find_seq(token);
    const int first_token = args.cu_seqlens_q(seq);
    const int seq_len = args.seq_lens(seq);
    const int context_len = seq_len - (args.cu_seqlens_q(seq + 1) - first_token);
    const int position = context_len + (token - first_token);
    const int first_key = args.rules.first_key(position);
    const int end_key = args.rules.end_key(position, seq_len, seq);
    const int head_size = args.head_size;

    FloatScratch<Space> q(team.team_scratch(0), head_size);
    FloatScratch<Space> acc(team.team_scratch(0), head_size);
    FloatScratch<Space> scores(team.team_scratch(0), tile_size);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, head_size), [&](int d) {
      q(d) = to_float(args.q(token, head, d));
      acc(d) = 0.0f;
    });
    team.team_barrier();

    const std::int32_t* block_row = &args.block_table(seq, 0);
    SoftmaxState state = args.rules.initial_state(head);
    // Tiles start at the window start: a key outside the window is never read, since its cache
    // slot may hold anything (NaN too, which a weight of 0 does not cancel).
    for (int first = first_key; first < end_key; first += tile_size) {
      const int count = end_key - first < tile_size ? end_key - first : tile_size;
      const KeyRow row{head, position, context_len};
      tile_scores(team, q, args.k, block_row, args.block_size, kv_head, first, count, head_size, args.rules, row,
                  scores);
      team.team_barrier();
      const float alpha = state.rescale_to(tile_max(team, scores, count));
      state.sum += tile_weights(team, scores, count, state);
      tile_accumulate(team, acc, alpha, scores, args.v, block_row, args.block_size, kv_head, first, count, head_size);
      team.team_barrier();  // scores are overwritten by the next tile
    }

    const float inverse_sum = state.inverse_sum();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, head_size),
                         [&](int d) { args.store_out(token, head, d, acc(d) * inverse_sum); });
  }
};

}  // namespace kattn
