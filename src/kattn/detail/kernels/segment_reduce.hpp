// The parallel tiled softmax's second step (paper 4.5): teams that each saw one segment of a
// row's keys leave partial results, which SegmentReduceKernel merges into the output. Shared by
// the segmented Q-block kernels and the split-KV decode kernel.
#pragma once

#include "kattn/detail/kernels/kernel_args.hpp"
#include "kattn/detail/tiles/team_arrival.hpp"
#include "kattn/detail/tiles/vector_lanes.hpp"

namespace kattn {

// A partial written by another team of the same launch (split_kv's last-team merge): read past
// the SM's L1, which is not coherent with other SMs' writes (on CUDA a cache-global load, which the
// compiler may still batch, unlike a volatile one).
KOKKOS_INLINE_FUNCTION float load_partial(const float& value) {
#if defined(__CUDA_ARCH__)
  return __ldcg(&value);
#else
  return *static_cast<const volatile float*>(&value);
#endif
}

// Four consecutive partials (16-byte aligned) in one load, as load_partial.
KOKKOS_INLINE_FUNCTION void load_partials4(const float* values, float (&into)[4]) {
#if defined(__CUDA_ARCH__)
  const float4 v = __ldcg(reinterpret_cast<const float4*>(values));
  into[0] = v.x, into[1] = v.y, into[2] = v.z, into[3] = v.w;
#else
  for (int e = 0; e < 4; ++e) into[e] = load_partial(values[e]);
#endif
}

// Partial results of the segments: out unnormalised (relative to its segment max), max, sum, for
// the tokens of one launch (a part of a call), addressed by the call's token. They live in the
// Workspace, in Memory.
template <class Memory>
struct SegmentPartials {
  template <class T>
  using Array = Kokkos::View<T, Kokkos::LayoutRight, Memory, Kokkos::MemoryUnmanaged>;
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

  // The max of a segment that saw keys (-inf for one that saw none), as another team left it.
  KOKKOS_INLINE_FUNCTION float seen_max(int segment, int token, int head) const {
    return load_partial(sum(segment, token, head)) > 0.0f ? load_partial(max(segment, token, head))
                                                          : -compat::infinity();
  }
  // A segment's weight against the row's max (0 for a segment that saw no key).
  KOKKOS_INLINE_FUNCTION float weight(int segment, int token, int head, float row_max) const {
    return load_partial(sum(segment, token, head)) > 0.0f
               ? compat::exp(load_partial(max(segment, token, head)) - row_max)
               : 0.0f;
  }
  // weighted_out for elements d .. d + 3 (d a multiple of 4, head size too): one 16-byte load a segment.
  KOKKOS_INLINE_FUNCTION void weighted_out4(const float* weights, int segments, int token, int head, int d,
                                            float (&value)[4]) const {
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll 8
#endif
    for (int s = 0; s < segments; ++s) {
      float partial[4];
      load_partials4(&out(s, token, head, d), partial);
      for (int e = 0; e < 4; ++e) value[e] += weights[s] > 0.0f ? weights[s] * partial[e] : 0.0f;
    }
  }
  // Sum over the segments of weights[s] · out: a segment without keys left its out unwritten (and
  // maybe NaN), selected away, not skipped, so that the loads of several segments are in flight.
  KOKKOS_INLINE_FUNCTION float weighted_out(const float* weights, int segments, int token, int head, int d) const {
    float value = 0.0f;
#if defined(__CUDACC__) || defined(__HIPCC__)
#pragma unroll 8
#endif
    for (int s = 0; s < segments; ++s) {
      const float partial = load_partial(out(s, token, head, d));
      value += weights[s] > 0.0f ? weights[s] * partial : 0.0f;
    }
    return value;
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
  SegmentPartials<typename Space::memory_space> partials;
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
        [&](int s, float& m) { m = compat::fmax(m, partials.seen_max(s, token, head)); },
        Kokkos::Max<float>(segments_max));
    const float global_max = compat::fmax(segments_max, sink.max);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, num_segments),
                         [&](int s) { weights(s) = partials.weight(s, token, head, global_max); });
    team.team_barrier();
    float total = 0.0f;
    Kokkos::parallel_reduce(
        Kokkos::TeamVectorRange(team, num_segments),
        [&](int s, float& t) {
          if (weights(s) > 0.0f) t += weights(s) * load_partial(partials.sum(s, token, head));
        },
        total);
    if (sink.sum > 0.0f) total += compat::exp(sink.max - global_max);
    const float inverse_total = total > 0.0f ? 1.0f / total : 0.0f;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, args.head_size), [&](int d) {
      args.store_out(token, head, d,
                     partials.weighted_out(weights.data(), num_segments, token, head, d) * inverse_total);
    });
    team.team_barrier();  // a static-grid team reuses the weights for its next item
  }
};

// The last team of a split-KV row group to finish merges every partition of its rows (query
// heads first_head .. first_head + rows - 1 of `token`) into the output, with `scratch` of
// split_kv_merge_bytes(rows, num_partitions); the counter goes back to zero for the next call
// (team_arrive_last: each team's partials are released with its arrival, acquired by the last).
// Called by every thread of the team, after its partials are written. It sits at the end of every
// split-KV launch's critical path, so its loads go out in two rounds whatever the rows and
// partitions: every partition's max and sum at once, then every output element's partials at once
// (four at a time where the head size allows), the reductions between them in scratch. (Rounds of
// loads a row and an element, one after the other, took ~10 µs of a 24 µs batch-1 decode on the H100.)
template <class Space, class Member, class Args>
KOKKOS_INLINE_FUNCTION void merge_partitions_if_last(const Member& team, const Args& args,
                                                     const SegmentPartials<typename Space::memory_space>& partials,
                                                     std::int32_t* counter, int num_partitions, int token,
                                                     int first_head, int rows, float* scratch) {
  if (!team_arrive_last(team, counter, num_partitions)) return;
  const int partitions = num_partitions;
  float* const inverse_total = scratch;             // [rows]
  float* const weights = scratch + rows;            // [rows][partitions]: the maxima, then the weights
  float* const sums = weights + rows * partitions;  // [rows][partitions]
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * partitions), [&](int i) {
    const int r = i / partitions, s = i - r * partitions;
    const float sum = load_partial(partials.sum(s, token, first_head + r));
    const float max = load_partial(partials.max(s, token, first_head + r));
    sums[i] = sum;
    weights[i] = sum > 0.0f ? max : -compat::infinity();  // a partition that saw no key weighs 0
  });
  team.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](int r) {
    const SoftmaxState sink = args.rules.initial_state(first_head + r);
    float* const row = weights + r * partitions;
    float row_max = -compat::infinity();
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, partitions), [&](int s, float& m) { m = compat::fmax(m, row[s]); },
        Kokkos::Max<float>(row_max));
    const float global_max = compat::fmax(row_max, sink.max);
    float total = 0.0f;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, partitions),
        [&](int s, float& t) {  // a lane turns the maxima it read into weights
          row[s] = row[s] == -compat::infinity() ? 0.0f : compat::exp(row[s] - global_max);
          t += row[s] * sums[r * partitions + s];
        },
        total);
    if (sink.sum > 0.0f) total += compat::exp(sink.max - global_max);
    Kokkos::single(Kokkos::PerThread(team), [&] { inverse_total[r] = total > 0.0f ? 1.0f / total : 0.0f; });
  });
  team.team_barrier();
  const int head_size = args.head_size;
  const int width = head_size % 4 == 0 ? 4 : 1;  // elements a thread merges at once
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * head_size / width), [&](int i) {
    const int r = i * width / head_size, d = i * width - r * head_size;
    const float* row = weights + r * partitions;
    float value[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (width == 4) {
      partials.weighted_out4(row, partitions, token, first_head + r, d, value);
    } else {
      value[0] = partials.weighted_out(row, partitions, token, first_head + r, d);
    }
    for (int e = 0; e < width; ++e) args.store_out(token, first_head + r, d + e, value[e] * inverse_total[r]);
  });
}

}  // namespace kattn
