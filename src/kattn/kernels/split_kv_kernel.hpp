// Paper 4.5 shaped for decode, streaming the cache at the memory's rate (FlashInfer's batch decode
// and FlashAttention's split-KV kernel, in Kokkos): one team per (query token, KV head, group of up
// to kSplitKvMaxRows query heads of that KV head, partition of the token's visible keys).
//
// A team is `workers` Kokkos threads of `lanes` vector lanes; a lane holds kLaneElements of the
// head dimension (16 bytes of fp16). Each worker walks its own keys, kSplitKvStepKeys at a time:
// it loads their K and V rows together (2 × kSplitKvStepKeys 16-byte loads in flight per lane), sums
// the dot products across its lanes (vector_lanes_sum) and folds the keys into a running softmax
// and output kept in registers. No scratch and no barrier inside the key loop. At the end the
// workers' states merge in team scratch; a partition writes its partial state and the last team of
// a row group to finish (a device-wide counter) merges all partitions, so decode is one launch.
// Correct for any query length (each token is its own row), but planned for decode.
#pragma once

#include "kattn/kernels/kernel_args.hpp"
#include "kattn/kernels/scratch_layout.hpp"
#include "kattn/kernels/segment_reduce.hpp"
#include "kattn/tiles/lane_chunk.hpp"
#include "kattn/tiles/vector_lanes.hpp"

namespace kattn {

template <class Space, class Args>
struct SplitKvKernel {
  // At most 256 threads a team and 2 teams an SM: registers capped at 128 a thread, so that
  // 4 teams of 128 threads share an SM (uncapped, the key loop took 220+ and 2 teams fit).
  using Policy = Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<kSplitKvMaxThreads, 2>>;
  using Member = typename Policy::member_type;
  using Cache = typename Args::cache_type;
  static constexpr int kRows = kSplitKvMaxRows;
  static constexpr int kSteps = kSplitKvStepKeys;
  static constexpr int kChunks = kSplitKvLaneChunks<Space>;  // lane chunks a lane holds

  Args args;
  SegmentPartials partials;  // when num_partitions > 1
  std::int32_t* counters;    // when num_partitions > 1: [tokens × KV heads × row groups], zero between calls
  int partition_size;        // keys per team
  int num_partitions;
  int row_groups;            // ceil(queries_per_kv / kRows)
  int lanes;                 // the launch's vector length
  int first_token;           // the launch's tokens are first_token, first_token + 1, ...
  bool aligned;              // every cache row admits LaneChunk loads

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int num_kv_heads = args.num_q_heads / args.queries_per_kv;
    const int partition = team.league_rank() % num_partitions;
    const int row_group_item = team.league_rank() / num_partitions;  // (token, KV head, group)
    const int group = row_group_item % row_groups;
    const int kv_head = row_group_item / row_groups % num_kv_heads;
    const int token = first_token + row_group_item / (row_groups * num_kv_heads);

    const int seq = args.find_seq(token);
    const int seq_len = args.seq_lens(seq);
    const int context_len = seq_len - (args.cu_seqlens_q(seq + 1) - args.cu_seqlens_q(seq));
    const int position = context_len + token - args.cu_seqlens_q(seq);
    const int visible_begin = args.rules.first_key(position);
    const int visible_end = args.rules.end_key(position, seq_len, seq);
    const int first = visible_begin + partition * partition_size;
    const int end = first + partition_size < visible_end ? first + partition_size : visible_end;
    const int count = end > first ? end - first : 0;
    const int group_rows = args.queries_per_kv - group * kRows;
    const int rows = group_rows < kRows ? group_rows : kRows;
    const int first_head = kv_head * args.queries_per_kv + group * kRows;
    const int workers = team.team_size();
    const int block_size = args.block_size;
    const int first_block = first / block_size;
    const int num_blocks = count > 0 ? (end - 1) / block_size - first_block + 1 : 0;

    const IndexScratch blocks(team.team_scratch(0), partition_size / block_size + 2);
    const FloatScratch worker_max(team.team_scratch(0), workers * kRows);
    const FloatScratch worker_sum(team.team_scratch(0), workers * kRows);
    // The workers' outputs; the partition merge reuses the space for its weights.
    const FloatScratch worker_out(team.team_scratch(0), split_kv_merge_floats(workers, args.head_size, num_partitions));
    // The partition's block ids, read once: every key's address then costs one load, not two.
    const std::int32_t* block_row = &args.block_table(seq, 0) + first_block;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, num_blocks), [&](int i) { blocks(i) = block_row[i]; });
    team.team_barrier();

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, workers), [&](int worker) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](int lane) {
        stream_keys(worker, workers, lane, token, first_head, rows, position, context_len, first, end, first_block,
                    blocks, worker_max, worker_sum, worker_out);
      });
    });
    team.team_barrier();
    merge_workers(team, token, first_head, rows, partition, worker_max, worker_sum, worker_out);
    if (num_partitions > 1) {
      team.team_barrier();  // the merge's weights take the workers' space
      merge_partitions_if_last(team, token, first_head, rows, row_group_item, worker_out);
    }
  }

  // One worker lane's pass over its keys: the worker takes kSteps consecutive keys of every
  // workers × kSteps; its running max, sum and output stay in registers, then go to scratch.
  template <class Blocks>
  KOKKOS_INLINE_FUNCTION void stream_keys(int worker, int workers, int lane, int token, int first_head, int rows, int position,
                                          int context_len, int first, int end, int first_block, const Blocks& blocks,
                                          const FloatScratch& worker_max, const FloatScratch& worker_sum,
                                          const FloatScratch& worker_out) const {
    const int head_size = args.head_size;
    const int kv_head = first_head / args.queries_per_kv;
    const int block_size = args.block_size;
    const int chunks = (lanes_for(head_size) + lanes - 1) / lanes;  // of kChunks, the ones this head needs
    float q[kRows][kChunks][kLaneElements];
    float out[kRows][kChunks][kLaneElements];
    float row_max[kRows], row_sum[kRows];
    KATTN_UNROLL
    for (int r = 0; r < kRows; ++r) {
      row_max[r] = -compat::infinity();
      row_sum[r] = 0.0f;
      KATTN_UNROLL
      for (int c = 0; c < kChunks; ++c) {
        const int d0 = (c * lanes + lane) * kLaneElements;
        KATTN_UNROLL
        for (int e = 0; e < kLaneElements; ++e) {
          q[r][c][e] = r < rows && d0 + e < head_size ? to_float(args.q(token, first_head + r, d0 + e)) : 0.0f;
          out[r][c][e] = 0.0f;
        }
      }
    }
    for (int key0 = first + worker * kSteps; key0 < end; key0 += workers * kSteps) {
      LaneChunk<Cache> k[kSteps][kChunks], v[kSteps][kChunks];
      KATTN_UNROLL
      for (int s = 0; s < kSteps; ++s) {
        const int key = key0 + s < end ? key0 + s : key0;  // past the end: a visible key, masked below
        const std::int32_t block = blocks(key / block_size - first_block);
        const Cache* k_row = args.k.row(block, key % block_size, kv_head);
        const Cache* v_row = args.v.row(block, key % block_size, kv_head);
        KATTN_UNROLL
        for (int c = 0; c < kChunks; ++c) {
          if (c >= chunks) break;
          k[s][c] = load_lane_raw(k_row, c * lanes + lane, head_size, aligned);
          v[s][c] = load_lane_raw(v_row, c * lanes + lane, head_size, aligned);
        }
      }
      float dots[kSteps * kRows];
      KATTN_UNROLL
      for (int s = 0; s < kSteps; ++s)
        KATTN_UNROLL
        for (int r = 0; r < kRows; ++r) {
          float dot = 0.0f;
          KATTN_UNROLL
          for (int c = 0; c < kChunks; ++c) {
            if (c >= chunks) break;
            KATTN_UNROLL
            for (int e = 0; e < kLaneElements; ++e) dot += q[r][c][e] * lane_to_float(k[s][c].values[e]);
          }
          dots[s * kRows + r] = dot;
        }
      vector_lanes_sum(dots, lanes);
      KATTN_UNROLL
      for (int r = 0; r < kRows; ++r) {
        if (r >= rows) break;
        float logits[kSteps];
        float step_max = -compat::infinity();
        KATTN_UNROLL
        for (int s = 0; s < kSteps; ++s) {
          logits[s] = key0 + s < end ? args.rules.logit(dots[s * kRows + r], first_head + r, position, key0 + s, context_len)
                                     : -compat::infinity();
          step_max = compat::fmax(step_max, logits[s]);
        }
        // The running max moves only now and then: rescale only then.
        const float new_max = compat::fmax(row_max[r], step_max);
        if (new_max != row_max[r]) {
          const float alpha = row_max[r] == -compat::infinity() ? 0.0f : softmax_exp(row_max[r] - new_max);
          row_sum[r] *= alpha;
          KATTN_UNROLL
          for (int c = 0; c < kChunks; ++c)
            KATTN_UNROLL
            for (int e = 0; e < kLaneElements; ++e) out[r][c][e] *= alpha;
          row_max[r] = new_max;
        }
        KATTN_UNROLL
        for (int s = 0; s < kSteps; ++s) {
          const float p = logits[s] == -compat::infinity() ? 0.0f : softmax_exp(logits[s] - new_max);
          row_sum[r] += p;
          KATTN_UNROLL
          for (int c = 0; c < kChunks; ++c) {
            if (c >= chunks) break;
            KATTN_UNROLL
            for (int e = 0; e < kLaneElements; ++e) out[r][c][e] += p * lane_to_float(v[s][c].values[e]);
          }
        }
      }
    }
    for (int r = 0; r < rows; ++r) {
      if (lane == 0) {
        worker_max(worker * kRows + r) = row_max[r];
        worker_sum(worker * kRows + r) = row_sum[r];
      }
      KATTN_UNROLL
      for (int c = 0; c < kChunks; ++c)
        KATTN_UNROLL
        for (int e = 0; e < kLaneElements; ++e) {
          const int d = (c * lanes + lane) * kLaneElements + e;
          if (d < head_size) worker_out((std::size_t(worker) * kRows + r) * head_size + d) = out[r][c][e];
        }
    }
  }

  // Merges the workers' states of each row: the partition's partial, or the output when the
  // partition is the token's only one (with the head's sink folded in).
  KOKKOS_INLINE_FUNCTION void merge_workers(const Member& team, int token, int first_head, int rows, int partition,
                                            const FloatScratch& worker_max, const FloatScratch& worker_sum,
                                            const FloatScratch& worker_out) const {
    const int head_size = args.head_size;
    const int workers = team.team_size();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * head_size), [&](int i) {
      const int r = i / head_size;
      const int d = i - r * head_size;
      const int head = first_head + r;
      SoftmaxState state;
      for (int w = 0; w < workers; ++w)
        if (worker_sum(w * kRows + r) > 0.0f) state.max = compat::fmax(state.max, worker_max(w * kRows + r));
      float value = 0.0f;
      for (int w = 0; w < workers; ++w) {
        if (!(worker_sum(w * kRows + r) > 0.0f)) continue;  // a worker with no visible key wrote no output
        const float weight = compat::exp(worker_max(w * kRows + r) - state.max);
        state.sum += weight * worker_sum(w * kRows + r);
        value += weight * worker_out((std::size_t(w) * kRows + r) * head_size + d);
      }
      if (num_partitions > 1) {
        partials.out(partition, token, head, d) = value;
        if (d == 0) {
          partials.max(partition, token, head) = state.max;
          partials.sum(partition, token, head) = state.sum;
        }
        return;
      }
      const SoftmaxState sink = args.rules.initial_state(head);
      float alpha = 1.0f;
      if (sink.sum > 0.0f) {
        alpha = state.rescale_to(sink.max);
        state.sum += state.weight(sink.max);
      }
      args.store_out(token, head, d, value * alpha * state.inverse_sum());
    });
  }

  // The last team of a row group to finish merges every partition of its rows; the counter goes
  // back to zero for the next call. The fences order each team's partials before its count and
  // the last team's reads after it (CUDA's threadfence-reduction pattern).
  KOKKOS_INLINE_FUNCTION void merge_partitions_if_last(const Member& team, int token, int first_head, int rows,
                                                       int row_group_item, const FloatScratch& weights) const {
    Kokkos::memory_fence();
    team.team_barrier();
    int last = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& is_last) {
          is_last = Kokkos::atomic_fetch_add(&counters[row_group_item], 1) == num_partitions - 1;
          if (is_last) counters[row_group_item] = 0;
        },
        last);
    if (!last) return;
    Kokkos::memory_fence();
    const SegmentReduceKernel<Space, Args> reduce{args, partials, num_partitions, 0, false};
    for (int r = 0; r < rows; ++r) reduce.process(team, weights, token * args.num_q_heads + first_head + r);
  }
};

}  // namespace kattn
