#include "kattn/tuning/launch_plan.hpp"

#include "kattn/core/execution_space.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace kattn {

std::string_view to_string(Variant variant) {
  switch (variant) {
    case Variant::baseline: return "baseline";
  }
  return "unknown";
}

Variant parse_variant(std::string_view name) {
  for (Variant v : all_variants())
    if (to_string(v) == name) return v;
  throw std::invalid_argument("unknown variant '" + std::string(name) + "' (expected baseline)");
}

std::vector<Variant> all_variants() { return {Variant::baseline}; }

namespace {

constexpr bool host_backend() {
  return Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;
}

}  // namespace

LaunchPlan plan_launch(const BatchMetadata& /*batch*/, const Geometry& g, const AttentionOptions& options) {
  LaunchPlan plan;
  plan.variant = options.variant.value_or(Variant::baseline);
  plan.tile_size = g.block_size;  // the baseline's tile is one KV-cache block
  // Host: one thread per team, the league spreads over the cores. GPU: 4 warps of 32 lanes, the
  // lanes across the head dimension so that loads of a key row coalesce.
  plan.team_size = options.team_size.value_or(host_backend() ? 1 : 4);
  plan.vector_length = options.vector_length.value_or(host_backend() ? 1 : 32);
  return plan;
}

}  // namespace kattn
