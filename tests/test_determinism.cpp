// Determinism and batch invariance (docs/design.md, "Determinism"): the same call repeated gives
// bit-identical output on every variant; and under fixed launch options a sequence's rows are the
// same bits alone as inside a batch, for every variant whose plan the batch leaves unchanged.
#include "fixed_launch.hpp"
#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/harness/run_problem.hpp"
#include "kattn/workload/generator.hpp"
#include "output_bits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

namespace kattn {
namespace {

// Decodes with contexts over several partitions, a chunk, a prefill, a sequence with no new
// tokens, and the longest sequence last (a chunk of 3 over 90 keys).
BatchSpec mixed_batch(DType dtype, bool features) {
  BatchSpec spec;
  spec.model = {"determinism", 8, 2, 64};  // 4 query heads per KV head
  spec.dtype = dtype;
  spec.block_size = 16;
  spec.sequences = {{37, 1}, {70, 1}, {50, 17}, {23, 23}, {12, 0}, {90, 3}};
  spec.seed = 41;
  if (features) {
    spec.features.window_left = 40;
    spec.features.sinks = true;
    spec.features.softcap = 30.0f;
    spec.features.alibi = true;
  }
  return spec;
}

// The launch fixed, with a static grid of 4 teams, so that its teams loop over the items.
AttentionOptions fixed_launch(Variant variant) { return test::fixed_launch(variant, 4); }

using Param = std::tuple<Variant, DType>;

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(to_string(std::get<0>(info.param))) + "_" + std::string(to_string(std::get<1>(info.param)));
}

// 100 calls where the backend is a GPU (the order of its teams and warps varies from call to
// call); 20 on host backends, where only the OpenMP threads' timing varies and where an order
// that follows it showed by the second call (docs/testing.md), to keep the suite quick.
constexpr int kRepeats = host_backend() ? 20 : 100;

class RepeatedCalls : public ::testing::TestWithParam<Param> {};

// The output is poisoned with NaN before each repeat, so an element a call leaves unwritten (or
// takes from an earlier call's workspace) shows as well as one summed in another order.
TEST_P(RepeatedCalls, GiveBitIdenticalOutput) {
  const Variant variant = std::get<0>(GetParam());
  const DType dtype = std::get<1>(GetParam());
  const HostProblem problem = generate_batch(mixed_batch(dtype, false));
  dispatch_storage(dtype, dtype, dtype, [&](auto q, auto, auto) {
    using T = decltype(q);
    const DeviceProblem<T, T, T> device = upload_problem<T, T, T>(problem);
    const AttentionOptions options = fixed_launch(variant);
    attention(device.inputs, device.params, device.out, options);
    const std::vector<std::uint32_t> first = test::output_bits(device.out);
    for (int repeat = 1; repeat < kRepeats; ++repeat) {
      Kokkos::deep_copy(device.out, from_float<T>(NAN));
      attention(device.inputs, device.params, device.out, options);
      ASSERT_EQ(test::output_bits(device.out), first) << "call " << repeat + 1 << " of " << kRepeats;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(AllVariants, RepeatedCalls,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::Values(DType::fp32, DType::fp16, DType::bf16)),
                         param_name);

// Sequence s of a batch as a batch of its own: its query rows, block-table row and lengths, the
// same cache and features.
HostProblem single_sequence(const HostProblem& batch, int s) {
  const Geometry& g = batch.geometry;
  HostProblem one = batch;
  const int first_token = batch.cu_seqlens_q[std::size_t(s)];
  const int query_len = batch.cu_seqlens_q[std::size_t(s) + 1] - first_token;
  const std::size_t row = std::size_t(g.num_q_heads) * g.head_size;
  one.geometry.num_seqs = 1;
  one.geometry.num_tokens = query_len;
  one.q.assign(batch.q.begin() + std::ptrdiff_t(first_token * row),
               batch.q.begin() + std::ptrdiff_t((first_token + query_len) * row));
  one.block_table.assign(batch.block_table.begin() + std::ptrdiff_t(s) * g.max_blocks_per_seq,
                         batch.block_table.begin() + std::ptrdiff_t(s + 1) * g.max_blocks_per_seq);
  one.cu_seqlens_q = {0, query_len};
  one.seq_lens = {batch.seq_lens[std::size_t(s)]};
  if (!batch.prefix_lens.empty()) one.prefix_lens = {batch.prefix_lens[std::size_t(s)]};
  return one;
}

bool same_launch(const LaunchPlan& a, const LaunchPlan& b) {
  return a.variant == b.variant && a.tile_size == b.tile_size && a.block_m == b.block_m &&
         a.num_segments == b.num_segments && a.team_size == b.team_size && a.vector_length == b.vector_length &&
         a.grid_teams == b.grid_teams && a.tensor_cores == b.tensor_cores && a.register_rows == b.register_rows &&
         a.warpgroup_products == b.warpgroup_products;
}

class BatchInvariance : public ::testing::TestWithParam<std::tuple<Variant, DType, bool /*features*/>> {};

// The promise: with the launch fixed, a sequence's rows do not depend on the batch around it
// wherever its plan alone equals the batch's. For the baseline and the Q-block variants that is
// every sequence; split_kv takes its partition count (and on GPUs its team's shape) from the
// batch's longest visible key range, so there it is the sequence that sets that range.
TEST_P(BatchInvariance, ASequenceAloneGetsTheBitsItGetsInTheBatch) {
  const auto [variant, dtype, features] = GetParam();
  const HostProblem batch = generate_batch(mixed_batch(dtype, features));
  const AttentionOptions options = fixed_launch(variant);
  const ProblemRun in_batch = run_problem(batch, options);
  const std::size_t row = std::size_t(batch.geometry.num_q_heads) * batch.geometry.head_size;
  int compared = 0;
  for (int s = 0; s < batch.geometry.num_seqs; ++s) {
    const HostProblem one = single_sequence(batch, s);
    if (one.geometry.num_tokens == 0) continue;
    const ProblemRun alone = run_problem(one, options);
    const bool longest = s == batch.geometry.num_seqs - 1;
    if (variant != Variant::split_kv || longest)
      EXPECT_TRUE(same_launch(alone.plan, in_batch.plan)) << "sequence " << s;
    if (!same_launch(alone.plan, in_batch.plan)) continue;
    const auto first = in_batch.out.begin() + std::ptrdiff_t(batch.cu_seqlens_q[std::size_t(s)] * row);
    const std::vector<float> rows(first, first + std::ptrdiff_t(alone.out.size()));
    EXPECT_EQ(test::value_bits(alone.out), test::value_bits(rows)) << "sequence " << s;
    ++compared;
  }
  EXPECT_GT(compared, 0);
}

// bf16 takes the kernels fp16 takes, and its coarser rounding would hide more.
INSTANTIATE_TEST_SUITE_P(AllVariants, BatchInvariance,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::Values(DType::fp32, DType::fp16), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<Variant, DType, bool>>& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  std::string(to_string(std::get<1>(info.param))) +
                                  (std::get<2>(info.param) ? "_features" : "_plain");
                         });

}  // namespace
}  // namespace kattn
