// The decode graph (paper 6.2): captured once, replayed on changed buffer contents, judged by the
// oracle each time; and its refusals.
#include "kattn/core/error.hpp"
#include "kattn/kernels/decode_graph.hpp"
#include "kattn/kernels/device_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/workload/generator.hpp"
#include "test_problems.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kattn {
namespace {

constexpr int kMaxSeqLen = 90;

BatchSpec decode_spec(DType dtype, bool features) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.dtype = dtype;
  spec.block_size = 8;
  spec.sequences = {{kMaxSeqLen, 1}, {1, 1}, {47, 1}, {9, 1}, {64, 1}, {33, 1}};
  spec.seed = 11;
  if (features) {
    spec.features.window_left = 20;
    spec.features.sinks = true;
    spec.features.softcap = 30.0f;
  }
  return spec;
}

// The first step's problem with `real` sequences left, shorter by `shrink` keys, new queries, and
// the rest padded as a server pads to the captured size: seq_len 1 on block 0.
HostProblem next_step(HostProblem step, int real, int shrink) {
  const Geometry& g = step.geometry;
  for (int s = 0; s < g.num_seqs; ++s) {
    int& seq_len = step.seq_lens[std::size_t(s)];
    if (s < real) {
      seq_len = std::max(1, seq_len - shrink);
      continue;
    }
    seq_len = 1;
    std::fill_n(step.block_table.begin() + std::ptrdiff_t(s) * g.max_blocks_per_seq, g.max_blocks_per_seq, 0);
  }
  for (float& q : step.q) q = -q;  // exact in every dtype
  return step;
}

void expect_matches(const std::vector<float>& out, const HostProblem& problem, const char* step) {
  const Comparison c = compare_to_reference(out, oracle_attention(problem), problem);
  EXPECT_TRUE(c.passed()) << step << ": " << c.failures << " elements off; max abs error " << c.max_abs_error;
}

class DecodeGraphReplay : public ::testing::TestWithParam<std::tuple<DType, bool /*features*/>> {};

TEST_P(DecodeGraphReplay, EachReplayReadsTheBuffersOfItsStep) {
  // Not a structured binding: the lambda below uses `features`, which C++17 lets no lambda capture
  // (g++ accepts it, clang and hipcc do not).
  const DType dtype = std::get<0>(GetParam());
  const bool features = std::get<1>(GetParam());
  const HostProblem first = generate_batch(decode_spec(dtype, features));
  dispatch_storage(dtype, dtype, dtype, [&](auto q, auto, auto) {
    using T = decltype(q);
    const DeviceProblem<T, T, T> buffers = upload_problem<T, T, T>(first);
    AttentionOptions options;
    options.tile_size = 16;  // several partitions per sequence, so the segment reduction runs too
    const DecodeGraph<T> graph(buffers.inputs, buffers.params, buffers.out, kMaxSeqLen, options);
    EXPECT_EQ(graph.plan().variant, Variant::split_kv);
    EXPECT_EQ(graph.plan().num_segments, features ? 2 : 6);  // window 20 + 1 keys, or 90, in partitions of 16

    graph.replay();
    expect_matches(download_out(buffers.out), first, "first replay");

    const HostProblem second = next_step(first, 4, 7);
    test::copy_indices_and_q(upload_problem<T, T, T>(second), buffers);
    graph.replay();
    graph.replay();  // replays are idempotent: nothing of the previous replay carries over
    expect_matches(download_out(buffers.out), second, "replay after the step changed");
  });
}

INSTANTIATE_TEST_SUITE_P(Dtypes, DecodeGraphReplay,
                         ::testing::Combine(::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                                            ::testing::Bool()));

class DecodeGraphRefusals : public ::testing::Test {
 protected:
  HostProblem problem = generate_batch(decode_spec(DType::fp32, false));
  DeviceProblem<float, float, float> buffers = upload_problem<float, float, float>(problem);
};

TEST_F(DecodeGraphRefusals, PrefillBuffers) {
  BatchSpec spec = decode_spec(DType::fp32, false);
  spec.sequences[2] = {47, 3};
  const auto prefill = upload_problem<float, float, float>(generate_batch(spec));
  EXPECT_THROW(DecodeGraph<float>(prefill.inputs, prefill.params, prefill.out, kMaxSeqLen), InvalidProblem);
}

TEST_F(DecodeGraphRefusals, ContextsBeyondTheBlockTable) {
  const int table_keys = problem.geometry.max_blocks_per_seq * problem.geometry.block_size;
  EXPECT_THROW(DecodeGraph<float>(buffers.inputs, buffers.params, buffers.out, table_keys + 1), InvalidProblem);
  EXPECT_THROW(DecodeGraph<float>(buffers.inputs, buffers.params, buffers.out, 0), InvalidProblem);
}

TEST_F(DecodeGraphRefusals, VariantsThatSizeTheirGridOnTheHost) {
  AttentionOptions options;
  options.variant = Variant::qblock_static;
  EXPECT_THROW(DecodeGraph<float>(buffers.inputs, buffers.params, buffers.out, kMaxSeqLen, options), NotSupported);
}

TEST_F(DecodeGraphRefusals, OutputOfAnotherShape) {
  const AttentionOutput<float> out("out", problem.geometry.num_tokens + 1, problem.geometry.num_q_heads,
                                   problem.geometry.head_size);
  EXPECT_THROW(DecodeGraph<float>(buffers.inputs, buffers.params, out, kMaxSeqLen), InvalidProblem);
}

}  // namespace
}  // namespace kattn
