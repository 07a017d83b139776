// The oracle check of a kernel run, shared by the default backend's kernel grid (test_kernels.cpp)
// and the per-backend kernel tests (test_backend_kernels.cpp).
#pragma once

#include "kattn/harness/run_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/workload/generator.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <vector>

namespace kattn::test {

// Runs `problem` on Space with the forced variant and compares with `reference`, the oracle's
// output for it (computed once where one problem runs under several options).
template <class Space = ExecutionSpace>
void expect_matches_reference(const HostProblem& problem, const std::vector<double>& reference,
                              const AttentionOptions& options) {
  const ProblemRun run = run_problem<Space>(problem, options);
  EXPECT_EQ(run.plan.variant, *options.variant);
  const Comparison c = compare_to_reference(run.out, reference, problem);
  EXPECT_TRUE(c.passed()) << c.failures << " elements off; max abs error " << c.max_abs_error << ", max rel error "
                          << c.max_rel_error;
}

// Runs `problem` on Space with the forced variant and compares with the oracle.
template <class Space = ExecutionSpace>
void expect_matches_oracle(const HostProblem& problem, const AttentionOptions& options) {
  expect_matches_reference<Space>(problem, oracle_attention(problem), options);
}

// A mixed batch: decode with context, chunked prefill with context, prefill without context
// (query_len = seq_len), decode with empty context, and a sequence with no new tokens.
inline std::vector<SequenceShape> mixed_sequences() { return {{37, 1}, {50, 17}, {23, 23}, {1, 1}, {12, 0}}; }

// The teams of warps a test forces on a device backend (AttentionOptions::team_size); a host
// backend runs the plan's own team (none forced), once. A host team is threads whose barriers
// spin, and on a busy 2-core machine (two ctest jobs of two OpenMP threads each, or a build beside
// them) the barriers of a tile a team had stalled the large-cache test past its 600 s (CI, 2026-11-29).
inline std::vector<std::optional<int>> device_team_sizes(std::initializer_list<int> sizes) {
  if (!device_backend()) return {std::nullopt};
  return std::vector<std::optional<int>>(sizes.begin(), sizes.end());
}

inline AttentionOptions forced(Variant variant, int tile_size = 0, int num_segments = 3) {
  AttentionOptions options;
  options.variant = variant;
  if (tile_size > 0) options.tile_size = tile_size;
  options.num_segments = num_segments;  // ignored by the unsegmented variants
  return options;
}

}  // namespace kattn::test
