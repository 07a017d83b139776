#include "kattn/tuning/launch_plan.hpp"

#include "kattn/core/backends.hpp"
#include "kattn/core/error.hpp"
#include "kattn/core/team_scratch_cap.hpp"
#include "kattn/detail/shapes/scratch_layout.hpp"
#include "kattn/detail/shapes/tile_shapes.hpp"
#include "kattn/tuning/tuning_table.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kattn {

std::string_view to_string(Variant variant) {
  switch (variant) {
    case Variant::baseline:
      return "baseline";
    case Variant::qblock:
      return "qblock";
    case Variant::segmented:
      return "segmented";
    case Variant::qblock_static:
      return "qblock_static";
    case Variant::segmented_static:
      return "segmented_static";
    case Variant::split_kv:
      return "split_kv";
  }
  return "unknown";
}

std::vector<Variant> all_variants() {
  return {Variant::baseline,      Variant::qblock,           Variant::segmented,
          Variant::qblock_static, Variant::segmented_static, Variant::split_kv};
}

Variant parse_variant(std::string_view name) {
  for (Variant v : all_variants())
    if (to_string(v) == name) return v;
  throw std::invalid_argument("unknown variant '" + std::string(name) +
                              "' (expected baseline, qblock, segmented, qblock_static, segmented_static or split_kv)");
}

bool is_segmented(Variant v) {
  return v == Variant::segmented || v == Variant::segmented_static || v == Variant::split_kv;
}
bool is_static_grid(Variant v) { return v == Variant::qblock_static || v == Variant::segmented_static; }

namespace {

// Stands in for the kernels when asking Kokkos how large a team may be; exact on host backends,
// an upper bound on GPUs (where the kernels' register use may lower it).
template <class Space>
struct TeamSizeProbe {
  KOKKOS_INLINE_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Space>::member_type&) const {}
};

// Used where no table ships for the backend's architecture, or with AttentionOptions::untuned.
template <class Space>
LaunchPlan untuned_defaults() {
  LaunchPlan plan;
  plan.variant = Variant::qblock;
  plan.tile_size = 16;
  plan.block_m = 16;
  plan.team_size = host_backend<Space>() ? 1 : 4;
  plan.vector_length = host_backend<Space>() ? 1 : tensor_core_lanes();
  plan.source = "defaults";
  return plan;
}

}  // namespace

template <class Space>
LaunchPlan plan_launch(const BatchMetadata& batch, const Geometry& g, std::size_t element_bytes,
                       bool tensor_core_operands, const AttentionOptions& options) {
  const TuningTable* table = options.untuned        ? nullptr
                             : options.tuning_table ? options.tuning_table
                                                    : TuningTable::builtin(kernels_arch<Space>());
  LaunchPlan plan = table ? table->evaluate(batch, g) : untuned_defaults<Space>();
  if (options.variant) plan.variant = *options.variant;
  if (options.tile_size) plan.tile_size = *options.tile_size;
  if (options.block_m) plan.block_m = *options.block_m;
  if (options.num_segments) plan.num_segments = *options.num_segments;
  if (options.team_size) plan.team_size = *options.team_size;
  if (options.vector_length) plan.vector_length = *options.vector_length;
  if (options.grid_teams) plan.grid_teams = *options.grid_teams;
  if (options.split_decodes) plan.split_decodes = *options.split_decodes;

  // Fit the plan to the kernels, the batch and the backend.
  using Policy = Kokkos::TeamPolicy<Space>;
  plan.vector_length = std::clamp(plan.vector_length, 1, Policy::vector_length_max());
  plan.team_size =
      std::clamp(plan.team_size, 1,
                 Policy(1, 1, plan.vector_length).team_size_max(TeamSizeProbe<Space>{}, Kokkos::ParallelForTag()));
  if (!is_segmented(plan.variant)) plan.num_segments = 1;
  plan.num_segments = std::max(plan.num_segments, 1);
  const int q_per_kv = g.queries_per_kv();
  plan.block_m = plan.block_q(q_per_kv) * q_per_kv;
  const std::size_t scratch_limit = kokkos_team_scratch_max<Space>();
  // A tensor-core product needs whole warps (wavefronts): one Kokkos thread of that many lanes.
  plan.tensor_cores = tensor_core_operands && tensor_cores_available<Space>() &&
                      plan.vector_length == tensor_core_lanes() && plan.variant != Variant::baseline &&
                      plan.variant != Variant::split_kv;
  if (plan.variant == Variant::split_kv) {
    if (g.head_size > kSplitKvMaxHead)
      throw NotSupported("split_kv variant with head size " + std::to_string(g.head_size) + " (at most " +
                         std::to_string(kSplitKvMaxHead) + "); use a Q-block variant");
    const int max_keys = std::max(batch.max_visible_keys(), 1);
    plan.tile_size = std::clamp(plan.tile_size, 1, max_keys);
    plan.num_segments = (max_keys + plan.tile_size - 1) / plan.tile_size;
    // Tensor cores where the register rows take the head: teams of up to kSplitKvMmaMaxWarps warps
    // (team_size), each with its own ring; fewer warps, then shorter partitions, where they do not fit.
    plan.register_rows = tensor_core_operands && register_rows_available<Space>() && g.head_size % 16 == 0 &&
                         g.head_size <= kFragmentMaxHead;
    if (plan.register_rows && fit_split_kv_rings(plan, g, max_keys, element_bytes, split_kv_scratch_limit<Space>())) {
      plan.tensor_cores = true;
      plan.vector_length = tensor_core_lanes();
      plan.block_m = std::min(q_per_kv, kSplitKvMmaRows);
      return plan;
    }
    plan.register_rows = false;
    // A lane holds kLaneElements of a row and the lanes cover it (host backends: one lane, the row).
    int lanes = 1;
    while (!host_backend<Space>() && lanes < lanes_for(g.head_size)) lanes *= 2;
    plan.vector_length = lanes;
    plan.team_size = std::clamp(plan.team_size, 1,
                                Policy(1, 1, lanes).team_size_max(TeamSizeProbe<Space>{}, Kokkos::ParallelForTag()));
    plan.block_m = std::min(q_per_kv, kSplitKvMaxRows);
    const auto shape = [&] {
      plan.num_segments = (max_keys + plan.tile_size - 1) / plan.tile_size;
      return split_kv_shape(plan.team_size, plan.tile_size, g.block_size, g.head_size, plan.num_segments, element_bytes,
                            scratch_limit);
    };
    while (!shape() && plan.team_size > 1) plan.team_size /= 2;
    if (!shape())
      throw NotSupported("split_kv variant with head size " + std::to_string(g.head_size) +
                         ": its tiles do not fit in team scratch; use a Q-block variant");
  } else if (plan.variant == Variant::baseline) {
    plan.tile_size = g.block_size;  // the paper's baseline: one KV-cache block per tile
    if (baseline_scratch_bytes(plan.tile_size, g.head_size) > scratch_limit)
      throw NotSupported("baseline variant with block_size " + std::to_string(g.block_size) +
                         ": its tile does not fit in team scratch; use a Q-block variant");
  } else if (plan.tensor_cores && register_rows_available<Space>() && g.head_size % 16 == 0 &&
             g.head_size <= kFragmentMaxHead &&
             q_per_kv <= kFragmentRows * std::min(plan.team_size, kFragmentMaxWarps)) {
    // Rows in registers (QBlockMmaKernel): a warp per 16 rows, at most kFragmentMaxWarps, tiles of
    // the fragments' size; its scratch holds only a K and a V tile, which fit for every head size
    // the fragments take.
    // On sm_90a at head 128 its products are the warpgroup's (wgmma), a team of one warpgroup or
    // two, and its double-buffered tiles (103 KB, 210 KB for two) lie past Kokkos 4.6's cap
    // (core/team_scratch_cap.hpp).
    plan.register_rows = true;
    plan.warpgroup_products = warpgroup_mma_available<Space>() && g.head_size == kWarpgroupHead;
    // The warpgroup products double-buffer their tiles and overlap with the softmax wherever the
    // team scratch takes it (H100, 2026-11-26: 0.87-0.92x of the single-buffered kernel's time on
    // items of 256 keys and more, equal on 64).
    plan.deep_tiles = plan.warpgroup_products;
    // Two warpgroups a team (FlashAttention-3's consumers: 128 rows, tiles of 128 keys) where the
    // table or the caller asks for 8 warps and the team scratch takes their tiles; a producer
    // warpgroup beside them where it asks for 12, the scratch takes its rings and the cache's
    // blocks make boxes for its bulk copies.
    fit_register_rows_team(
        plan, q_per_kv,
        register_rows_scratch_bytes(g.head_size, element_bytes, kWarpgroupTileAlign, true, 2) <=
            team_scratch_limit<Space>(),
        producer_rows_scratch_bytes(g.head_size, element_bytes, kWarpgroupTileAlign) <= team_scratch_limit<Space>() &&
            cache_tile_box_rows(g.block_size, 2 * kFragmentTileKeys) > 0);
  } else {
    const std::size_t tile_element_bytes = qblock_tile_element_bytes<Space>(element_bytes);
    plan.tile_size =
        fit_qblock_tile(plan.block_m, std::max(plan.tile_size, 1), g.head_size, tile_element_bytes, scratch_limit);
    const auto fits = [&] {
      return qblock_scratch_bytes(plan.block_m, plan.tile_size, g.head_size, tile_element_bytes) <= scratch_limit;
    };
    while (!fits() && plan.block_m > q_per_kv)
      plan.block_m = std::max(q_per_kv, (plan.block_m / 2) / q_per_kv * q_per_kv);
    if (!fits())
      throw NotSupported("head size " + std::to_string(g.head_size) + " with " + std::to_string(q_per_kv) +
                         " query heads per KV head does not fit in team scratch");
  }
  if (is_static_grid(plan.variant) && plan.grid_teams <= 0)
    plan.grid_teams = static_grid_teams(plan, compute_units<Space>(), Space().concurrency() / compute_units<Space>());
  return plan;
}

int static_grid_teams(const LaunchPlan& plan, int compute_units, int threads_per_unit) {
  if (plan.producer_warpgroup()) return std::max(1, compute_units);
  return std::max(1, compute_units * threads_per_unit / (plan.team_size * plan.vector_length));
}

int LaunchPlan::warpgroups() const { return warpgroup_products ? (team_size > kWarpgroupWarps ? 2 : 1) : 0; }

bool LaunchPlan::producer_warpgroup() const { return warpgroup_products && team_size == 3 * kWarpgroupWarps; }

void fit_register_rows_team(LaunchPlan& plan, int queries_per_kv, bool two_warpgroups_fit, bool producer_fits) {
  const bool two = plan.warpgroup_products && plan.team_size >= 2 * kWarpgroupWarps && two_warpgroups_fit;
  const bool producer = two && plan.team_size >= 3 * kWarpgroupWarps && producer_fits;
  const int row_warps =
      plan.warpgroup_products ? kWarpgroupWarps * (two ? 2 : 1) : std::min(plan.team_size, kFragmentMaxWarps);
  plan.team_size = row_warps + (producer ? kWarpgroupWarps : 0);
  plan.tile_size = kFragmentTileKeys * (two ? 2 : 1);
  plan.block_m = kFragmentRows * row_warps / queries_per_kv * queries_per_kv;
}

bool fit_split_kv_rings(LaunchPlan& plan, const Geometry& g, int max_keys, std::size_t element_bytes,
                        std::size_t scratch_limit) {
  const auto rings_fit = [&] {
    return split_kv_mma_stages(plan.team_size, plan.tile_size, g.block_size, g.head_size, plan.num_segments,
                               element_bytes, scratch_limit) > 0;
  };
  // At most a warp a 16-key tile of the partition: a warp without keys would only wait at the
  // warps' merge (0.7 µs of a 9 µs decode of 16 keys on the H100).
  const int partition_tiles = (plan.tile_size + kKeyRowTileKeys - 1) / kKeyRowTileKeys;
  plan.team_size = std::clamp(plan.team_size, 1, std::min(kSplitKvMmaMaxWarps, partition_tiles));
  while (plan.team_size > 1 && !rings_fit()) --plan.team_size;
  while (plan.tile_size > 1 && !rings_fit()) {
    plan.tile_size /= 2;
    plan.num_segments = (max_keys + plan.tile_size - 1) / plan.tile_size;
  }
  return rings_fit();
}

template <class Space>
CallPlan plan_call(const BatchMetadata& batch, const Geometry& g, std::size_t element_bytes, bool tensor_core_operands,
                   const AttentionOptions& options) {
  if (!batch.decodes_lead() || options.variant)
    return {plan_launch<Space>(batch, g, element_bytes, tensor_core_operands, options), std::nullopt};
  LaunchPlan whole = plan_launch<Space>(batch, g, element_bytes, tensor_core_operands, options);
  if (whole.split_decodes) {
    CallPlan split{plan_launch<Space>(batch.after_leading_decodes(), g, element_bytes, tensor_core_operands, options),
                   plan_launch<Space>(batch.leading_decode_part(), g, element_bytes, tensor_core_operands, options)};
    // The parts launch on disjoint sequences (split_kv by token, the Q-block variants by the Q blocks
    // of their sequences); the baseline covers the whole batch, and two equal plans are one launch.
    const auto same_launch = [](const LaunchPlan& a, const LaunchPlan& b) {
      return a.variant == b.variant && a.tile_size == b.tile_size && a.block_m == b.block_m &&
             a.num_segments == b.num_segments && a.team_size == b.team_size && a.vector_length == b.vector_length;
    };
    if (split.decodes->variant != Variant::baseline && split.main.variant != Variant::baseline &&
        !same_launch(*split.decodes, split.main)) {
      split.main.decodes_apart = batch.leading_decodes;
      return split;
    }
  }
  return {whole, std::nullopt};
}

#define KATTN_INSTANTIATE(Space)                                                                   \
  template LaunchPlan plan_launch<Space>(const BatchMetadata&, const Geometry&, std::size_t, bool, \
                                         const AttentionOptions&);                                 \
  template CallPlan plan_call<Space>(const BatchMetadata&, const Geometry&, std::size_t, bool, const AttentionOptions&);
KATTN_FOR_EACH_BACKEND(KATTN_INSTANTIATE)
#undef KATTN_INSTANTIATE

}  // namespace kattn
