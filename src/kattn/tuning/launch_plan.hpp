// How one attention call is launched. Every launch decision is made in plan_launch, in one place.
#pragma once

#include "kattn/kernels/batch_metadata.hpp"
#include "kattn/problem/geometry.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace kattn {

enum class Variant {
  baseline,  // paper 4.3: one team per (query token, query head), tiles of block_size keys
};

std::string_view to_string(Variant variant);
Variant parse_variant(std::string_view name);  // throws std::invalid_argument naming the value
std::vector<Variant> all_variants();
inline void PrintTo(Variant variant, std::ostream* os) { *os << to_string(variant); }  // for GoogleTest

struct LaunchPlan {
  Variant variant = Variant::baseline;
  int tile_size = 0;      // keys per tile
  int team_size = 1;      // Kokkos team size (threads)
  int vector_length = 1;  // Kokkos vector length (lanes per thread)
};

// Caller overrides of the plan; unset fields come from the planner.
struct AttentionOptions {
  std::optional<Variant> variant;
  std::optional<int> team_size;
  std::optional<int> vector_length;
};

// Chooses the plan for a batch on the default execution space.
LaunchPlan plan_launch(const BatchMetadata& batch, const Geometry& g, const AttentionOptions& options);

}  // namespace kattn
