// The C API's plans: kattn_plan_create + kattn_plan_run match the one-shot call and the oracle on
// decode and mixed batches, planned from host copies of the batch or from bounds only; a plan
// runs later steps written into the same buffers (new q/K/V, new lengths within its bounds) and
// keeps its own workspace while one-shot calls grow theirs; every refused run or plan returns its
// status and a message naming the field, with `out` and *plan untouched.
#include "c_api_args.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/workload/generator.hpp"
#include "test_problems.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace kattn {
namespace {

using test::args_of;
using PlanPtr = std::unique_ptr<kattn_plan, void (*)(kattn_plan*)>;

HostProblem batch_of(DType dtype, std::vector<SequenceShape> sequences, std::uint64_t seed) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.dtype = dtype;
  spec.block_size = 4;
  spec.sequences = std::move(sequences);
  spec.seed = seed;
  return generate_batch(spec);
}

HostProblem decode_batch(DType dtype) { return batch_of(dtype, {{9, 1}, {30, 1}, {1, 1}, {17, 1}}, 3); }

// Decodes first (vLLM's order), a chunk after context and a prefill.
HostProblem mixed_batch(DType dtype) { return batch_of(dtype, {{9, 1}, {21, 1}, {13, 5}, {6, 6}}, 11); }

kattn_batch_host host_copies_of(const HostProblem& p) {
  return kattn_batch_host{sizeof(kattn_batch_host), p.cu_seqlens_q.data(), p.seq_lens.data()};
}

PlanPtr make_plan(const kattn_attention_args& a, const kattn_batch_host* batch) {
  kattn_plan* plan = nullptr;
  EXPECT_EQ(kattn_plan_create(&a, batch, &plan), KATTN_SUCCESS) << kattn_last_error();
  return PlanPtr(plan, kattn_plan_destroy);
}

void expect_matches_oracle(const std::vector<float>& out, const HostProblem& p, const char* what) {
  const Comparison c = compare_to_reference(out, oracle_attention(p), p);
  EXPECT_TRUE(c.passed()) << what << ": " << c.failures << " elements off, max abs error " << c.max_abs_error;
}

// A later step written into the buffers of the first, as a server (or a graph replay) does.
template <class T>
void write_step(const DeviceProblem<T, T, T>& step, const DeviceProblem<T, T, T>& buffers) {
  test::copy_indices_and_q(step, buffers);
  Kokkos::deep_copy(test::writable(buffers.inputs.k_cache), step.inputs.k_cache);
  Kokkos::deep_copy(test::writable(buffers.inputs.v_cache), step.inputs.v_cache);
}

class CApiPlan : public ::testing::TestWithParam<std::tuple<bool /*mixed*/, DType, bool /*host copies*/>> {};

TEST_P(CApiPlan, RunMatchesTheOneShotCallAndTheOracle) {
  const DType dtype = std::get<1>(GetParam());
  const bool host_copies = std::get<2>(GetParam());
  const HostProblem p = std::get<0>(GetParam()) ? mixed_batch(dtype) : decode_batch(dtype);
  dispatch_storage(dtype, dtype, dtype, [&](auto q, auto, auto) {
    using T = decltype(q);
    const auto planned = upload_problem<T, T, T>(p);
    const auto one_shot = upload_problem<T, T, T>(p);
    const kattn_attention_args a = args_of(p, planned);
    const kattn_batch_host copies = host_copies_of(p);
    const PlanPtr plan = make_plan(a, host_copies ? &copies : nullptr);
    ASSERT_EQ(kattn_plan_run(plan.get(), &a), KATTN_SUCCESS) << kattn_last_error();
    EXPECT_STREQ(kattn_last_error(), "");
    const kattn_attention_args b = args_of(p, one_shot);
    ASSERT_EQ(kattn_unified_attention(&b), KATTN_SUCCESS) << kattn_last_error();
    const std::vector<float> out = download_out(planned.out);
    const std::vector<float> expected = download_out(one_shot.out);
    expect_matches_oracle(out, p, "plan + run");
    if (host_copies) {
      EXPECT_EQ(out, expected) << "the one-shot call plans from the same host copies";
    } else {
      const Comparison c = compare_to_reference(out, std::vector<double>(expected.begin(), expected.end()), p);
      EXPECT_TRUE(c.passed()) << "against the one-shot call: max abs error " << c.max_abs_error;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(DecodeAndMixed, CApiPlan,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(DType::fp32, DType::fp16),
                                            ::testing::Bool()));

// Planned from bounds only, a plan runs a step of other query and sequence lengths (the decode
// now second, a longer chunk) and new q/K/V written into the same buffers.
TEST(CApiPlanSteps, ABoundsPlanRunsAStepOfNewLengths) {
  const HostProblem first = batch_of(DType::fp32, {{9, 1}, {13, 5}, {6, 6}}, 11);
  const HostProblem second = batch_of(DType::fp32, {{14, 4}, {9, 1}, {7, 7}}, 12);
  for (const auto& extent :
       {&Geometry::num_tokens, &Geometry::num_seqs, &Geometry::num_blocks, &Geometry::max_blocks_per_seq})
    ASSERT_EQ(first.geometry.*extent, second.geometry.*extent) << "the steps must share the plan's shapes";
  const auto buffers = upload_problem<float, float, float>(first);
  kattn_attention_args bounds = args_of(first, buffers);
  bounds.max_seqlen_q = 8;
  bounds.max_seqlen_k = 16;
  const PlanPtr plan = make_plan(bounds, nullptr);
  const kattn_attention_args a = args_of(first, buffers);
  ASSERT_EQ(kattn_plan_run(plan.get(), &a), KATTN_SUCCESS) << kattn_last_error();
  expect_matches_oracle(download_out(buffers.out), first, "first step");

  write_step(upload_problem<float, float, float>(second), buffers);
  const kattn_attention_args b = args_of(second, buffers);
  ASSERT_EQ(kattn_plan_run(plan.get(), &b), KATTN_SUCCESS) << kattn_last_error();
  ASSERT_EQ(kattn_plan_run(plan.get(), &b), KATTN_SUCCESS) << kattn_last_error();
  expect_matches_oracle(download_out(buffers.out), second, "second step, same plan");
}

// Planned from host copies, a plan runs steps with the same query lengths and shorter sequences.
TEST(CApiPlanSteps, AHostCopiesPlanRunsAStepOfShorterSequences) {
  const HostProblem first = mixed_batch(DType::fp16);
  HostProblem second = batch_of(DType::fp16, {{9, 1}, {21, 1}, {13, 5}, {6, 6}}, 12);
  for (int s = 0; s < second.geometry.num_seqs; ++s) {
    const int query_len = second.cu_seqlens_q[std::size_t(s) + 1] - second.cu_seqlens_q[std::size_t(s)];
    second.seq_lens[std::size_t(s)] = std::max(query_len, second.seq_lens[std::size_t(s)] - 3);
  }
  const auto buffers = upload_problem<fp16_t, fp16_t, fp16_t>(first);
  const kattn_attention_args a = args_of(first, buffers);
  const kattn_batch_host copies = host_copies_of(first);
  const PlanPtr plan = make_plan(a, &copies);
  ASSERT_EQ(kattn_plan_run(plan.get(), &a), KATTN_SUCCESS) << kattn_last_error();
  expect_matches_oracle(download_out(buffers.out), first, "first step");

  write_step(upload_problem<fp16_t, fp16_t, fp16_t>(second), buffers);
  const kattn_attention_args b = args_of(second, buffers);
  ASSERT_EQ(kattn_plan_run(plan.get(), &b), KATTN_SUCCESS) << kattn_last_error();
  expect_matches_oracle(download_out(buffers.out), second, "shorter sequences, same plan");
}

// One-shot calls grow the workspace of their stream; a plan's runs use the plan's own.
TEST(CApiPlanSteps, APlanKeepsItsWorkspaceWhileOneShotCallsGrowTheirs) {
  const HostProblem small = mixed_batch(DType::fp32);
  const HostProblem large = batch_of(DType::fp32, {{40, 1}, {64, 64}, {90, 33}, {50, 50}, {70, 9}}, 5);
  const auto buffers = upload_problem<float, float, float>(small);
  const kattn_attention_args a = args_of(small, buffers);
  const PlanPtr plan = make_plan(a, nullptr);
  ASSERT_EQ(kattn_plan_run(plan.get(), &a), KATTN_SUCCESS) << kattn_last_error();
  const auto other = upload_problem<float, float, float>(large);
  const kattn_attention_args b = args_of(large, other);
  ASSERT_EQ(kattn_unified_attention(&b), KATTN_SUCCESS) << kattn_last_error();
  expect_matches_oracle(download_out(other.out), large, "one-shot call");
  Kokkos::deep_copy(buffers.out, 7.0f);
  ASSERT_EQ(kattn_plan_run(plan.get(), &a), KATTN_SUCCESS) << kattn_last_error();
  expect_matches_oracle(download_out(buffers.out), small, "plan run after the one-shot call");
}

struct BadRun {
  const char* name;
  std::function<void(kattn_attention_args&)> mutate;
  kattn_status status;
  const char* field;  // the message must name it
};

void PrintTo(const BadRun& bad, std::ostream* os) { *os << bad.name; }

// A plan of the mixed batch, and a run of it with `mutate`d args: `status`, a message naming
// `field`, and `out` untouched.
void expect_run_rejected(const std::function<void(kattn_attention_args&)>& mutate, kattn_status status,
                         const std::string& field) {
  const HostProblem p = mixed_batch(DType::fp32);
  const auto d = upload_problem<float, float, float>(p);
  Kokkos::deep_copy(d.out, 7.0f);
  kattn_attention_args a = args_of(p, d);
  const PlanPtr plan = make_plan(a, nullptr);
  mutate(a);
  EXPECT_EQ(kattn_plan_run(plan.get(), &a), status) << kattn_last_error();
  EXPECT_NE(std::string(kattn_last_error()).find(field), std::string::npos) << kattn_last_error();
  for (float value : download_out(d.out)) ASSERT_EQ(value, 7.0f) << "out was written";
}

class CApiPlanRunErrors : public ::testing::TestWithParam<BadRun> {};

TEST_P(CApiPlanRunErrors, ReturnsStatusAndMessageAndLeavesOutUntouched) {
  expect_run_rejected(GetParam().mutate, GetParam().status, GetParam().field);
}

INSTANTIATE_TEST_SUITE_P(
    AllChecks, CApiPlanRunErrors,
    ::testing::Values(
        BadRun{"struct_size", [](kattn_attention_args& a) { a.struct_size += 8; }, KATTN_ERROR_INVALID_ARGUMENT,
               "struct_size"},
        BadRun{"other_num_tokens", [](kattn_attention_args& a) { a.num_tokens -= 1; }, KATTN_ERROR_INVALID_ARGUMENT,
               "num_tokens"},
        BadRun{"other_num_blocks", [](kattn_attention_args& a) { a.num_blocks -= 1; }, KATTN_ERROR_INVALID_ARGUMENT,
               "num_blocks"},
        BadRun{"other_out_dtype", [](kattn_attention_args& a) { a.out_dtype = KATTN_DTYPE_FP8_E4M3; },
               KATTN_ERROR_INVALID_ARGUMENT, "out_dtype"},
        BadRun{"unknown_q_dtype", [](kattn_attention_args& a) { a.q_dtype = 7; }, KATTN_ERROR_INVALID_ARGUMENT,
               "q_dtype"},
        BadRun{"other_causal", [](kattn_attention_args& a) { a.causal = 0; }, KATTN_ERROR_INVALID_ARGUMENT, "causal"},
        BadRun{"other_window", [](kattn_attention_args& a) { a.window_left = 2; }, KATTN_ERROR_INVALID_ARGUMENT,
               "window_left"},
        BadRun{"other_scale", [](kattn_attention_args& a) { a.softmax_scale *= 2; }, KATTN_ERROR_INVALID_ARGUMENT,
               "softmax_scale"},
        BadRun{"other_k_descale", [](kattn_attention_args& a) { a.k_descale = 0.5f; }, KATTN_ERROR_INVALID_ARGUMENT,
               "k_descale"},
        BadRun{"max_seqlen_q_beyond_plan", [](kattn_attention_args& a) { a.max_seqlen_q += 1; },
               KATTN_ERROR_INVALID_ARGUMENT, "max_seqlen_q"},
        BadRun{"max_seqlen_k_beyond_plan", [](kattn_attention_args& a) { a.max_seqlen_k += 1; },
               KATTN_ERROR_INVALID_ARGUMENT, "max_seqlen_k"},
        BadRun{"negative_max_seqlen_k", [](kattn_attention_args& a) { a.max_seqlen_k = -1; },
               KATTN_ERROR_INVALID_ARGUMENT, "max_seqlen_k"},
        BadRun{"null_q", [](kattn_attention_args& a) { a.q = nullptr; }, KATTN_ERROR_INVALID_ARGUMENT, "q"},
        BadRun{"null_seq_lens", [](kattn_attention_args& a) { a.seq_lens = nullptr; }, KATTN_ERROR_INVALID_ARGUMENT,
               "seq_lens"},
        BadRun{"strided_q", [](kattn_attention_args& a) { a.q_strides[0] *= 2; }, KATTN_ERROR_NOT_SUPPORTED,
               "q_strides[0]"},
        BadRun{"negative_cache_stride", [](kattn_attention_args& a) { a.v_cache_strides[0] = -1; },
               KATTN_ERROR_INVALID_ARGUMENT, "v_cache_strides[0]"},
        BadRun{"strided_head_dim", [](kattn_attention_args& a) { a.k_cache_strides[3] = 2; },
               KATTN_ERROR_INVALID_ARGUMENT, "k_cache.stride_head_dim"},
        BadRun{"overlapping_slots", [](kattn_attention_args& a) { a.k_cache_strides[1] = 1; },
               KATTN_ERROR_INVALID_ARGUMENT, "k_cache"}),
    [](const ::testing::TestParamInfo<BadRun>& info) { return std::string(info.param.name); });

TEST(CApiPlanChecks, NullPlanOrArgsAndAStreamOnAHostBackend) {
  const HostProblem p = mixed_batch(DType::fp32);
  const auto d = upload_problem<float, float, float>(p);
  Kokkos::deep_copy(d.out, 7.0f);
  kattn_attention_args a = args_of(p, d);
  EXPECT_EQ(kattn_plan_run(nullptr, &a), KATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kattn_last_error()).find("plan"), std::string::npos) << kattn_last_error();
  const PlanPtr plan = make_plan(a, nullptr);
  EXPECT_EQ(kattn_plan_run(plan.get(), nullptr), KATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kattn_last_error()).find("args"), std::string::npos) << kattn_last_error();
  if (host_backend()) {
    a.stream = &a;
    EXPECT_EQ(kattn_plan_run(plan.get(), &a), KATTN_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(kattn_last_error()).find("stream"), std::string::npos) << kattn_last_error();
  }
  for (float value : download_out(d.out)) ASSERT_EQ(value, 7.0f) << "out was written";
  kattn_plan_destroy(nullptr);
}

// What kattn_plan_create reads: the args and the optional host copies of the batch.
struct PlanInputs {
  kattn_attention_args args;
  std::vector<std::int32_t> cu_seqlens_q, seq_lens;
  kattn_batch_host batch;
  bool with_batch = true;
};

struct BadPlan {
  const char* name;
  std::function<void(PlanInputs&)> mutate;
  kattn_status status;
  const char* field;
};

void PrintTo(const BadPlan& bad, std::ostream* os) { *os << bad.name; }

class CApiPlanCreateErrors : public ::testing::TestWithParam<BadPlan> {};

TEST_P(CApiPlanCreateErrors, ReturnsStatusAndMessageAndLeavesThePlanPointerAlone) {
  const HostProblem p = mixed_batch(DType::fp32);
  const auto d = upload_problem<float, float, float>(p);
  PlanInputs in{args_of(p, d), p.cu_seqlens_q, p.seq_lens, {}, true};
  in.batch = kattn_batch_host{sizeof(kattn_batch_host), in.cu_seqlens_q.data(), in.seq_lens.data()};
  GetParam().mutate(in);
  kattn_plan* const sentinel = reinterpret_cast<kattn_plan*>(&in);  // never dereferenced
  kattn_plan* plan = sentinel;
  EXPECT_EQ(kattn_plan_create(&in.args, in.with_batch ? &in.batch : nullptr, &plan), GetParam().status)
      << kattn_last_error();
  EXPECT_NE(std::string(kattn_last_error()).find(GetParam().field), std::string::npos) << kattn_last_error();
  EXPECT_EQ(plan, sentinel);
}

INSTANTIATE_TEST_SUITE_P(
    AllChecks, CApiPlanCreateErrors,
    ::testing::Values(BadPlan{"struct_size", [](PlanInputs& in) { in.args.struct_size = 0; },
                              KATTN_ERROR_INVALID_ARGUMENT, "struct_size"},
                      BadPlan{"unknown_cache_dtype", [](PlanInputs& in) { in.args.cache_dtype = -1; },
                              KATTN_ERROR_INVALID_ARGUMENT, "cache_dtype"},
                      BadPlan{"heads_not_multiple",
                              [](PlanInputs& in) {
                                in.args.num_q_heads = 3;
                                in.args.q_strides[0] = in.args.out_strides[0] = 3 * in.args.head_size;
                              },
                              KATTN_ERROR_INVALID_ARGUMENT, "num_q_heads"},
                      BadPlan{"strided_out", [](PlanInputs& in) { in.args.out_strides[1] = 1; },
                              KATTN_ERROR_NOT_SUPPORTED, "out_strides[1]"},
                      BadPlan{"scale_zero", [](PlanInputs& in) { in.args.softmax_scale = 0.0; },
                              KATTN_ERROR_INVALID_ARGUMENT, "softmax_scale"},
                      BadPlan{"window_right", [](PlanInputs& in) { in.args.window_right = 3; },
                              KATTN_ERROR_NOT_SUPPORTED, "window_right"},
                      BadPlan{"bounds_cannot_hold_the_tokens",
                              [](PlanInputs& in) {
                                in.with_batch = false;
                                in.args.max_seqlen_q = 1;
                              },
                              KATTN_ERROR_INVALID_ARGUMENT, "max_seqlen_q"},
                      BadPlan{"negative_max_seqlen_k",
                              [](PlanInputs& in) {
                                in.with_batch = false;
                                in.args.max_seqlen_k = -1;
                              },
                              KATTN_ERROR_INVALID_ARGUMENT, "max_seqlen_k"},
                      BadPlan{"batch_struct_size", [](PlanInputs& in) { in.batch.struct_size = 8; },
                              KATTN_ERROR_INVALID_ARGUMENT, "batch.struct_size"},
                      BadPlan{"null_host_seq_lens", [](PlanInputs& in) { in.batch.seq_lens = nullptr; },
                              KATTN_ERROR_INVALID_ARGUMENT, "batch.seq_lens"},
                      BadPlan{"host_seq_lens_beyond_the_table", [](PlanInputs& in) { in.seq_lens[2] = 1000; },
                              KATTN_ERROR_INVALID_ARGUMENT, "seq_lens[2]"},
                      BadPlan{"host_cu_seqlens_q_short_of_num_tokens",
                              [](PlanInputs& in) { in.cu_seqlens_q.back() -= 1; }, KATTN_ERROR_INVALID_ARGUMENT,
                              "cu_seqlens_q[4]"},
                      BadPlan{"host_copies_beyond_max_seqlen_k", [](PlanInputs& in) { in.args.max_seqlen_k -= 1; },
                              KATTN_ERROR_INVALID_ARGUMENT, "max_seqlen_k"}),
    [](const ::testing::TestParamInfo<BadPlan>& info) { return std::string(info.param.name); });

TEST(CApiPlanChecks, NullPlanPointer) {
  const HostProblem p = mixed_batch(DType::fp32);
  const auto d = upload_problem<float, float, float>(p);
  const kattn_attention_args a = args_of(p, d);
  EXPECT_EQ(kattn_plan_create(&a, nullptr, nullptr), KATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kattn_last_error()).find("plan"), std::string::npos) << kattn_last_error();
}

}  // namespace
}  // namespace kattn
