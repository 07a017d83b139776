// Paper 4.5 shaped for decode, streaming the cache at the memory's rate (FlashInfer's batch
// decode kernel, in Kokkos): one team per (query token, KV head, group of up to kSplitKvMaxRows
// query heads of that KV head, partition of the token's visible keys).
//
// The team stages K/V tiles of stage_keys() keys into a ring of scratch buffers, `stages` - 1
// tiles ahead of the one it computes on (team_stage_rows: cp.async on CUDA, so the loads in
// flight cost no registers). A worker (a Kokkos thread of `lanes` vector lanes, 8 head elements a
// lane) takes worker_keys keys of each tile for all the group's rows: it sums the dot products
// across its lanes (vector_lanes_sum) and folds the keys into a softmax state and output kept in
// registers, written SPMD-style (every lane runs the whole body; one team barrier per tile).
// The workers' states merge in scratch, in worker order (the same bits on every call); a
// partition writes its partial state, and the last team
// of a row group to finish (a device-wide counter) merges all partitions, so decode is one launch.
// Correct for any query length (each token is its own row), but planned for decode.
#pragma once

#include "kattn/detail/kernels/kernel_args.hpp"
#include "kattn/detail/kernels/segment_reduce.hpp"
#include "kattn/detail/shapes/scratch_layout.hpp"
#include "kattn/detail/tiles/lane_chunk.hpp"
#include "kattn/detail/tiles/team_stage.hpp"
#include "kattn/detail/tiles/vector_lanes.hpp"

namespace kattn {

// The first key of a partition. Without a window it does not depend on the sequence's length, so
// a team can fetch its block ids while that length is still in flight.
template <class Rules>
KOKKOS_INLINE_FUNCTION int split_kv_partition_first(const Rules& rules, int position, int partition,
                                                    int partition_size) {
  return (rules.window_left < 0 ? 0 : rules.first_key(position)) + partition * partition_size;
}

// How a split-KV launch divides its tokens into teams, shared by the CUDA-core and the
// tensor-core kernels: one team per (token, KV head, row group of rows_per_group query heads,
// partition of partition_size visible keys), partitions fastest.
struct SplitKvGrid {
  int partition_size;  // keys per team
  int num_partitions;
  int row_groups;        // ceil(queries_per_kv / rows_per_group)
  int rows_per_group;    // query heads per team
  int first_token;       // the launch's tokens are first_token, first_token + 1, ...
  bool one_query_a_seq;  // token t is sequence t's only query (a plan-time fact of decode parts)
};

// A split-KV team's share of the work, from its league rank.
struct SplitKvItem {
  int partition, row_group_item, token, kv_head, first_head, rows;
  int seq, position, context_len, first, end;  // the partition's keys are [first, end)
};

// The team's place (partition, heads, token, sequence), before any of its sequence's lengths is read.
template <class Args>
KOKKOS_INLINE_FUNCTION SplitKvItem split_kv_place(const Args& args, int league_rank, const SplitKvGrid& grid) {
  SplitKvItem it;
  const int num_kv_heads = args.num_kv_heads.divisor;
  it.partition = league_rank % grid.num_partitions;
  it.row_group_item = league_rank / grid.num_partitions;
  const int group = it.row_group_item % grid.row_groups;
  it.kv_head = it.row_group_item / grid.row_groups % num_kv_heads;
  it.token = grid.first_token + it.row_group_item / (grid.row_groups * num_kv_heads);
  const int group_rows = args.queries_per_kv.divisor - group * grid.rows_per_group;
  it.rows = group_rows < grid.rows_per_group ? group_rows : grid.rows_per_group;
  it.first_head = it.kv_head * args.queries_per_kv.divisor + group * grid.rows_per_group;
  // Decode needs no search for the token's sequence nor its query offsets: fewer loads in the
  // chain of dependent loads that starts every team (seven fewer at batch 128).
  it.seq = grid.one_query_a_seq ? it.token : args.find_seq(it.token);
  return it;
}

// The team's keys, from its sequence's length (rules: args.rules, or as a kernel compiled them).
template <class Args, class Rules>
KOKKOS_INLINE_FUNCTION void split_kv_keys(const Args& args, const Rules& rules, const SplitKvGrid& grid, int seq_len,
                                          SplitKvItem& it) {
  const int query_start = grid.one_query_a_seq ? it.token : args.cu_seqlens_q(it.seq);
  const int query_len = grid.one_query_a_seq ? 1 : args.cu_seqlens_q(it.seq + 1) - query_start;
  it.context_len = seq_len - query_len;
  it.position = it.context_len + it.token - query_start;
  const int visible_end = rules.end_key(it.position, seq_len, it.seq);
  it.first = split_kv_partition_first(rules, it.position, it.partition, grid.partition_size);
  it.end = it.first + grid.partition_size < visible_end ? it.first + grid.partition_size : visible_end;
  if (it.end < it.first) it.end = it.first;
}

template <class Args>
KOKKOS_INLINE_FUNCTION SplitKvItem split_kv_item(const Args& args, int league_rank, const SplitKvGrid& grid) {
  SplitKvItem it = split_kv_place(args, league_rank, grid);
  split_kv_keys(args, args.rules, grid, args.seq_lens(it.seq), it);
  return it;
}

template <class Space, class Args>
struct SplitKvKernel {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Cache = typename Args::cache_type;
  static constexpr int kRows = kSplitKvMaxRows;
  static constexpr int kKeys = kSplitKvMaxWorkerKeys;
  // Lane chunks a lane holds: one on GPUs (lanes cover the row), the whole row on host backends.
  static constexpr int kChunks =
      Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible ? kSplitKvMaxHead / kLaneElements : 1;

  Args args;
  SegmentPartials<typename Space::memory_space> partials;  // when num_partitions > 1
  std::int32_t* counters;  // when num_partitions > 1: [tokens × KV heads × row groups], zero between calls
  SplitKvShape shape;
  SplitKvGrid grid;  // rows_per_group at most kRows
  int lanes;         // the launch's vector length
  bool aligned;      // every cache row admits LaneChunk loads

  // What each worker lane keeps in registers over the key loop.
  struct LaneState {
    float q[kRows][kChunks][kLaneElements];
    float out[kRows][kChunks][kLaneElements];
    SoftmaxState softmax[kRows];
  };

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const SplitKvItem it = split_kv_item(args, team.league_rank(), grid);
    const int head_size = args.head_size;
    const int worker = team.team_rank();
    const int lane = vector_lane(team);
    const int workers = shape.workers;
    const int block_size = args.block_size;
    const int first_block = it.first / block_size;
    const int num_blocks = it.end > it.first ? (it.end - 1) / block_size - first_block + 1 : 0;

    const IndexScratch<Space> block_ids(team.team_scratch(0), grid.partition_size / block_size + 2);
    const FloatScratch<Space> worker_max(team.team_scratch(0), workers * kRows);
    const FloatScratch<Space> worker_sum(team.team_scratch(0), workers * kRows);
    const std::size_t stage_elements = std::size_t(shape.stage_keys()) * shape.stride;
    void* region = team.team_scratch(0).get_shmem_aligned(
        split_kv_region_bytes(shape, head_size, grid.num_partitions, sizeof(Cache)), 16);
    auto* tiles = static_cast<Cache*>(region);

    // The partition's block ids, read once: every key's address then costs one scratch load.
    const std::int32_t* block_row = &args.block_table(it.seq, 0) + first_block;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, num_blocks), [&](int i) { block_ids(i) = block_row[i]; });

    LaneState s;
    const int row_chunks = lanes_for(head_size);
    KATTN_UNROLL
    for (int r = 0; r < kRows; ++r) {
      KATTN_UNROLL
      for (int c = 0; c < kChunks; ++c) {
        const int d0 = (c * lanes + lane) * kLaneElements;
        KATTN_UNROLL
        for (int e = 0; e < kLaneElements; ++e) {
          s.q[r][c][e] =
              r < it.rows && d0 + e < head_size ? to_float(args.q(it.token, it.first_head + r, d0 + e)) : 0.0f;
          s.out[r][c][e] = 0.0f;
        }
      }
    }
    team.team_barrier();

    const CacheRowsAt at{block_ids.data(), first_block, block_size, it.kv_head};
    const int stage_keys = shape.stage_keys();
    const int num_tiles = (it.end - it.first + stage_keys - 1) / stage_keys;
    const auto stage = [&](int tile) {
      if (tile < num_tiles) {
        const int first = it.first + tile * stage_keys;
        const int count = it.end - first < stage_keys ? it.end - first : stage_keys;
        Cache* k_tile = tiles + std::size_t(2 * (tile % shape.stages)) * stage_elements;
        team_stage_rows(team, args.k, at, first, count, stage_keys, head_size, shape.stride, aligned, k_tile);
        team_stage_rows(team, args.v, at, first, count, stage_keys, head_size, shape.stride, aligned,
                        k_tile + stage_elements);
      }
      team_stage_commit();  // empty groups past the last tile keep the wait counts uniform
    };
    for (int tile = 0; tile < shape.stages - 1; ++tile) stage(tile);
    for (int tile = 0; tile < num_tiles; ++tile) {
      team_stage_wait(shape.stages - 2);
      team.team_barrier();             // the tile is in scratch, and every worker is done with the previous one
      stage(tile + shape.stages - 1);  // into the previous tile's buffer
      const Cache* k_tile = tiles + std::size_t(2 * (tile % shape.stages)) * stage_elements;
      const int key0 = it.first + tile * stage_keys + worker * shape.worker_keys;
      consume(s, it, k_tile + std::size_t(worker) * shape.worker_keys * shape.stride,
              k_tile + stage_elements + std::size_t(worker) * shape.worker_keys * shape.stride, key0, row_chunks, lane);
    }
    team_stage_wait(0);
    merge_workers(team, s, it, worker, lane, static_cast<float*>(region), worker_max, worker_sum);
    if (grid.num_partitions > 1)
      merge_partitions_if_last<Space>(team, args, partials, counters + it.row_group_item, grid.num_partitions, it.token,
                                      it.first_head, it.rows, static_cast<float*>(region));
  }

  // Folds the worker's keys key0, key0 + 1, ... of a tile (rows at k_rows and v_rows) into its state.
  KOKKOS_INLINE_FUNCTION void consume(LaneState& s, const SplitKvItem& it, const Cache* k_rows, const Cache* v_rows,
                                      int key0, int row_chunks, int lane) const {
    float dots[kKeys * kRows];
    KATTN_UNROLL
    for (int j = 0; j < kKeys; ++j) {
      KATTN_UNROLL
      for (int r = 0; r < kRows; ++r) dots[j * kRows + r] = 0.0f;
      if (j >= shape.worker_keys) continue;
      KATTN_UNROLL
      for (int c = 0; c < kChunks; ++c) {
        const int chunk = c * lanes + lane;
        if (chunk >= row_chunks) break;
        const LaneChunk<Cache> k =
            *reinterpret_cast<const LaneChunk<Cache>*>(k_rows + j * shape.stride + chunk * kLaneElements);
        KATTN_UNROLL
        for (int e = 0; e < kLaneElements; ++e) {
          const float k_element = lane_to_float(k.values[e]);
          KATTN_UNROLL
          for (int r = 0; r < kRows; ++r) dots[j * kRows + r] += s.q[r][c][e] * k_element;
        }
      }
    }
    vector_lanes_sum(dots, lanes);
    KATTN_UNROLL
    for (int r = 0; r < kRows; ++r) {
      if (r >= it.rows) break;
      float logits[kKeys];
      float tile_max = -compat::infinity();
      KATTN_UNROLL
      for (int j = 0; j < kKeys; ++j) {
        const int key = key0 + j;
        logits[j] = j < shape.worker_keys && key < it.end
                        ? args.rules.logit(dots[j * kRows + r], it.first_head + r, it.position, key, it.context_len)
                        : -compat::infinity();
        tile_max = compat::fmax(tile_max, logits[j]);
      }
      if (tile_max > s.softmax[r].max) {  // the running max moves only now and then: rescale only then
        const float alpha = s.softmax[r].rescale_to(tile_max);
        KATTN_UNROLL
        for (int c = 0; c < kChunks; ++c) {
          KATTN_UNROLL
          for (int e = 0; e < kLaneElements; ++e) s.out[r][c][e] *= alpha;
        }
      }
      KATTN_UNROLL
      for (int j = 0; j < kKeys; ++j) logits[j] = s.softmax[r].weight(logits[j]);
      KATTN_UNROLL
      for (int j = 0; j < kKeys; ++j) {
        if (logits[j] == 0.0f) continue;  // masked, or past the tile's keys (zero rows)
        s.softmax[r].sum += logits[j];
        KATTN_UNROLL
        for (int c = 0; c < kChunks; ++c) {
          const int chunk = c * lanes + lane;
          if (chunk >= row_chunks) break;
          const LaneChunk<Cache> v =
              *reinterpret_cast<const LaneChunk<Cache>*>(v_rows + j * shape.stride + chunk * kLaneElements);
          KATTN_UNROLL
          for (int e = 0; e < kLaneElements; ++e) s.out[r][c][e] += logits[j] * lane_to_float(v.values[e]);
        }
      }
    }
  }

  // Merges the workers' states of each row: each worker leaves its output, scaled to the row's
  // max, in `worker_out` (the stage buffers' region, free once every worker is past the key loop),
  // and the team adds them up in worker order, so that the rounding of the sum is the same on
  // every call whatever order the workers finish in (atomic adds were not: docs/design.md,
  // "Determinism"). The result is the partition's partial, or the output when the partition is
  // the token's only one (with the head's sink folded in).
  KOKKOS_INLINE_FUNCTION void merge_workers(const Member& team, const LaneState& s, const SplitKvItem& it, int worker,
                                            int lane, float* worker_out, const FloatScratch<Space>& worker_max,
                                            const FloatScratch<Space>& worker_sum) const {
    const int head_size = args.head_size;
    const int workers = shape.workers;
    if (lane == 0)
      for (int r = 0; r < kRows; ++r) {
        worker_max(worker * kRows + r) = s.softmax[r].max;
        worker_sum(worker * kRows + r) = s.softmax[r].sum;
      }
    team.team_barrier();
    KATTN_UNROLL
    for (int r = 0; r < kRows; ++r) {
      if (r >= it.rows) break;
      if (!(s.softmax[r].sum > 0.0f)) continue;  // no visible key: the sum below skips the worker
      float row_max = -compat::infinity();
      for (int w = 0; w < workers; ++w)
        if (worker_sum(w * kRows + r) > 0.0f) row_max = compat::fmax(row_max, worker_max(w * kRows + r));
      const float weight = compat::exp(s.softmax[r].max - row_max);
      float* const out_row = worker_out + (std::size_t(worker) * kRows + r) * head_size;
      KATTN_UNROLL
      for (int c = 0; c < kChunks; ++c) {
        KATTN_UNROLL
        for (int e = 0; e < kLaneElements; ++e) {
          const int d = (c * lanes + lane) * kLaneElements + e;
          if (d < head_size) out_row[d] = weight * s.out[r][c][e];
        }
      }
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, it.rows * head_size), [&](int i) {
      const int r = i / head_size;
      const int d = i - r * head_size;
      const int head = it.first_head + r;
      SoftmaxState state;
      float merged = 0.0f;
      for (int w = 0; w < workers; ++w)
        if (worker_sum(w * kRows + r) > 0.0f) state.max = compat::fmax(state.max, worker_max(w * kRows + r));
      for (int w = 0; w < workers; ++w)
        if (worker_sum(w * kRows + r) > 0.0f) {
          state.sum += compat::exp(worker_max(w * kRows + r) - state.max) * worker_sum(w * kRows + r);
          merged += worker_out[(std::size_t(w) * kRows + r) * head_size + d];
        }
      if (grid.num_partitions > 1) {
        partials.out(it.partition, it.token, head, d) = merged;
        if (d == 0) {
          partials.max(it.partition, it.token, head) = state.max;
          partials.sum(it.partition, it.token, head) = state.sum;
        }
        return;
      }
      const SoftmaxState sink = args.rules.initial_state(head);
      float alpha = 1.0f;
      if (sink.sum > 0.0f) {
        alpha = state.rescale_to(sink.max);
        state.sum += state.weight(sink.max);
      }
      args.store_out(it.token, head, d, merged * alpha * state.inverse_sum());
    });
  }
};

}  // namespace kattn
