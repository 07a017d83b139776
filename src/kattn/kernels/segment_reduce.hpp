// The parallel tiled softmax's second step (paper 4.5): teams that each saw one segment of a
// row's keys leave partial results, which SegmentReduceKernel merges into the output. Shared by
// the segmented Q-block kernels and the split-KV decode kernel.
#pragma once

#include "kattn/kernels/kernel_args.hpp"

namespace kattn {

// Partial results of the segments: out unnormalised (relative to its segment max), max, sum, for
// the tokens of one launch (a part of a call), addressed by the call's token. They live in the
// Workspace.
struct SegmentPartials {
  template <class T>
  using Array = Kokkos::View<T, Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged>;
  Array<float****> out_rows;  // [segments, the part's tokens, q_heads, head]
  Array<float***> max_rows;   // [segments, the part's tokens, q_heads]
  Array<float***> sum_rows;   // [segments, the part's tokens, q_heads]
  int first_token = 0;        // row t holds the call's token first_token + t

  KOKKOS_INLINE_FUNCTION float& out(int segment, int token, int head, int d) const {
    return out_rows(segment, token - first_token, head, d);
  }
  KOKKOS_INLINE_FUNCTION float& max(int segment, int token, int head) const {
    return max_rows(segment, token - first_token, head);
  }
  KOKKOS_INLINE_FUNCTION float& sum(int segment, int token, int head) const {
    return sum_rows(segment, token - first_token, head);
  }
};

// Merges the segment partials of each (token, query head), and the head's sink: the weight of
// each segment (exp of its max against the row's max) is computed once per row into team scratch.
// Segments that saw no key (sum 0) contribute nothing, and a row no segment saw yields zeros.
template <class Space, class Args>
struct SegmentReduceKernel {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using WeightScratch = Kokkos::View<float*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  Args args;
  SegmentPartials partials;
  int num_segments;
  int first_token;  // the launch merges the rows of tokens [first_token, first_token + num_tokens)
  int num_tokens;
  bool static_grid;

  static std::size_t scratch_bytes(int num_segments) { return WeightScratch::shmem_size(num_segments); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const WeightScratch weights(team.team_scratch(0), num_segments);
    if (!static_grid) return process(team, weights, team.league_rank());
    const int items = num_tokens * args.num_q_heads;
    for (int item = team.league_rank(); item < items; item += team.league_size()) process(team, weights, item);
  }

  KOKKOS_INLINE_FUNCTION void process(const Member& team, const WeightScratch& weights, int item) const {
    const int token = first_token + item / args.num_q_heads;
    const int head = item % args.num_q_heads;
    const SoftmaxState sink = args.rules.initial_state(head);
    float segments_max = -compat::infinity();
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, num_segments),
        [&](int s, float& m) {
          if (partials.sum(s, token, head) > 0.0f) m = compat::fmax(m, partials.max(s, token, head));
        },
        Kokkos::Max<float>(segments_max));
    const float global_max = compat::fmax(segments_max, sink.max);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, num_segments), [&](int s) {
      weights(s) = partials.sum(s, token, head) > 0.0f ? compat::exp(partials.max(s, token, head) - global_max) : 0.0f;
    });
    team.team_barrier();
    float total = 0.0f;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, num_segments),
        [&](int s, float& t) {
          if (weights(s) > 0.0f) t += weights(s) * partials.sum(s, token, head);
        },
        total);
    if (sink.sum > 0.0f) total += compat::exp(sink.max - global_max);
    const float inverse_total = total > 0.0f ? 1.0f / total : 0.0f;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, args.head_size), [&](int d) {
      float value = 0.0f;
      for (int s = 0; s < num_segments; ++s)  // a segment without keys left its out unwritten
        if (weights(s) > 0.0f) value += weights(s) * partials.out(s, token, head, d);
      args.store_out(token, head, d, value * inverse_total);
    });
    team.team_barrier();  // a static-grid team reuses the weights for its next item
  }
};

}  // namespace kattn
