// Launch options with every parameter fixed that the tuning table would otherwise choose from the
// batch: the condition of batch invariance (docs/design.md, "Batch invariance").
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/detail/tiles/tile_mma.hpp"
#include "kattn/tuning/launch_plan.hpp"

namespace kattn::test {

// Tiles of 16 keys, so partitions and segments matter; 3 segments; a team of 4 threads, so that a
// team's threads merge more than two partial sums (the order of two does not change their sum)
// where the backend gives it that many (GPUs; on OpenMP a team has at most OMP_NUM_THREADS
// threads). grid_teams 0 takes the device's concurrency, which no batch changes.
inline AttentionOptions fixed_launch(Variant variant, int grid_teams = 0) {
  AttentionOptions options;
  options.variant = variant;
  options.tile_size = 16;
  options.block_m = 16;
  options.num_segments = 3;
  options.team_size = 4;
  options.vector_length = host_backend() ? 1 : tensor_core_lanes();
  options.grid_teams = grid_teams;
  return options;
}

}  // namespace kattn::test
