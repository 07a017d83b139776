// plan_attention + run: a plan made once serves later runs on new contents of the same shapes
// (new queries, shorter contexts) with no host round trip; for every variant, from exact host
// metadata and from the bounds a server knows; captured as a graph, each replay reads its step's
// buffers (also a decode batch captured for a capacity and a context bound, replayed on a step
// padded to it, per dtype and with features); a run or capture on other shapes is refused; and the
// workspace's record of the tensor maps its buffer holds (PublishedMaps).
#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/workload/generator.hpp"
#include "test_problems.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

namespace kattn {
namespace {

// Two decodes first, then chunks and a prefill (vLLM's order), so a planned call splits.
HostProblem first_step(DType dtype) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.dtype = dtype;
  spec.block_size = 8;
  spec.sequences = {{40, 1}, {33, 1}, {50, 12}, {20, 20}, {64, 5}};
  spec.seed = 23;
  return generate_batch(spec);
}

using test::bounds_of;
using test::exact_metadata;
using test::next_step;

void expect_matches(const std::vector<float>& out, const HostProblem& problem, const char* step) {
  const Comparison c = compare_to_reference(out, oracle_attention(problem), problem);
  EXPECT_TRUE(c.passed()) << step << ": " << c.failures << " elements off; max abs error " << c.max_abs_error;
}

class PlanRun : public ::testing::TestWithParam<std::tuple<Variant, DType, bool /*bounds only*/>> {
 protected:
  const Variant variant = std::get<0>(GetParam());
  const DType dtype = std::get<1>(GetParam());
  const HostProblem first = first_step(dtype);
  const HostProblem second = next_step(first);

  // The plan of the first step for the variant, from exact metadata or from bounds only.
  template <class T>
  AttentionPlan plan_first(const DeviceProblem<T, T, T>& buffers, Workspace& workspace) const {
    AttentionOptions options;
    options.variant = variant;
    options.tile_size = 16;  // several partitions or segments per sequence
    options.num_segments = 3;
    return plan_attention(buffers.inputs, buffers.params,
                          std::get<2>(GetParam()) ? bounds_of(first) : exact_metadata(first), workspace, options);
  }
};

TEST_P(PlanRun, APlanServesLaterStepsOfItsShapes) {
  dispatch_storage(dtype, dtype, dtype, [&](auto q, auto, auto) {
    using T = decltype(q);
    const DeviceProblem<T, T, T> one = upload_problem<T, T, T>(first);
    const DeviceProblem<T, T, T> two = upload_problem<T, T, T>(second);
    Workspace workspace;
    const AttentionPlan plan = plan_first(one, workspace);
    run(plan, one.inputs, one.out);
    expect_matches(download_out(one.out), first, "first step");
    run(plan, two.inputs, two.out);
    run(plan, two.inputs, two.out);  // runs are idempotent: nothing of an earlier run carries over
    expect_matches(download_out(two.out), second, "next step, same plan");
  });
}

TEST_P(PlanRun, ACapturedRunReplaysEachStep) {
  dispatch_storage(dtype, dtype, dtype, [&](auto q, auto, auto) {
    using T = decltype(q);
    const DeviceProblem<T, T, T> buffers = upload_problem<T, T, T>(first);
    Workspace workspace;
    const AttentionGraph graph = capture_run(plan_first(buffers, workspace), buffers.inputs, buffers.out);
    graph.replay();
    expect_matches(download_out(buffers.out), first, "first replay");
    test::copy_indices_and_q(upload_problem<T, T, T>(second), buffers);
    graph.replay();
    graph.replay();
    expect_matches(download_out(buffers.out), second, "replay after the step changed");
  });
}

INSTANTIATE_TEST_SUITE_P(AllVariants, PlanRun,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::Values(DType::fp32, DType::fp16), ::testing::Bool()));

// A decode batch as a server captures it: a capacity of sequences and a bound on their contexts.
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

// The first step with `real` sequences left, shorter by `shrink` keys, new queries, and the rest
// padded as vLLM pads to a captured size: one token, seq_len 1 on block 0.
HostProblem padded_decode_step(HostProblem step, int real, int shrink) {
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
  for (float& q : step.q) q = -q;
  return step;
}

class CapturedDecodes : public ::testing::TestWithParam<std::tuple<DType, bool /*features*/>> {};

TEST_P(CapturedDecodes, EachReplayReadsItsPaddedStep) {
  // Not a structured binding: the lambda below uses `features`, which C++17 lets no lambda capture
  // (g++ accepts it, clang and hipcc do not).
  const DType dtype = std::get<0>(GetParam());
  const bool features = std::get<1>(GetParam());
  const HostProblem first = generate_batch(decode_spec(dtype, features));
  dispatch_storage(dtype, dtype, dtype, [&](auto q, auto, auto) {
    using T = decltype(q);
    const DeviceProblem<T, T, T> buffers = upload_problem<T, T, T>(first);
    AttentionOptions options;
    options.variant = Variant::split_kv;
    options.tile_size = 16;  // several partitions per sequence, so the segment reduction runs too
    const int n = first.geometry.num_seqs;
    Workspace workspace;
    const AttentionGraph graph = capture_run(
        plan_attention(buffers.inputs, buffers.params, bounded_batch_metadata(n, n, 1, kMaxSeqLen), workspace, options),
        buffers.inputs, buffers.out);
    EXPECT_EQ(graph.plan().call().main.num_segments, features ? 2 : 6);  // window 20 + 1 keys, or 90, in 16s
    graph.replay();
    expect_matches(download_out(buffers.out), first, "first replay");
    const HostProblem second = padded_decode_step(first, 4, 7);
    test::copy_indices_and_q(upload_problem<T, T, T>(second), buffers);
    graph.replay();
    expect_matches(download_out(buffers.out), second, "replay of a padded step");
  });
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CapturedDecodes,
                         ::testing::Combine(::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                                            ::testing::Bool()));

// The workspace's record of the tensor maps its buffer holds (PublishedMaps): a call finds in place
// only the bytes the call just before it left at the same place, and nothing after forget().
TEST(PublishedMaps, HeldOnlyWhereTheCallBeforeLeftTheSameBytes) {
  PublishedMaps published;
  const std::uint64_t maps = 1, other_maps = 2;
  char slots[2];
  published.begin_call();
  EXPECT_FALSE(published.holds(&slots[0], &maps, sizeof maps)) << "the first call";
  published.begin_call();
  EXPECT_TRUE(published.holds(&slots[0], &maps, sizeof maps)) << "the same maps again";
  EXPECT_FALSE(published.holds(&slots[1], &maps, sizeof maps)) << "another place";
  published.begin_call();
  EXPECT_FALSE(published.holds(&slots[0], &other_maps, sizeof other_maps)) << "other bytes";
  EXPECT_TRUE(published.holds(&slots[1], &maps, sizeof maps)) << "the call before's other place";
  published.begin_call();
  published.begin_call();
  EXPECT_FALSE(published.holds(&slots[0], &other_maps, sizeof other_maps)) << "a call between that wrote none";
  published.forget();
  published.begin_call();
  EXPECT_FALSE(published.holds(&slots[0], &other_maps, sizeof other_maps)) << "after forget()";
}

// A call's maps past the record's room, or larger than a launch's, are not recorded: the call
// after finds them not held (and writes them again), those in the room held.
TEST(PublishedMaps, MapsPastTheRecordsRoomAreNeverHeld) {
  PublishedMaps published;
  const std::uint64_t maps = 3;
  const char large[PublishedMaps::kMapBytes + 1] = {};
  char slots[PublishedMaps::kCallMaps + 2];
  for (int call = 0; call < 2; ++call) {
    published.begin_call();
    for (int m = 0; m <= PublishedMaps::kCallMaps; ++m)
      EXPECT_EQ(published.holds(&slots[m], &maps, sizeof maps), call == 1 && m < PublishedMaps::kCallMaps)
          << "call " << call << ", map " << m;
    EXPECT_FALSE(published.holds(&slots[PublishedMaps::kCallMaps + 1], large, sizeof large)) << "call " << call;
  }
}

TEST(PlanRunChecks, ARunOrCaptureOnOtherShapesIsRefusedWithOutUntouched) {
  const HostProblem first = first_step(DType::fp32);
  BatchSpec other_spec;
  other_spec.model = model_by_name("tiny");
  other_spec.block_size = 8;
  other_spec.sequences = {{40, 1}, {33, 2}};
  other_spec.seed = 5;
  const HostProblem other = generate_batch(other_spec);
  const DeviceProblem<float, float, float> one = upload_problem<float, float, float>(first);
  DeviceProblem<float, float, float> two = upload_problem<float, float, float>(other);
  Kokkos::deep_copy(two.out, 7.0f);
  Workspace workspace;
  const AttentionPlan plan = plan_attention(one.inputs, one.params, exact_metadata(first), workspace);
  EXPECT_THROW(run(plan, two.inputs, two.out), InvalidProblem);
  EXPECT_THROW(capture_run(plan, two.inputs, two.out), InvalidProblem);
  for (float x : download_out(two.out)) ASSERT_EQ(x, 7.0f);
  const AttentionOutput<float> longer("out", first.geometry.num_tokens + 1, first.geometry.num_q_heads,
                                      first.geometry.head_size);
  EXPECT_THROW(capture_run(plan, one.inputs, longer), InvalidProblem);
  EXPECT_THROW(plan_attention(one.inputs, one.params, exact_metadata(other), workspace), InvalidProblem);
}

}  // namespace
}  // namespace kattn
