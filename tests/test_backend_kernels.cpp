// Every kernel variant against the oracle on a handful of problems, on each backend of the build
// (kattn_add_backend_tests): the plan, workspace, batch metadata and launches as instantiated for
// that backend, beside the default backend's grid of test_kernels.cpp. A Serial run of a CUDA build
// must plan and launch as a host build does (no tensor-core kernel, the cpu tuning table).
#include "kattn/core/arch.hpp"
#include "kattn/tuning/tuning_table.hpp"
#include "kernel_checks.hpp"
#include "test_space.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kattn {
namespace {

struct NamedProblem {
  std::string name;
  BatchSpec spec;
  int tile_size;
};

BatchSpec mixed_batch(DType dtype, int queries_per_kv, int head_size, int block_size) {
  BatchSpec spec;
  spec.model = {"backend", 2 * queries_per_kv, 2, head_size};
  spec.dtype = dtype;
  spec.block_size = block_size;
  spec.sequences = test::mixed_sequences();
  spec.seed = std::uint64_t(block_size * 1000 + queries_per_kv * 10 + head_size);
  return spec;
}

// Each dtype, a block size that divides none of the lengths, tiles other than the block, GQA and
// MHA, head sizes 64 and 128, every feature, fp8 caches and outputs.
std::vector<NamedProblem> problems() {
  std::vector<NamedProblem> all = {
      {"fp32_block16_gqa4_head64", mixed_batch(DType::fp32, 4, 64, 16), 7},
      {"fp16_block23_gqa1_head128", mixed_batch(DType::fp16, 1, 128, 23), 32},
      {"bf16_block16_gqa8_head128", mixed_batch(DType::bf16, 8, 128, 16), 16},
  };
  BatchSpec features = mixed_batch(DType::fp16, 4, 64, 5);
  features.features.window_left = 9;
  features.features.softcap = 30.0f;
  features.features.alibi = true;
  features.features.sinks = true;
  features.features.qq_bias = true;
  all.push_back({"fp16_block5_window_softcap_alibi_sinks_qqbias", features, 8});
  BatchSpec fp8 = mixed_batch(DType::bf16, 2, 64, 16);
  fp8.features.fp8_kv_cache = true;
  fp8.features.fp8_out = true;
  fp8.features.k_scale = 0.5f;
  fp8.features.v_scale = 2.0f;
  fp8.features.out_scale = 0.25f;
  fp8.features.prefix_lm = true;
  all.push_back({"bf16_fp8_cache_and_out_prefix_lm", fp8, 16});
  return all;
}

class KernelVariants : public ::testing::TestWithParam<std::tuple<Variant, int /*problem*/>> {};

TEST_P(KernelVariants, MatchesOracle) {
  const auto [variant, index] = GetParam();
  const NamedProblem problem = problems()[std::size_t(index)];
  test::expect_matches_oracle<test::Space>(generate_batch(problem.spec), test::forced(variant, problem.tile_size));
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, KernelVariants,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::Range(0, int(problems().size()))),
                         [](const ::testing::TestParamInfo<std::tuple<Variant, int>>& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  problems()[std::size_t(std::get<1>(info.param))].name;
                         });

// The tuning table and the kernels are the backend's: a host space plans from the cpu table and
// never on tensor cores, whatever the build's GPU.
TEST(BackendPlan, FollowsTheBackend) {
  const ProblemRun run = run_problem<test::Space>(generate_batch(mixed_batch(DType::fp16, 4, 128, 16)));
  const std::string_view arch = kernels_arch<test::Space>();
  const std::string source = TuningTable::builtin(arch) ? "table " + std::string(arch) : "defaults";
  EXPECT_EQ(run.plan.source.rfind(source, 0), 0u) << run.plan.source;
  EXPECT_TRUE(!run.plan.tensor_cores || tensor_cores_available<test::Space>());
  if (host_backend<test::Space>()) EXPECT_FALSE(run.plan.register_rows || run.plan.warpgroup_products);
}

}  // namespace
}  // namespace kattn
