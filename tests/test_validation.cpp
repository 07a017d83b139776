// Every validation error path: a clear InvalidProblem naming the field, and nothing written.
#include "kattn/attention.hpp"
#include "kattn/harness/run_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/problem/validate.hpp"
#include "test_problems.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

namespace kattn {
namespace {

struct BadInput {
  const char* name;
  std::function<void(HostProblem&)> mutate;
  const char* field;  // the field the error must name
};

void PrintTo(const BadInput& bad, std::ostream* os) { *os << bad.name; }

class HostValidation : public ::testing::TestWithParam<BadInput> {};

TEST_P(HostValidation, RejectsWithFieldName) {
  HostProblem p = test::small_mixed_problem();
  ASSERT_NO_THROW(validate(p));
  GetParam().mutate(p);
  try {
    validate(p);
    FAIL() << "accepted an invalid problem";
  } catch (const InvalidProblem& e) {
    EXPECT_EQ(e.field(), GetParam().field) << e.what();
    EXPECT_NE(std::string(e.what()).find(GetParam().field), std::string::npos) << e.what();
  }
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();

INSTANTIATE_TEST_SUITE_P(
    AllChecks, HostValidation,
    ::testing::Values(
        BadInput{"negative_tokens", [](HostProblem& p) { p.geometry.num_tokens = -1; }, "num_tokens"},
        BadInput{"zero_q_heads", [](HostProblem& p) { p.geometry.num_q_heads = 0; }, "num_q_heads"},
        BadInput{"zero_kv_heads", [](HostProblem& p) { p.geometry.num_kv_heads = 0; }, "num_kv_heads"},
        BadInput{"zero_head_size", [](HostProblem& p) { p.geometry.head_size = 0; }, "head_size"},
        BadInput{"zero_blocks", [](HostProblem& p) { p.geometry.num_blocks = 0; }, "num_blocks"},
        BadInput{"zero_block_size", [](HostProblem& p) { p.geometry.block_size = 0; }, "block_size"},
        BadInput{"zero_seqs", [](HostProblem& p) { p.geometry.num_seqs = 0; }, "num_seqs"},
        BadInput{"zero_table_width", [](HostProblem& p) { p.geometry.max_blocks_per_seq = 0; }, "max_blocks_per_seq"},
        BadInput{"heads_not_multiple", [](HostProblem& p) { p.geometry.num_q_heads = 3; }, "num_q_heads"},
        BadInput{"scale_zero", [](HostProblem& p) { p.params.softmax_scale = 0.0; }, "softmax_scale"},
        BadInput{"scale_negative", [](HostProblem& p) { p.params.softmax_scale = -0.1; }, "softmax_scale"},
        BadInput{"scale_nan", [](HostProblem& p) { p.params.softmax_scale = kNaN; }, "softmax_scale"},
        BadInput{"scale_inf", [](HostProblem& p) { p.params.softmax_scale = INFINITY; }, "softmax_scale"},
        BadInput{"window_below_minus_one", [](HostProblem& p) { p.params.window_left = -2; }, "window_left"},
        BadInput{"softcap_negative", [](HostProblem& p) { p.params.softcap = -1.0f; }, "softcap"},
        BadInput{"alibi_wrong_size", [](HostProblem& p) { p.alibi_slopes = {1.0f}; }, "alibi_slopes"},
        BadInput{"alibi_not_finite",
                 [](HostProblem& p) {
                   p.alibi_slopes = {0.5f, kNaN, 0.5f, 0.5f};
                 },
                 "alibi_slopes[1]"},
        BadInput{"sinks_wrong_size", [](HostProblem& p) { p.sinks = {1.0f}; }, "sinks"},
        BadInput{"prefix_wrong_size", [](HostProblem& p) { p.prefix_lens = {1}; }, "prefix_lens"},
        BadInput{"prefix_beyond_seq",
                 [](HostProblem& p) {
                   p.prefix_lens = {0, 14, 0};
                 },
                 "prefix_lens[1]"},
        BadInput{"prefix_negative",
                 [](HostProblem& p) {
                   p.prefix_lens = {0, 0, -1};
                 },
                 "prefix_lens[2]"},
        BadInput{"qq_bias_wrong_size",
                 [](HostProblem& p) {
                   p.qq_bias_size = 6;
                   p.qq_bias.assign(35, 0.0f);
                 },
                 "qq_bias"},
        BadInput{"qq_bias_too_small",
                 [](HostProblem& p) {
                   p.qq_bias_size = 5;
                   p.qq_bias.assign(25, 0.0f);
                 },
                 "qq_bias"},
        BadInput{"k_scale_zero", [](HostProblem& p) { p.params.k_scale = 0.0f; }, "k_scale"},
        BadInput{"v_scale_nan", [](HostProblem& p) { p.params.v_scale = kNaN; }, "v_scale"},
        BadInput{"out_scale_negative", [](HostProblem& p) { p.params.out_scale = -1.0f; }, "out_scale"},
        BadInput{"q_in_fp8", [](HostProblem& p) { p.dtype = DType::fp8_e4m3; }, "dtype"},
        BadInput{"q_wrong_size", [](HostProblem& p) { p.q.pop_back(); }, "q"},
        BadInput{"k_wrong_size", [](HostProblem& p) { p.k_cache.pop_back(); }, "k_cache"},
        BadInput{"v_wrong_size", [](HostProblem& p) { p.v_cache.push_back(0.0f); }, "v_cache"},
        BadInput{"table_wrong_size", [](HostProblem& p) { p.block_table.pop_back(); }, "block_table"},
        BadInput{"cu_wrong_size", [](HostProblem& p) { p.cu_seqlens_q.pop_back(); }, "cu_seqlens_q"},
        BadInput{"seq_lens_wrong_size", [](HostProblem& p) { p.seq_lens.pop_back(); }, "seq_lens"},
        BadInput{"cu_not_starting_at_zero", [](HostProblem& p) { p.cu_seqlens_q[0] = 1; }, "cu_seqlens_q[0]"},
        BadInput{"cu_decreasing", [](HostProblem& p) { p.cu_seqlens_q[2] = 0; }, "cu_seqlens_q[2]"},
        BadInput{"cu_total_mismatch", [](HostProblem& p) { p.cu_seqlens_q[3] -= 1; }, "cu_seqlens_q[3]"},
        BadInput{"query_longer_than_seq", [](HostProblem& p) { p.seq_lens[1] = 4; }, "seq_lens[1]"},
        BadInput{"seq_beyond_blocks", [](HostProblem& p) { p.seq_lens[0] = 1000; }, "seq_lens[0]"},
        BadInput{
            "block_id_too_large",
            [](HostProblem& p) { p.block_table[std::size_t(p.geometry.max_blocks_per_seq)] = p.geometry.num_blocks; },
            "block_table[1][0]"},
        BadInput{"block_id_negative", [](HostProblem& p) { p.block_table[1] = -1; }, "block_table[0][1]"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return std::string(info.param.name); });

TEST(HostValidation, IgnoresPaddingBeyondUsedBlocks) {
  HostProblem p = test::small_mixed_problem();
  // Sequence 2 (length 6, block size 4) uses 2 of the 4 columns; vLLM pads the rest.
  p.block_table[std::size_t(2 * p.geometry.max_blocks_per_seq + 3)] = -7;
  EXPECT_NO_THROW(validate(p));
}

TEST(HostValidation, RunProblemRejectsBeforeRunning) {
  HostProblem p = test::small_mixed_problem();
  p.seq_lens[2] = 3;
  EXPECT_THROW(run_problem(p), InvalidProblem);
}

// Device-API checks: the views themselves, and the promise that `out` is untouched on error.
class DeviceValidation : public ::testing::Test {
 protected:
  using Cache = Kokkos::View<float****, Kokkos::LayoutRight, MemorySpace>;
  template <class T>
  using Vector = Kokkos::View<T, Kokkos::LayoutRight, MemorySpace>;

  void SetUp() override {
    problem = test::small_mixed_problem();
    const Geometry& g = problem.geometry;
    in.q = upload(Vector<float***>("q", g.num_tokens, g.num_q_heads, g.head_size), problem.q);
    k = upload(Cache("k", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size), problem.k_cache);
    in.k_cache = k;
    in.v_cache = upload(Cache("v", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size), problem.v_cache);
    block_table = upload(Vector<std::int32_t**>("bt", g.num_seqs, g.max_blocks_per_seq), problem.block_table);
    in.block_table = block_table;
    cu_seqlens_q = upload(Vector<std::int32_t*>("cu", g.num_seqs + 1), problem.cu_seqlens_q);
    in.cu_seqlens_q = cu_seqlens_q;
    in.seq_lens = upload(Vector<std::int32_t*>("sl", g.num_seqs), problem.seq_lens);
    out = AttentionOutput<float>("out", g.num_tokens, g.num_q_heads, g.head_size);
    Kokkos::deep_copy(out, kSentinel);
  }

  template <class View, class T>
  static View upload(View view, const std::vector<T>& values) {
    auto host = Kokkos::create_mirror_view(view);
    std::copy(values.begin(), values.end(), host.data());
    Kokkos::deep_copy(view, host);
    return view;
  }

  // Runs attention expecting `Error` naming `field`, then checks out still holds the sentinel.
  template <class Error>
  void expect_rejected(const AttentionOutput<float>& target, const std::string& field,
                       const AttentionOptions& options = {}) {
    try {
      attention(in, problem.params, target, options);
      FAIL() << "accepted invalid input";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (std::size_t i = 0; i < host.span(); ++i) ASSERT_EQ(host.data()[i], kSentinel) << "out was written";
  }

  static constexpr float kSentinel = 12345.0f;
  HostProblem problem;
  AttentionInputs<float> in;
  Cache k;
  Vector<std::int32_t**> block_table;
  Vector<std::int32_t*> cu_seqlens_q;
  AttentionOutput<float> out;
};

TEST_F(DeviceValidation, AcceptsTheValidProblem) { EXPECT_NO_THROW(attention(in, problem.params, out)); }

TEST_F(DeviceValidation, OutShapeMismatch) {
  const Geometry& g = problem.geometry;
  expect_rejected<InvalidProblem>(AttentionOutput<float>("bad", g.num_tokens, g.num_q_heads, g.head_size + 1), "out");
}

TEST_F(DeviceValidation, CacheHeadSizeMismatch) {
  const Geometry& g = problem.geometry;
  in.k_cache = Cache("k2", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size * 2);
  expect_rejected<InvalidProblem>(out, "k_cache");
}

TEST_F(DeviceValidation, ValueCacheShapeMismatch) {
  const Geometry& g = problem.geometry;
  in.v_cache = Cache("v2", g.num_blocks + 1, g.block_size, g.num_kv_heads, g.head_size);
  expect_rejected<InvalidProblem>(out, "v_cache");
}

TEST_F(DeviceValidation, NonContiguousHeadDimension) {
  const Geometry& g = problem.geometry;
  Kokkos::View<float*****, Kokkos::LayoutRight, MemorySpace> wide("wide", g.num_blocks, g.block_size, g.num_kv_heads,
                                                                  g.head_size, 2);
  in.k_cache = Kokkos::subview(wide, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL, 0);
  expect_rejected<InvalidProblem>(out, "k_cache.stride_head_dim");
}

TEST_F(DeviceValidation, BlockTableRowsMismatch) {
  const Geometry& g = problem.geometry;
  in.block_table = Vector<std::int32_t**>("bt2", g.num_seqs + 1, g.max_blocks_per_seq);
  expect_rejected<InvalidProblem>(out, "block_table");
}

TEST_F(DeviceValidation, BlockIdOutOfRangeOnDevice) {
  Kokkos::deep_copy(Kokkos::subview(block_table, 1, 0), problem.geometry.num_blocks + 5);
  expect_rejected<InvalidProblem>(out, "block_table[1][0]");
}

TEST_F(DeviceValidation, DecreasingCuSeqlens) {
  Kokkos::deep_copy(Kokkos::subview(cu_seqlens_q, 2), 0);
  expect_rejected<InvalidProblem>(out, "cu_seqlens_q[2]");
}

TEST_F(DeviceValidation, FeatureTensorShapes) {
  const Geometry& g = problem.geometry;
  in.sinks = Vector<float*>("sinks", g.num_q_heads + 1);
  expect_rejected<InvalidProblem>(out, "sinks");
  in.sinks = Vector<float*>();
  in.prefix_lens = Vector<std::int32_t*>("prefix", g.num_seqs + 1);
  expect_rejected<InvalidProblem>(out, "prefix_lens");
  in.prefix_lens = Vector<std::int32_t*>();
  in.qq_bias = Vector<float**>("qq", 6, 5);
  expect_rejected<InvalidProblem>(out, "qq_bias");
}

TEST_F(DeviceValidation, NonFiniteQqBias) {
  Vector<float**> qq_bias("qq", 32, 32);
  Kokkos::deep_copy(Kokkos::subview(qq_bias, 3, 4), std::numeric_limits<float>::quiet_NaN());
  in.qq_bias = qq_bias;
  expect_rejected<InvalidProblem>(out, "qq_bias");
}

// Without value checks (check_values = false) the call still checks every shape and stride, and
// a valid problem gives the oracle's output.
TEST_F(DeviceValidation, ShapesCheckedWithoutValueChecks) {
  AttentionOptions trusted;
  trusted.check_values = false;
  const Geometry& g = problem.geometry;
  in.sinks = Vector<float*>("sinks", g.num_q_heads + 1);
  expect_rejected<InvalidProblem>(out, "sinks", trusted);
  in.sinks = Vector<float*>();
  in.block_table = Vector<std::int32_t**>("bt2", g.num_seqs + 1, g.max_blocks_per_seq);
  expect_rejected<InvalidProblem>(out, "block_table", trusted);
}

TEST_F(DeviceValidation, ValidProblemWithoutValueChecksMatchesOracle) {
  AttentionOptions trusted;
  trusted.check_values = false;
  for (Variant variant : all_variants()) {
    trusted.variant = variant;
    Kokkos::deep_copy(out, kSentinel);
    attention(in, problem.params, out, trusted);
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    const Comparison c = compare_to_reference(std::vector<float>(host.data(), host.data() + host.span()),
                                              oracle_attention(problem), problem);
    EXPECT_TRUE(c.passed()) << to_string(variant) << ": " << c.failures << " elements off";
  }
}

}  // namespace
}  // namespace kattn
