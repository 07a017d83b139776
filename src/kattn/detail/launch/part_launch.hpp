// The launches of one part of a call (PartLaunch), for every variant. None reads anything back
// to the host, and all go through a launch target (launch_target.hpp): straight onto an execution
// space (run), or into a graph (capture_run), on the target's backend (Launches::execution_space).
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/detail/kernels/baseline_kernel.hpp"
#include "kattn/detail/kernels/qblock_kernel.hpp"
#include "kattn/detail/kernels/qblock_mma_kernel.hpp"
#include "kattn/detail/kernels/segment_reduce.hpp"
#include "kattn/detail/kernels/split_kv_kernel.hpp"
#include "kattn/detail/kernels/split_kv_mma_kernel.hpp"
#include "kattn/detail/kernels/tile_maps_kernel.hpp"
#include "kattn/detail/launch/cache_tile_maps.hpp"
#include "kattn/detail/launch/launch_target.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn/workspace.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace kattn {

// Row groups of a split-KV launch (plan.block_m query heads a team): teams per (token, KV head)
// before partitions.
inline int split_kv_row_groups(const Geometry& g, const LaunchPlan& plan) {
  return (g.queries_per_kv() + plan.block_m - 1) / plan.block_m;
}

// One launch of a call: its plan, the sequences and tokens it covers, and where its arrays sit in
// the workspace. Every launch of a call reserves its arrays before the call commits the buffer
// once, so launches of one call never share bytes.
struct PartLaunch {
  LaunchPlan plan;
  int first_seq = 0, end_seq = 0, first_token = 0, num_tokens = 0;  // sequences [first_seq, end_seq)
  int max_q_slots = 0;  // Q-block variants: the grid's Q-block slots, for any batch within the part's bounds
  std::size_t partials_out_at = 0, partials_max_at = 0, partials_sum_at = 0;
  std::size_t counters_at = 0;   // split_kv with partitions: one counter per (token, KV head, row group)
  std::size_t tile_maps_at = 0;  // warpgroup Q blocks: the cache's tensor maps (team_bulk_copy.hpp)
  std::size_t row_maps_at = 0;   // and the query and output rows' maps
  std::size_t claims_at = 0;     // Q-block variants: two counters, a static grid's claims (QBlockSlots::claims)
  bool one_query_a_seq = false;  // token t is sequence t's only query, for any batch within the part's bounds

  PartLaunch(const LaunchPlan& part_plan, const BatchMetadata& part_batch, int first, int end, int tokens_before,
             int tokens, const Geometry& g, WorkspaceLayout& layout)
      : plan(part_plan),
        first_seq(first),
        end_seq(end),
        first_token(tokens_before),
        num_tokens(tokens),
        one_query_a_seq(part_batch.max_query_len <= 1 && end - first == tokens && first == tokens_before) {
    if (plan.variant != Variant::baseline && plan.variant != Variant::split_kv) {
      max_q_slots = kattn::max_q_slots(part_batch, plan.block_q(g.queries_per_kv()));
      claims_at = layout.reserve_counters(2);
      if (plan.warpgroup_products) {
        tile_maps_at = layout.reserve(1, sizeof(CacheTileMaps));
        row_maps_at = layout.reserve(1, sizeof(RowTileMaps));
      }
    }
    // Partials of the part's tokens only (a decode part with many segments beside a long prefill).
    const std::size_t rows =
        std::size_t(is_segmented(plan.variant) ? plan.num_segments : 0) * num_tokens * g.num_q_heads;
    partials_out_at = layout.reserve(rows * g.head_size, sizeof(float));
    partials_max_at = layout.reserve(rows, sizeof(float));
    partials_sum_at = layout.reserve(rows, sizeof(float));
    if (plan.variant == Variant::split_kv && plan.num_segments > 1)
      counters_at = layout.reserve_counters(std::size_t(num_tokens) * g.num_kv_heads * split_kv_row_groups(g, plan));
  }

  SplitKvGrid split_kv_grid(const Geometry& g) const {
    return {plan.tile_size, plan.num_segments, split_kv_row_groups(g, plan),
            plan.block_m,   first_token,       one_query_a_seq};
  }

  template <class Memory>
  SegmentPartials<Memory> partials(char* base, const Geometry& g) const {
    SegmentPartials<Memory> p;
    const int segments = plan.num_segments;
    p.out_rows = decltype(p.out_rows)(reinterpret_cast<float*>(base + partials_out_at), segments, num_tokens,
                                      g.num_q_heads, g.head_size);
    p.max_rows =
        decltype(p.max_rows)(reinterpret_cast<float*>(base + partials_max_at), segments, num_tokens, g.num_q_heads);
    p.sum_rows =
        decltype(p.sum_rows)(reinterpret_cast<float*>(base + partials_sum_at), segments, num_tokens, g.num_q_heads);
    p.first_token = first_token;
    return p;
  }
};

// Whether every K and V row admits 16-byte lane loads (the kernels that stream them choose by it).
template <class Args>
bool kv_rows_aligned(const Args& args) {
  return lane_chunks_aligned(args.k) && lane_chunks_aligned(args.v);
}

// Whether every row of a [tokens, heads, head_size] view (contiguous) admits 16-byte loads or stores.
template <class View>
bool token_rows_aligned(const View& rows, int head_size) {
  return reinterpret_cast<std::uintptr_t>(rows.data()) % 16 == 0 &&
         (head_size * sizeof(typename View::value_type)) % 16 == 0;
}

template <class Launches>
using LaunchPolicy = Kokkos::TeamPolicy<typename Launches::execution_space>;
template <class Launches>
using LaunchPartials = SegmentPartials<typename Launches::execution_space::memory_space>;

template <class Launches, class Args>
void launch_segment_reduce(Launches& launches, const Args& args, const Geometry& g, const PartLaunch& part,
                           const LaunchPartials<Launches>& partials) {
  using Reduce = SegmentReduceKernel<typename Launches::execution_space, Args>;
  const LaunchPlan& plan = part.plan;
  const bool static_grid = is_static_grid(plan.variant);
  const int rows = part.num_tokens * g.num_q_heads;
  LaunchPolicy<Launches> policy(launches.space, static_grid ? std::min(plan.grid_teams, rows) : rows, plan.team_size,
                                plan.vector_length);
  policy.set_scratch_size(0, Kokkos::PerTeam(Reduce::scratch_bytes(plan.num_segments)));
  launches("kattn::segment_reduce", policy,
           Reduce{args, partials, plan.num_segments, part.first_token, part.num_tokens, static_grid});
}

// One launch: the partitions' partials are merged by the last team of each row group.
template <class Launches, class Args>
void launch_split_kv(Launches& launches, const Args& args, const Geometry& g, const PartLaunch& part,
                     const WorkspaceBuffers& buffers) {
  using Space = typename Launches::execution_space;
  const LaunchPlan& plan = part.plan;
  const int row_groups = split_kv_row_groups(g, plan);
  const std::int64_t items = std::int64_t(part.num_tokens) * g.num_kv_heads * row_groups * plan.num_segments;
  if (items == 0) return;
  if (items > std::numeric_limits<int>::max())
    throw NotSupported("split_kv variant: " + std::to_string(items) + " teams exceed a launch; use fewer tokens");
  using Partials = LaunchPartials<Launches>;
  const Partials partials =
      plan.num_segments > 1 ? part.partials<typename Space::memory_space>(buffers.base, g) : Partials{};
  using Cache = typename Args::cache_type;
  std::int32_t* counters = buffers.counters + part.counters_at;
  if constexpr (tensor_core_operands<typename Args::q_type, Cache>() && register_rows_available<Space>()) {
    if (plan.register_rows) {
      const bool aligned = kv_rows_aligned(args);
      const int warps = aligned ? plan.team_size : 1;  // unaligned rows are staged by the whole team: one warp
      const int stages = split_kv_mma_stages(warps, plan.tile_size, g.block_size, g.head_size, plan.num_segments,
                                             sizeof(Cache), split_kv_scratch_limit<Space>());
      if (stages == 0)
        throw NotSupported("split_kv variant: the plan's rings do not fit in team scratch");  // the planner fits them
      LaunchPolicy<Launches> policy(launches.space, int(items), warps, tensor_core_lanes());
      policy.set_scratch_size(
          0, Kokkos::PerTeam(split_kv_mma_scratch_bytes(warps, stages, plan.tile_size, g.block_size, g.head_size,
                                                        plan.num_segments, sizeof(Cache))));
      // Llama-class head 128 at compile time, with the call's score features; others as they come.
      const auto launch = [&](auto head_size, auto features) {
        using Kernel = SplitKvMmaKernel<Space, Args, decltype(head_size)::value, decltype(features)>;
        const bool block_tiles = decltype(head_size)::value > 0 &&
                                 Kernel::BlockTiles::applies(args.k, args.v, g.head_size, g.block_size, aligned);
        launches("kattn::split_kv", policy,
                 Kernel{args, partials, counters, part.split_kv_grid(g), stages, FastDivisor(g.block_size), aligned,
                        block_tiles, args.rules.template compiled_for<decltype(features)>()});
      };
      if (g.head_size == 128)
        with_score_features(args.rules, [&](auto features) { launch(std::integral_constant<int, 128>{}, features); });
      else
        launch(std::integral_constant<int, 0>{}, AllScores{});
      return;
    }
  }
  const std::optional<SplitKvShape> shape =
      split_kv_shape(plan.team_size, plan.tile_size, g.block_size, g.head_size, plan.num_segments, sizeof(Cache),
                     kokkos_team_scratch_max<Space>());
  if (!shape)
    throw NotSupported("split_kv variant: the plan's tiles do not fit in team scratch");  // the planner fits them
  LaunchPolicy<Launches> policy(launches.space, int(items), plan.team_size, plan.vector_length);
  policy.set_scratch_size(0, Kokkos::PerTeam(split_kv_scratch_bytes(*shape, plan.tile_size, g.block_size, g.head_size,
                                                                    plan.num_segments, sizeof(Cache))));
  launches("kattn::split_kv", policy,
           SplitKvKernel<Space, Args>{args, partials, counters, *shape, part.split_kv_grid(g), plan.vector_length,
                                      kv_rows_aligned(args)});
}

template <class Launches, class Args>
void launch_baseline(Launches& launches, const Args& args, const Geometry& g, const LaunchPlan& plan) {
  if (g.num_tokens == 0) return;
  LaunchPolicy<Launches> policy(launches.space, g.num_tokens * g.num_q_heads, plan.team_size, plan.vector_length);
  policy.set_scratch_size(0, Kokkos::PerTeam(baseline_scratch_bytes(plan.tile_size, g.head_size)));
  launches("kattn::baseline", policy, BaselineKernel<typename Launches::execution_space, Args>{args, plan.tile_size});
}

// Items a team the device runs at once, at the least, for a static grid's teams to claim theirs
// (launch_qblock).
inline constexpr int kClaimedItemsATeam = 4;

// Whether a launch's maps must be written before it: always in a graph (its replays follow other
// calls), else where the workspace's call before did not leave these bytes there (PublishedMaps).
// Gives where to write them, or null.
template <class Launches, class Maps>
Maps* writes_maps(const WorkspaceBuffers& buffers, Maps* at, const Maps& maps) {
  // A larger map would never be recorded: written every call, right but slow.
  static_assert(sizeof(Maps) <= PublishedMaps::kMapBytes, "PublishedMaps records a launch's maps whole");
  return at && (!Launches::kEager || !buffers.published->holds(at, &maps, sizeof(Maps))) ? at : nullptr;
}

// The part's tensor maps where its kernel copies by them and the workspace lacks them, then a grid
// for the most Q-block slots its bounds allow (teams past the real count, which they read from
// cu_seqlens_q, return), then the segment merge.
template <bool Segmented, class Launches, class Args>
void launch_qblock(Launches& launches, const Args& args, const Geometry& g, const PartLaunch& part,
                   const WorkspaceBuffers& buffers) {
  using Space = typename Launches::execution_space;
  char* const base = buffers.base;
  const LaunchPlan& plan = part.plan;
  const int block_q = plan.block_q(g.queries_per_kv());
  const bool static_grid = is_static_grid(plan.variant);
  const QBlockSlots q_blocks(block_q, part.first_seq, part.end_seq, part.first_token,
                             buffers.counters + part.claims_at);
  using Cache = typename Args::cache_type;
  // Double-buffered warpgroup tiles where the plan asks and the backend's team scratch takes them (on
  // CUDA with Kokkos 4.6, past its 48 KB cap: core/team_scratch_cap.hpp), in teams of one
  // warpgroup or, where the plan took two (team_size), of two; two warpgroups' whole tiles by the
  // tensor memory accelerator where the cache's blocks make boxes of kBulkCopyMinBoxRows slots or
  // more (team_bulk_copy.hpp), from maps in the workspace. A producer warpgroup where the
  // plan has one: the planner fitted its rings and found the cache's boxes (fit_register_rows_team).
  const int team_warpgroups = plan.warpgroups();
  const bool producer = plan.register_rows && plan.producer_warpgroup() && plan.deep_tiles;
  const bool deep_tiles = plan.register_rows && plan.warpgroup_products && plan.deep_tiles &&
                          register_rows_scratch_bytes(g.head_size, sizeof(Cache), kWarpgroupTileAlign, true,
                                                      team_warpgroups) <= team_scratch_limit<Space>();
  const bool two_warpgroup_tiles = deep_tiles && team_warpgroups == 2;
  const int box_rows = two_warpgroup_tiles || producer ? cache_tile_box_rows(g.block_size, 2 * kFragmentTileKeys) : 0;
  const std::optional<CacheTileMaps> tile_maps =
      ((two_warpgroup_tiles && box_rows >= kBulkCopyMinBoxRows) || (producer && box_rows > 0))
          ? encode_cache_tile_maps<Space>(args.k, args.v, g, 2 * kFragmentTileKeys)
          : std::optional<CacheTileMaps>{};
  CacheTileMaps* const tile_maps_at = tile_maps ? reinterpret_cast<CacheTileMaps*>(base + part.tile_maps_at) : nullptr;
  // A team of one warpgroup on double-buffered tiles takes its Q rows and puts its output rows by
  // the tensor memory accelerator where their maps apply (one instruction a half-head for the
  // block, where its lanes found each row's address: an eighth of its instructions on b16 512).
  const bool bulk_rows = !Segmented && deep_tiles && team_warpgroups == 1 && !producer && g.head_size == kWarpgroupHead;
  const std::optional<RowTileMaps> row_maps =
      bulk_rows && token_rows_aligned(args.q, g.head_size) && token_rows_aligned(args.out, g.head_size)
          ? encode_row_tile_maps<Space>(args.q, args.out, g, block_q)
          : std::optional<RowTileMaps>{};
  RowTileMaps* const row_maps_at = row_maps ? reinterpret_cast<RowTileMaps*>(base + part.row_maps_at) : nullptr;
  const CacheTileMaps cache_maps = tile_maps.value_or(CacheTileMaps{});
  const RowTileMaps query_out_maps = row_maps.value_or(RowTileMaps{});
  const TileMapsKernel<Space> write_maps{cache_maps, writes_maps<Launches>(buffers, tile_maps_at, cache_maps),
                                         query_out_maps, writes_maps<Launches>(buffers, row_maps_at, query_out_maps)};
  if (write_maps.tile_maps_to || write_maps.row_maps_to)
    launches("kattn::tile_maps", LaunchPolicy<Launches>(launches.space, 1, host_backend<Space>() ? 1 : 32), write_maps);
  const int items = part.max_q_slots * g.num_kv_heads * plan.num_segments;
  if (items == 0) return;

  using Partials = LaunchPartials<Launches>;
  const Partials partials = Segmented ? part.partials<typename Space::memory_space>(base, g) : Partials{};
  const auto launch = [&](const auto& kernel, std::size_t scratch_bytes) {
    using Kernel = std::decay_t<decltype(kernel)>;
    const auto policy_of = [&](int teams) {
      typename Kernel::Policy policy(launches.space, teams, plan.team_size, plan.vector_length);
      policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
      return policy;
    };
    // A static grid past the most items the part's bounds allow would only start teams that
    // return. Its teams claim their items where the part's bounds allow kClaimedItemsATeam items a
    // team the device runs at once (where it says), and then no more teams start than run at once
    // (one past them would start once the items are gone). On fewer items a team's claim of its
    // next item as one starts takes an item that another team, done first, had taken (2026-11-30:
    // a prefill of 1024 tokens 1.37x slower): those keep the stride, and the hardware's scheduler.
    int teams = static_grid ? std::min(plan.grid_teams, items) : items;
    Kernel launched = kernel;
    const int resident = static_grid && Kernel::kClaimsItems ? launches.resident_teams(policy_of(teams), kernel) : 0;
    if (resident > 0 && items >= kClaimedItemsATeam * resident)
      teams = std::min(teams, resident);
    else
      launched.q_blocks.claims = nullptr;
    launches(Segmented ? "kattn::segmented" : "kattn::qblock", policy_of(teams), launched);
  };
  bool launched = false;
  if constexpr (tensor_core_operands<typename Args::q_type, Cache>() && register_rows_available<Space>()) {
    if (plan.register_rows) {
      const bool aligned = kv_rows_aligned(args) && token_rows_aligned(args.q, g.head_size);
      const bool rows_out = sizeof(typename Args::out_type) == 2 && token_rows_aligned(args.out, g.head_size);
      // Llama-class head 128 at compile time, with the call's score features, others as they come;
      // the warpgroup products where the plan chose them and their tile copy takes the cache (else
      // the warps' products), in teams of the plan's warpgroups.
      const auto launch_mma = [&](auto head_size, auto warpgroup, auto deep, auto warpgroups, auto features, auto bulk,
                                  auto producer) {
        using Kernel = QBlockMmaKernel<Space, Args, Segmented, decltype(head_size)::value, decltype(warpgroup)::value,
                                       decltype(deep)::value, decltype(warpgroups)::value, decltype(features),
                                       decltype(bulk)::value, decltype(producer)::value>;
        const bool tile_copy =
            decltype(head_size)::value > 0 && Kernel::TileCopy::applies(args.k, args.v, g.head_size, aligned);
        if (decltype(warpgroup)::value && !tile_copy) return false;
        launch(Kernel{args, q_blocks, partials, plan.num_segments, static_grid, FastDivisor(g.block_size), aligned,
                      tile_copy, rows_out, args.rules.template compiled_for<decltype(features)>(),
                      decltype(bulk)::value || decltype(producer)::value ? tile_maps_at : nullptr, box_rows,
                      Kernel::kBulkRows ? row_maps_at : nullptr},
               Kernel::scratch_bytes(g.head_size));
        return true;
      };
      using Head128 = std::integral_constant<int, 128>;
      using One = std::integral_constant<int, 1>;
      using Two = std::integral_constant<int, 2>;
      const auto launch_head128 = [&](auto warpgroup, auto deep, auto warpgroups, auto bulk, auto producer) {
        return with_score_features(args.rules, [&](auto features) {
          return launch_mma(Head128{}, warpgroup, deep, warpgroups, features, bulk, producer);
        });
      };
      using Yes = std::true_type;
      using No = std::false_type;
      if constexpr (warpgroup_mma_available<Space>()) {
        if (plan.warpgroup_products && g.head_size == kWarpgroupHead) {
          if (producer && tile_maps)
            launched = launch_head128(Yes{}, Yes{}, Two{}, No{}, Yes{});
          else if (deep_tiles && team_warpgroups == 2 && !producer)
            launched = tile_maps ? launch_head128(Yes{}, Yes{}, Two{}, Yes{}, No{})
                                 : launch_head128(Yes{}, Yes{}, Two{}, No{}, No{});
          else if (team_warpgroups == 1)
            launched = deep_tiles ? launch_head128(Yes{}, Yes{}, One{}, No{}, No{})
                                  : launch_head128(Yes{}, No{}, One{}, No{}, No{});
        }
      }
      // The warps' products take teams of at most kFragmentMaxWarps (their Q rows load through a tile).
      const bool warps_fit = plan.team_size <= kFragmentMaxWarps;
      if (!launched && warps_fit && g.head_size == 128) launched = launch_head128(No{}, No{}, One{}, No{}, No{});
      if (!launched && warps_fit)
        launched = launch_mma(std::integral_constant<int, 0>{}, No{}, No{}, One{}, AllScores{}, No{}, No{});
    }
  }
  if (!launched) {
    // The portable kernel; on a plan of two warpgroups whose inputs their tile copy does not take
    // (rows not 16-byte aligned, K and V of other layouts, strides past 32 bits), on its Q blocks of
    // 128 rows, with the tiles the lifted scratch takes.
    const std::size_t element_bytes = sizeof(QBlockTileValue<Space, Cache>);
    const int tile_size =
        fit_qblock_tile(plan.block_m, plan.tile_size, g.head_size, element_bytes, team_scratch_limit<Space>());
    launch(QBlockKernel<Space, Args, Segmented>{args, q_blocks, partials, plan.block_m, tile_size, plan.num_segments,
                                                static_grid, plan.tensor_cores},
           qblock_scratch_bytes(plan.block_m, tile_size, g.head_size, element_bytes));
  }
  if (Segmented) launch_segment_reduce(launches, args, g, part, partials);
}

template <class Launches, class Args>
void launch_part(Launches& launches, const Args& args, const Geometry& g, const PartLaunch& part,
                 const WorkspaceBuffers& buffers) {
  switch (part.plan.variant) {
    case Variant::baseline:
      launch_baseline(launches, args, g, part.plan);
      break;
    case Variant::qblock:
    case Variant::qblock_static:
      launch_qblock<false>(launches, args, g, part, buffers);
      break;
    case Variant::segmented:
    case Variant::segmented_static:
      launch_qblock<true>(launches, args, g, part, buffers);
      break;
    case Variant::split_kv:
      launch_split_kv(launches, args, g, part, buffers);
      break;
  }
}

}  // namespace kattn
