// The C API: a call matches the oracle for each storage combination and for strided caches, with
// vLLM's ALiBi origin (a plan's run too), and every error path returns its status and a message
// naming the field, with `out` untouched.
#include "c_api_args.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/workload/generator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace kattn {
namespace {

using test::args_of;

// A mixed batch (decode, chunked prefill, prefill) with the features the C API carries.
HostProblem mixed_problem(DType dtype, const FeatureSpec& features = {}, bool causal = true) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.dtype = dtype;
  spec.block_size = 4;
  spec.sequences = {{9, 1}, {13, 5}, {6, 6}};
  spec.causal = causal;
  spec.features = features;
  spec.seed = 11;
  return generate_batch(spec);
}

// The problem the C API computes: p with vLLM's ALiBi origin, the context length.
HostProblem as_vllm(HostProblem p) {
  p.params.alibi_origin = AlibiOrigin::context_length;
  return p;
}

// `adjust` changes the arguments before the call (the values stay the problem's).
void expect_matches_oracle(const HostProblem& p, const std::function<void(kattn_attention_args&)>& adjust = {}) {
  dispatch_storage(p.dtype, p.kv_dtype(), p.out_dtype(), [&](auto q, auto cache, auto out) {
    const auto d = upload_problem<decltype(q), decltype(cache), decltype(out)>(p);
    kattn_attention_args a = args_of(p, d);
    if (adjust) adjust(a);
    ASSERT_EQ(kattn_unified_attention(&a), KATTN_SUCCESS) << kattn_last_error();
    EXPECT_STREQ(kattn_last_error(), "");
    const Comparison c = compare_to_reference(download_out(d.out), oracle_attention(as_vllm(p)), p);
    EXPECT_TRUE(c.passed()) << c.failures << " elements off, max abs error " << c.max_abs_error;
  });
}

TEST(CApi, Fp32MatchesOracle) { expect_matches_oracle(mixed_problem(DType::fp32)); }

TEST(CApi, Fp16WithWindowSoftcapAlibiSinksMatchesOracle) {
  FeatureSpec features;
  features.window_left = 4;
  features.softcap = 5.0f;
  features.alibi = true;
  features.sinks = true;
  expect_matches_oracle(mixed_problem(DType::fp16, features));
}

// vLLM's mode on a batch of decodes: no value checks, so the call plans from max_seqlen_q = 1 and
// max_seqlen_k (here a looser bound than the longest sequence, as a server's per-step maximum)
// instead of reducing the arrays on the device; sequences of different lengths and a window.
TEST(CApi, DecodesWithoutValueChecksPlanFromTheBoundsAndMatchOracle) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.dtype = DType::fp16;
  spec.block_size = 4;
  spec.sequences = {{9, 1}, {1, 1}, {30, 1}, {17, 1}};
  spec.features.window_left = 12;
  spec.seed = 12;
  expect_matches_oracle(generate_batch(spec), [](kattn_attention_args& a) {
    a.check_values = 0;
    a.max_seqlen_k += 23;
  });
}

// With sinks, ALiBi from the context length (vLLM's unified_attention) and from the query's
// position (kattn's C++ default) give different outputs: the one-shot call and a plan's run give
// vLLM's.
TEST(CApi, AlibiWithSinksMeasuresFromTheContextLengthAsVllm) {
  FeatureSpec features;
  features.alibi = true;
  features.sinks = true;
  const HostProblem p = mixed_problem(DType::fp32, features);
  const auto d = upload_problem<float, float, float>(p);
  const kattn_attention_args a = args_of(p, d);
  const std::vector<double> vllm = oracle_attention(as_vllm(p));
  const std::vector<double> from_query = oracle_attention(p);
  const auto expect_vllm = [&](const char* call) {
    const std::vector<float> out = download_out(d.out);
    EXPECT_TRUE(compare_to_reference(out, vllm, p).passed()) << call;
    EXPECT_FALSE(compare_to_reference(out, from_query, p).passed()) << call;
  };
  ASSERT_EQ(kattn_unified_attention(&a), KATTN_SUCCESS) << kattn_last_error();
  expect_vllm("kattn_unified_attention");
  Kokkos::deep_copy(d.out, 0.0f);
  kattn_plan* plan = nullptr;
  ASSERT_EQ(kattn_plan_create(&a, nullptr, &plan), KATTN_SUCCESS) << kattn_last_error();
  EXPECT_EQ(kattn_plan_run(plan, &a), KATTN_SUCCESS) << kattn_last_error();
  kattn_plan_destroy(plan);
  expect_vllm("kattn_plan_run");
}

TEST(CApi, Bf16WithFp8CacheAndOutputMatchesOracle) {
  FeatureSpec features;
  features.fp8_kv_cache = true;
  features.k_scale = 0.5f;
  features.v_scale = 1.25f;
  features.fp8_out = true;
  features.out_scale = 0.02f;
  expect_matches_oracle(mixed_problem(DType::bf16, features));
}

TEST(CApi, NonCausalMatchesOracle) { expect_matches_oracle(mixed_problem(DType::fp32, {}, false)); }

// vLLM's combined cache [num_blocks, 2, block_size, num_kv_heads, head_size]: K and V are
// strided slices of it.
TEST(CApi, StridedCachesOfOneTensorMatchOracle) {
  const HostProblem p = mixed_problem(DType::fp32);
  const Geometry& g = p.geometry;
  auto d = upload_problem<float, float, float>(p);
  Kokkos::View<float*****, Kokkos::LayoutRight, MemorySpace> kv("kv", g.num_blocks, 2, g.block_size, g.num_kv_heads,
                                                                g.head_size);
  const auto k = Kokkos::subview(kv, Kokkos::ALL, 0, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL);
  const auto v = Kokkos::subview(kv, Kokkos::ALL, 1, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL);
  Kokkos::deep_copy(k, d.inputs.k_cache);
  Kokkos::deep_copy(v, d.inputs.v_cache);
  d.inputs.k_cache = k;
  d.inputs.v_cache = v;
  const kattn_attention_args a = args_of(p, d);
  ASSERT_EQ(a.k_cache_strides[0], 2 * a.k_cache_strides[1] * g.block_size);
  ASSERT_EQ(kattn_unified_attention(&a), KATTN_SUCCESS) << kattn_last_error();
  EXPECT_TRUE(compare_to_reference(download_out(d.out), oracle_attention(p), p).passed());
}

TEST(CApi, InitializeCoexistsWithTheCallersKokkos) {
  EXPECT_EQ(kattn_initialize(), KATTN_SUCCESS) << kattn_last_error();
  EXPECT_TRUE(Kokkos::is_initialized());
}

struct BadArgs {
  const char* name;
  std::function<void(kattn_attention_args&)> mutate;
  kattn_status status;
  const char* field;  // the message must name it
};

void PrintTo(const BadArgs& bad, std::ostream* os) { *os << bad.name; }

// Runs the C API on a problem expecting `status` with a message naming `field`, and `out` untouched.
void expect_rejected(const HostProblem& p, const std::function<void(kattn_attention_args&)>& mutate,
                     kattn_status status, const std::string& field) {
  const auto d = upload_problem<float, float, float>(p);
  Kokkos::deep_copy(d.out, 7.0f);
  kattn_attention_args a = args_of(p, d);
  mutate(a);
  EXPECT_EQ(kattn_unified_attention(&a), status) << kattn_last_error();
  EXPECT_NE(std::string(kattn_last_error()).find(field), std::string::npos) << kattn_last_error();
  for (float value : download_out(d.out)) ASSERT_EQ(value, 7.0f) << "out was written";
}

class CApiErrors : public ::testing::TestWithParam<BadArgs> {};

TEST_P(CApiErrors, ReturnsStatusAndMessageAndLeavesOutUntouched) {
  expect_rejected(mixed_problem(DType::fp32), GetParam().mutate, GetParam().status, GetParam().field);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

INSTANTIATE_TEST_SUITE_P(
    AllChecks, CApiErrors,
    ::testing::Values(
        BadArgs{"struct_size", [](kattn_attention_args& a) { a.struct_size -= 8; }, KATTN_ERROR_INVALID_ARGUMENT,
                "struct_size"},
        BadArgs{"unknown_dtype", [](kattn_attention_args& a) { a.out_dtype = 7; }, KATTN_ERROR_INVALID_ARGUMENT,
                "out_dtype"},
        BadArgs{"fp8_q", [](kattn_attention_args& a) { a.q_dtype = KATTN_DTYPE_FP8_E4M3; },
                KATTN_ERROR_INVALID_ARGUMENT, "q_dtype"},
        BadArgs{"cache_of_another_type", [](kattn_attention_args& a) { a.cache_dtype = KATTN_DTYPE_FP16; },
                KATTN_ERROR_NOT_SUPPORTED, "cache_dtype"},
        BadArgs{"out_of_another_type", [](kattn_attention_args& a) { a.out_dtype = KATTN_DTYPE_BF16; },
                KATTN_ERROR_NOT_SUPPORTED, "out_dtype"},
        BadArgs{"negative_tokens", [](kattn_attention_args& a) { a.num_tokens = -1; }, KATTN_ERROR_INVALID_ARGUMENT,
                "num_tokens"},
        BadArgs{"heads_not_multiple",
                [](kattn_attention_args& a) {
                  a.num_q_heads = 3;
                  a.q_strides[0] = 3 * 64;
                  a.out_strides[0] = 3 * 64;
                },
                KATTN_ERROR_INVALID_ARGUMENT, "num_q_heads"},
        BadArgs{"null_q", [](kattn_attention_args& a) { a.q = nullptr; }, KATTN_ERROR_INVALID_ARGUMENT, "q"},
        BadArgs{"null_block_table", [](kattn_attention_args& a) { a.block_table = nullptr; },
                KATTN_ERROR_INVALID_ARGUMENT, "block_table"},
        BadArgs{"strided_q", [](kattn_attention_args& a) { a.q_strides[0] *= 2; }, KATTN_ERROR_NOT_SUPPORTED,
                "q_strides[0]"},
        BadArgs{"strided_out_heads", [](kattn_attention_args& a) { a.out_strides[1] = 1; }, KATTN_ERROR_NOT_SUPPORTED,
                "out_strides[1]"},
        BadArgs{"strided_block_table", [](kattn_attention_args& a) { a.block_table_strides[1] = 2; },
                KATTN_ERROR_NOT_SUPPORTED, "block_table_strides[1]"},
        BadArgs{"strided_head_dim", [](kattn_attention_args& a) { a.k_cache_strides[3] = 2; },
                KATTN_ERROR_INVALID_ARGUMENT, "k_cache.stride_head_dim"},
        BadArgs{"negative_cache_stride", [](kattn_attention_args& a) { a.v_cache_strides[0] = -1; },
                KATTN_ERROR_INVALID_ARGUMENT, "v_cache_strides[0]"},
        BadArgs{"overlapping_slots", [](kattn_attention_args& a) { a.k_cache_strides[1] = 1; },
                KATTN_ERROR_INVALID_ARGUMENT, "k_cache"},
        BadArgs{"scale_zero", [](kattn_attention_args& a) { a.softmax_scale = 0.0; }, KATTN_ERROR_INVALID_ARGUMENT,
                "softmax_scale"},
        BadArgs{"q_descale_nan", [](kattn_attention_args& a) { a.q_descale = kNaN; }, KATTN_ERROR_INVALID_ARGUMENT,
                "q_descale"},
        BadArgs{"k_descale_negative", [](kattn_attention_args& a) { a.k_descale = -1.0f; },
                KATTN_ERROR_INVALID_ARGUMENT, "k_scale"},
        BadArgs{"window_right", [](kattn_attention_args& a) { a.window_right = 3; }, KATTN_ERROR_NOT_SUPPORTED,
                "window_right"},
        BadArgs{"window_below_minus_one", [](kattn_attention_args& a) { a.window_left = -2; },
                KATTN_ERROR_INVALID_ARGUMENT, "window_left"},
        BadArgs{"max_seqlen_q_too_small", [](kattn_attention_args& a) { a.max_seqlen_q -= 1; },
                KATTN_ERROR_INVALID_ARGUMENT, "max_seqlen_q"},
        BadArgs{"max_seqlen_k_too_small", [](kattn_attention_args& a) { a.max_seqlen_k = 8; },
                KATTN_ERROR_INVALID_ARGUMENT, "max_seqlen_k"}),
    [](const ::testing::TestParamInfo<BadArgs>& info) { return std::string(info.param.name); });

// Index values reach the C++ API's value checks.
TEST(CApiChecks, InvalidSeqLensValue) {
  HostProblem p = mixed_problem(DType::fp32);
  p.seq_lens[1] = 4;  // shorter than its 5 new tokens
  expect_rejected(
      p, [](kattn_attention_args&) {}, KATTN_ERROR_INVALID_ARGUMENT, "seq_lens[1]");
}

TEST(CApiChecks, StreamOnAHostBackend) {
  if (!host_backend()) GTEST_SKIP() << "GPU backends take streams";
  expect_rejected(
      mixed_problem(DType::fp32), [](kattn_attention_args& a) { a.stream = &a; }, KATTN_ERROR_NOT_SUPPORTED, "stream");
}

TEST(CApiChecks, NullArgsAndTheNextSuccessClearsTheMessage) {
  EXPECT_EQ(kattn_unified_attention(nullptr), KATTN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kattn_last_error()).find("args"), std::string::npos);
  EXPECT_EQ(kattn_initialize(), KATTN_SUCCESS);
  EXPECT_STREQ(kattn_last_error(), "");
}

}  // namespace
}  // namespace kattn
