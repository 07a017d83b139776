// Paper 4.5 shaped for decode (a query length of one, where the Q-block kernels stage K/V tiles
// for a few rows and wait on barriers): one team per (query token, KV head, group of up to
// kMaxRows query heads of that KV head, partition of the token's visible keys). Every K and V row
// is read once, from global memory straight into registers with 16-byte lane loads (threads take
// keys, vector lanes take 8 head elements each), so the kernel streams the cache at the memory's
// rate. Within a partition the softmax is exact (all scores sit in team scratch); partitions are
// merged by SegmentReduceKernel. Correct for any query length (each token is its own row), but
// planned for decode.
#pragma once

#include "kattn/kernels/kernel_args.hpp"
#include "kattn/kernels/scratch_layout.hpp"
#include "kattn/kernels/segment_reduce.hpp"
#include "kattn/tiles/lane_chunk.hpp"
#include "kattn/tiles/qblock_tile_ops.hpp"

namespace kattn {

// The dot products of two keys with each row of the team's group, summed across the vector lanes.
struct RowDots {
  static constexpr int kValues = 2 * kSplitKvMaxRows;
  float value[kValues];
  KOKKOS_INLINE_FUNCTION RowDots() {
    for (int i = 0; i < kValues; ++i) value[i] = 0.0f;
  }
  KOKKOS_INLINE_FUNCTION RowDots& operator+=(const RowDots& other) {
    for (int i = 0; i < kValues; ++i) value[i] += other.value[i];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile RowDots& other) volatile {  // Kokkos 3.4's join
    for (int i = 0; i < kValues; ++i) value[i] += other.value[i];
  }
};

}  // namespace kattn

template <>
struct Kokkos::reduction_identity<kattn::RowDots> {
  KOKKOS_FORCEINLINE_FUNCTION static kattn::RowDots sum() { return kattn::RowDots(); }
};

namespace kattn {

template <class Space, class Args>
struct SplitKvKernel {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;

  Args args;
  SegmentPartials partials;  // when num_partitions > 1
  int partition_size;        // keys per team
  int num_partitions;
  int row_groups;            // ceil(queries_per_kv / kSplitKvMaxRows)
  int first_token;           // the launch's tokens are first_token, first_token + 1, ...
  bool aligned;              // every cache row admits LaneChunk loads

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int num_kv_heads = args.num_q_heads / args.queries_per_kv;
    int rest = team.league_rank();
    const int partition = rest % num_partitions;
    rest /= num_partitions;
    const int group = rest % row_groups;
    rest /= row_groups;
    const int kv_head = rest % num_kv_heads;
    const int token = first_token + rest / num_kv_heads;

    const int seq = args.find_seq(token);
    const int seq_len = args.seq_lens(seq);
    const int context_len = seq_len - (args.cu_seqlens_q(seq + 1) - args.cu_seqlens_q(seq));
    const int position = context_len + token - args.cu_seqlens_q(seq);
    const int visible_begin = args.rules.first_key(position);
    const int visible_end = args.rules.end_key(position, seq_len, seq);
    const int first = visible_begin + partition * partition_size;
    const int end = first + partition_size < visible_end ? first + partition_size : visible_end;
    const int count = end > first ? end - first : 0;
    const int group_rows = args.queries_per_kv - group * kSplitKvMaxRows;
    const int rows = group_rows < kSplitKvMaxRows ? group_rows : kSplitKvMaxRows;
    const int first_head = kv_head * args.queries_per_kv + group * kSplitKvMaxRows;
    const int head_size = args.head_size;
    const int lanes = lanes_for(head_size);
    const int q_stride = lanes * kLaneElements;

    const FloatScratch q(team.team_scratch(0), kSplitKvMaxRows * q_stride);
    const FloatScratch scores(team.team_scratch(0), kSplitKvMaxRows * partition_size);
    const FloatScratch row_max(team.team_scratch(0), kSplitKvMaxRows);
    const FloatScratch row_sum(team.team_scratch(0), kSplitKvMaxRows);
    const FloatScratch row_alpha(team.team_scratch(0), kSplitKvMaxRows);
    const FloatScratch acc(team.team_scratch(0), kSplitKvMaxRows * head_size);
    const IndexScratch blocks(team.team_scratch(0), partition_size + 1);
    const int block_size = args.block_size;
    const int first_block = first / block_size;
    const int num_blocks = count > 0 ? (end - 1) / block_size - first_block + 1 : 0;
    // q sits lane-interleaved: element e of lane l's chunk of row r at (r·kLaneElements + e)·lanes + l,
    // so the lanes of a thread read consecutive words (row-major, 8 floats apart, they would hit
    // the same banks four at a time).
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * q_stride), [&](int i) {
      const int r = i / q_stride;
      const int d = i - r * q_stride;
      q((r * kLaneElements + d % kLaneElements) * lanes + d / kLaneElements) =
          d < head_size ? to_float(args.q(token, first_head + r, d)) : 0.0f;
      if (d < head_size) acc(r * head_size + d) = 0.0f;
    });
    // The partition's block ids, read once: every key's address then costs one load, not two.
    const std::int32_t* block_row = &args.block_table(seq, 0) + first_block;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, num_blocks), [&](int i) { blocks(i) = block_row[i]; });
    team.team_barrier();
    const auto k_row = [&](int key) {
      return args.k.row(blocks(key / block_size - first_block), key % block_size, kv_head);
    };
    const auto v_row = [&](int key) {
      return args.v.row(blocks(key / block_size - first_block), key % block_size, kv_head);
    };
    // Scores: a thread per pair of keys (both rows loaded before either is used, to keep more
    // loads in flight), its lanes split the head dimension and sum their dot products.
    const int pairs = (count + 1) / 2;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, pairs), [&](int pair) {
      const int keys[2] = {first + pair, first + pair + pairs};
      const bool second = pair + pairs < count;
      const typename Args::cache_type* k_rows[2] = {k_row(keys[0]), second ? k_row(keys[1]) : nullptr};
      RowDots dots;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](int lane, RowDots& partial) {
            float k[2][kLaneElements] = {};
            load_lane_chunk(k_rows[0], lane, head_size, aligned, k[0]);
            if (second) load_lane_chunk(k_rows[1], lane, head_size, aligned, k[1]);
            for (int r = 0; r < kSplitKvMaxRows; ++r) {
              if (r >= rows) break;
              float dot[2] = {0.0f, 0.0f};
              for (int e = 0; e < kLaneElements; ++e) {
                const float q_element = q((r * kLaneElements + e) * lanes + lane);
                dot[0] += q_element * k[0][e];
                dot[1] += q_element * k[1][e];
              }
              partial.value[r] += dot[0];
              partial.value[kSplitKvMaxRows + r] += dot[1];
            }
          },
          dots);
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        for (int i = 0; i < (second ? 2 : 1); ++i)
          for (int r = 0; r < rows; ++r)
            scores(r * count + keys[i] - first) =
                args.rules.logit(dots.value[i * kSplitKvMaxRows + r], first_head + r, position, keys[i], context_len);
      });
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows), [&](int r) {
      row_max(r) = -compat::infinity();
      row_sum(r) = 0.0f;
    });
    team.team_barrier();
    qblock_softmax_update(team, rows, count, scores, row_max, row_sum, row_alpha);
    team.team_barrier();

    // Values: each thread sums its keys' weighted rows in registers, then adds them to acc; a
    // thread loads kValueBatch rows before using any, so that many loads are in flight.
    constexpr int kValueBatch = 4;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](int thread) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int lane) {
        float sums[kSplitKvMaxRows][kLaneElements] = {};
        const int stride = team.team_size();
        for (int j0 = thread; j0 < count; j0 += kValueBatch * stride) {
          float v[kValueBatch][kLaneElements] = {};
          for (int u = 0; u < kValueBatch; ++u)
            if (j0 + u * stride < count) load_lane_chunk(v_row(first + j0 + u * stride), lane, head_size, aligned, v[u]);
          for (int u = 0; u < kValueBatch; ++u) {
            if (j0 + u * stride >= count) break;
            for (int r = 0; r < kSplitKvMaxRows; ++r) {
              if (r >= rows) break;
              const float weight = scores(r * count + j0 + u * stride);
              for (int e = 0; e < kLaneElements; ++e) sums[r][e] += weight * v[u][e];
            }
          }
        }
        for (int r = 0; r < rows; ++r)
          for (int e = 0; e < kLaneElements; ++e)
            if (lane * kLaneElements + e < head_size)
              Kokkos::atomic_add(&acc(r * head_size + lane * kLaneElements + e), sums[r][e]);
      });
    });
    team.team_barrier();

    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * head_size), [&](int i) {
      const int r = i / head_size;
      const int d = i - r * head_size;
      const int head = first_head + r;
      if (num_partitions > 1) {
        partials.out(partition, token, head, d) = acc(i);
        if (d == 0) {
          partials.max(partition, token, head) = row_max(r);
          partials.sum(partition, token, head) = row_sum(r);
        }
        return;
      }
      // The only partition: fold in the head's sink and normalise here.
      SoftmaxState state{row_max(r), row_sum(r)};
      const SoftmaxState sink = args.rules.initial_state(head);
      float alpha = 1.0f;
      if (sink.sum > 0.0f) {
        alpha = state.rescale_to(sink.max);
        state.sum += state.weight(sink.max);
      }
      args.store_out(token, head, d, acc(i) * alpha * state.inverse_sum());
    });
  }
};

}  // namespace kattn
