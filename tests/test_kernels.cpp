// Every kernel variant against the oracle over a grid of dtypes, block sizes, GQA ratios, head
// sizes and batch shapes. Tolerances per dtype: kattn/oracle/compare.hpp, docs/testing.md.
#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/tuning/tuning_table.hpp"
#include "kernel_checks.hpp"
#include "random_problems.hpp"
#include "test_problems.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <sstream>
#include <tuple>
#include <utility>

namespace kattn {
namespace {

using test::device_team_sizes;
using test::expect_matches_oracle;
using test::expect_matches_reference;
using test::forced;
using test::mixed_sequences;

using GridParam =
    std::tuple<Variant, DType, int /*block size*/, int /*tile size*/, int /*queries per kv*/, int /*head size*/>;

class KernelGrid : public ::testing::TestWithParam<GridParam> {};

TEST_P(KernelGrid, MixedBatchMatchesOracle) {
  const auto [variant, dtype, block_size, tile_size, queries_per_kv, head_size] = GetParam();
  BatchSpec spec;
  spec.model = {"grid", 2 * queries_per_kv, 2, head_size};
  spec.dtype = dtype;
  spec.block_size = block_size;
  spec.sequences = mixed_sequences();
  spec.seed = std::uint64_t(block_size * 1000 + queries_per_kv * 10 + head_size);
  expect_matches_oracle(generate_batch(spec), forced(variant, tile_size));
}

// Block size 23 divides none of the lengths; tile sizes 7 and 32 are decoupled from the block
// size (the baseline always uses tiles of one block).
INSTANTIATE_TEST_SUITE_P(AllVariants, KernelGrid,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                                            ::testing::Values(1, 16, 32, 23), ::testing::Values(7, 32),
                                            ::testing::Values(1, 4, 8), ::testing::Values(64, 128)),
                         [](const ::testing::TestParamInfo<GridParam>& info) {
                           std::ostringstream name;
                           name << to_string(std::get<0>(info.param)) << "_" << to_string(std::get<1>(info.param))
                                << "_block" << std::get<2>(info.param) << "_tile" << std::get<3>(info.param) << "_gqa"
                                << std::get<4>(info.param) << "_head" << std::get<5>(info.param);
                           return name.str();
                         });

// Llama-3-8B's 4 query heads a KV head and head size on 2 KV heads, not 8: the sm_90a kernels' Q
// blocks and tiles as on the model, a quarter of the host's work.
const ModelGeometry kLlamaGroupsOnTwoKvHeads{"llama-groups", 8, 2, 128};

// Llama-3-8B at block 16.
BatchSpec llama_spec(DType dtype, std::vector<SequenceShape> sequences) {
  BatchSpec spec;
  spec.model = model_by_name("llama-3-8b");
  spec.dtype = dtype;
  spec.block_size = 16;
  spec.sequences = std::move(sequences);
  return spec;
}

class KernelEdgeCases : public ::testing::TestWithParam<Variant> {};

TEST_P(KernelEdgeCases, LongContextOf16k) {
  expect_matches_oracle(generate_batch(llama_spec(DType::fp16, {{16384, 1}, {16384 + 3, 3}})),
                        forced(GetParam(), 64, 16));
}

TEST_P(KernelEdgeCases, SingleTokenPrefill) {
  expect_matches_oracle(generate_batch(llama_spec(DType::bf16, {{1, 1}})), forced(GetParam()));
}

TEST_P(KernelEdgeCases, ConsecutiveBlocksAndNonCausal) {
  BatchSpec spec = llama_spec(DType::fp32, {{40, 40}, {9, 3}});
  spec.permute_blocks = false;
  spec.causal = false;
  expect_matches_oracle(generate_batch(spec), forced(GetParam()));
}

TEST_P(KernelEdgeCases, MultiQueryAttention) {
  BatchSpec spec = llama_spec(DType::fp16, {{70, 1}, {33, 33}});
  spec.model = model_by_name("mqa-small");
  expect_matches_oracle(generate_batch(spec), forced(GetParam()));
}

TEST_P(KernelEdgeCases, NonPowerOfTwoBlockSize544) {
  BatchSpec spec = llama_spec(DType::bf16, {{1100, 1}, {700, 20}});
  spec.model = model_by_name("tiny");
  spec.block_size = 544;
  expect_matches_oracle(generate_batch(spec), forced(GetParam()));
}

TEST_P(KernelEdgeCases, BatchOfOnlyEmptyQueries) {
  BatchSpec spec = llama_spec(DType::fp32, {{5, 0}, {8, 0}});
  spec.model = model_by_name("tiny");
  EXPECT_TRUE(run_problem(generate_batch(spec), forced(GetParam())).out.empty());
}

// More segments than tiles: most segments see no key at all and must not produce NaN; rows whose
// keys all fall into other segments come out of the merge exactly.
TEST_P(KernelEdgeCases, EmptyAndFullyMaskedSegments) {
  BatchSpec spec = llama_spec(DType::fp32, {{3, 1}, {40, 40}, {17, 2}});
  spec.model = model_by_name("tiny");
  expect_matches_oracle(generate_batch(spec), forced(GetParam(), 4, 64));
}

// A static grid of one team must still walk every work item.
TEST_P(KernelEdgeCases, StaticGridOfOneTeam) {
  BatchSpec spec = llama_spec(DType::bf16, {{30, 1}, {25, 9}, {12, 12}});
  spec.model = model_by_name("mqa-small");
  AttentionOptions options = forced(GetParam(), 16, 2);
  options.grid_teams = 1;
  expect_matches_oracle(generate_batch(spec), options);
}

// Q blocks wider than one token per KV head: BLOCK_M 64 rows with 8 heads per KV head.
TEST_P(KernelEdgeCases, WideQBlocks) {
  BatchSpec spec = llama_spec(DType::fp16, {{100, 37}, {64, 64}, {9, 1}});
  AttentionOptions options = forced(GetParam(), 16, 2);
  options.block_m = 64;
  expect_matches_oracle(generate_batch(spec), options);
}

// Teams of 8 and 12 warps: on sm_90a at head 128, two warpgroups on Q blocks of 128 rows stepping
// over tiles of 128 keys, the 12 with a producer warpgroup feeding them through rings (a causal
// diagonal inside a tile, a chunk whose rows start mid-tile, a decode, a prefill past several
// tiles, a Q block of 3 valid tokens; static grids of 3 teams, so that a team's rings run on
// across items, and 4 segments, so that the early Q blocks' later segments are empty); elsewhere
// whatever the plan fits (the host: its own team, device_team_sizes). On two KV heads, with one
// oracle a dtype, short enough for the host variants under the sanitizers (CI's debug preset: the
// host's split_kv on llama-3-8b's 8 KV heads had neared its 600 s).
TEST_P(KernelEdgeCases, TeamsOfEightAndTwelveWarps) {
  for (const DType dtype : {DType::fp16, DType::bf16}) {
    BatchSpec spec = llama_spec(dtype, {{300, 101}, {129, 1}, {300, 300}, {67, 35}});
    spec.model = kLlamaGroupsOnTwoKvHeads;
    spec.seed = 31;
    const HostProblem problem = generate_batch(spec);
    const std::vector<double> reference = oracle_attention(problem);
    for (const std::optional<int> team_size : device_team_sizes({8, 12})) {
      AttentionOptions options = forced(GetParam(), 0, 4);
      options.team_size = team_size;
      if (is_static_grid(GetParam())) options.grid_teams = 3;
      SCOPED_TRACE(::testing::Message() << to_string(dtype) << " team " << team_size.value_or(0));
      expect_matches_reference(problem, reference, options);
    }
  }
}

// A static grid's teams of one warpgroup that claim their items (sm_90a at head 128, where a part
// has 4 items a team the device runs at once: 1112 items on 8 KV heads, past the 4 · 264 of a
// 132-SM H100; no other test has as many), prefills ending mid-tile and a chunk after context among
// them; on the planned grid, then on one of 2 teams, whose claims start from the counters the
// first launch's last team put back to zero on the same workspace.
TEST(KernelClaimingTeams, MatchOracle) {
  if (!device_backend()) GTEST_SKIP() << "claiming teams are the sm_90a kernel's of one warpgroup";
  BatchSpec spec = llama_spec(DType::fp16, {{600, 600}, {600, 600}, {611, 600}, {400, 400}});
  spec.seed = 35;
  const HostProblem problem = generate_batch(spec);
  const std::vector<double> reference = oracle_attention(problem);
  for (const Variant variant : {Variant::qblock_static, Variant::segmented_static})
    for (const int grid_teams : {2112, 2}) {
      AttentionOptions options = forced(variant, 0, 2);
      options.team_size = 4;
      options.grid_teams = grid_teams;
      SCOPED_TRACE(::testing::Message() << to_string(variant) << " grid " << grid_teams);
      expect_matches_reference(problem, reference, options);
    }
}

// A call writes the tensor maps its kernel copies by only where the workspace's call before did not
// leave the same ones (PublishedMaps; on sm_90a at head 128 the one-warpgroup kernel's Q and output
// rows, the 12 warps' cache): the same plan on other buffers, after another plan's call and after a
// graph's replay of it on the first buffers must each read and write its own, and a call whose maps
// are in place (skipped) too. Each output is zeroed before its call: a call on stale maps leaves it
// so. Elsewhere (no maps) the same calls check the rest of the plan's path.
TEST(KernelTensorMaps, EachCallFindsItsOwn) {
  const HostProblem first = generate_batch(llama_spec(DType::fp16, {{160, 160}, {90, 37}}));
  const HostProblem second = test::next_step(first);
  const std::vector<double> first_reference = oracle_attention(first), second_reference = oracle_attention(second);
  const auto one = upload_problem<fp16_t, fp16_t, fp16_t>(first);
  const auto two = upload_problem<fp16_t, fp16_t, fp16_t>(second);
  const auto expect_call = [&](const auto& call, const auto& buffers, const std::vector<double>& reference,
                               const HostProblem& problem, const char* what) {
    Kokkos::deep_copy(buffers.out, fp16_t{0});
    call();
    const Comparison c = compare_to_reference(download_out(buffers.out), reference, problem);
    EXPECT_TRUE(c.passed()) << what << ": " << c.failures << " elements off";
  };
  for (const std::optional<int> team_size : device_team_sizes({4, 12})) {
    SCOPED_TRACE(::testing::Message() << "team " << team_size.value_or(0));
    Workspace workspace;
    AttentionOptions options = forced(Variant::qblock_static);
    options.team_size = team_size;
    AttentionOptions other = forced(Variant::segmented_static, 0, 2);
    other.team_size = team_size;
    // The segmented plan first: its partials make the workspace as large as both need (a plan that
    // grew it would leave the one before stale).
    const AttentionPlan segmented =
        plan_attention(one.inputs, one.params, test::exact_metadata(first), workspace, other);
    const AttentionPlan plan = plan_attention(one.inputs, one.params, test::exact_metadata(first), workspace, options);
    expect_call([&] { run(plan, one.inputs, one.out); }, one, first_reference, first, "first call");
    expect_call([&] { run(plan, two.inputs, two.out); }, two, second_reference, second, "other buffers");
    expect_call([&] { run(plan, two.inputs, two.out); }, two, second_reference, second, "maps in place");
    expect_call([&] { run(segmented, one.inputs, one.out); }, one, first_reference, first, "another plan");
    expect_call([&] { run(plan, two.inputs, two.out); }, two, second_reference, second, "after another plan");
    const AttentionGraph graph = capture_run(plan, one.inputs, one.out);
    expect_call([&] { graph.replay(); }, one, first_reference, first, "graph replay");
    expect_call([&] { run(plan, two.inputs, two.out); }, two, second_reference, second, "after a replay");
  }
}

// Teams of 8 and 12 warps over caches of 16 to 128 slots a block: on sm_90a the warpgroups' whole
// tiles come by the tensor memory accelerator (team_bulk_copy.hpp; the 12's producer through its
// rings) and each sequence's last, partial tile by rows (a 700-token prefill: 5 whole tiles, then
// 60 keys); elsewhere whatever the plan fits (the host: its own team). Two KV heads and one oracle
// a block size keep the host variants under the sanitizers' time limit.
TEST(KernelTeamsOfEightWarps, LargeCacheBlocksMatchOracle) {
  for (const int block_size : {16, 32, 64, 128}) {
    BatchSpec spec;
    spec.model = kLlamaGroupsOnTwoKvHeads;
    spec.dtype = DType::fp16;
    spec.block_size = block_size;
    spec.sequences = {{300, 101}, {129, 1}, {700, 700}, {67, 35}};
    spec.seed = 33;
    const HostProblem problem = generate_batch(spec);
    const std::vector<double> reference = oracle_attention(problem);
    for (const std::optional<int> team_size : device_team_sizes({8, 12}))
      for (const Variant variant : {Variant::qblock, Variant::segmented}) {
        AttentionOptions options = forced(variant, 0, 2);
        options.team_size = team_size;
        SCOPED_TRACE(::testing::Message()
                     << "block " << block_size << " team " << team_size.value_or(0) << " " << to_string(variant));
        expect_matches_reference(problem, reference, options);
      }
  }
}

// Teams of 8 and 12 warps on K/V rows that the warpgroups' tile copy does not take (a head stride
// of 129 elements: no row 16-byte aligned): the portable kernel on the plan's Q blocks (the host:
// its own team).
TEST(KernelTeamsOfEightWarps, CacheRowsOffTheTileCopyMatchOracle) {
  BatchSpec spec;
  spec.model = model_by_name("llama-3-8b");
  spec.dtype = DType::fp16;
  spec.block_size = 16;
  spec.sequences = {{300, 200}, {40, 1}};
  spec.seed = 7;
  const HostProblem p = generate_batch(spec);
  const Geometry& g = p.geometry;
  auto d = upload_problem<fp16_t, fp16_t, fp16_t>(p);
  using Padded = Kokkos::View<fp16_t****, Kokkos::LayoutRight, MemorySpace>;
  const Padded k_rows("k", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size + 1);
  const Padded v_rows("v", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size + 1);
  const auto head = std::make_pair(0, g.head_size);
  const auto k = Kokkos::subview(k_rows, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL, head);
  const auto v = Kokkos::subview(v_rows, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL, head);
  Kokkos::deep_copy(k, d.inputs.k_cache);
  Kokkos::deep_copy(v, d.inputs.v_cache);
  d.inputs.k_cache = k;
  d.inputs.v_cache = v;
  const std::vector<double> reference = oracle_attention(p);
  for (const std::optional<int> team_size : device_team_sizes({8, 12})) {
    AttentionOptions options = forced(Variant::qblock);
    options.team_size = team_size;
    attention(d.inputs, d.params, d.out, options);
    const Comparison c = compare_to_reference(download_out(d.out), reference, p);
    EXPECT_TRUE(c.passed()) << team_size.value_or(0) << " warps: " << c.failures << " elements off; max abs error "
                            << c.max_abs_error;
  }
}

// Random combinations of the features (test::random_problem) on random mixed batches, every
// variant, several tile and segment counts.
class KernelFeatureCombos : public ::testing::TestWithParam<std::tuple<Variant, int /*seed*/>> {};

TEST_P(KernelFeatureCombos, MatchesOracle) {
  const auto [variant, seed] = GetParam();
  const HostProblem problem = test::random_problem(std::uint64_t(seed));
  expect_matches_oracle(problem, forced(variant, 1 + seed % 40, 1 + seed % 7));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, KernelFeatureCombos,
                         ::testing::Combine(::testing::ValuesIn(all_variants()), ::testing::Range(1, 31)),
                         [](const ::testing::TestParamInfo<std::tuple<Variant, int>>& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_seed" +
                                  std::to_string(std::get<1>(info.param));
                         });

// ALiBi with sinks, where the ALiBi origin (AlibiOrigin) changes the output: each origin against
// its oracle on the mixed batch, whose chunks and prefills hold queries past their context length.
// The other origin's oracle must disagree, or the batch could not tell the two apart.
class KernelAlibiSinks : public ::testing::TestWithParam<std::tuple<Variant, AlibiOrigin, DType>> {};

TEST_P(KernelAlibiSinks, MatchesTheOracleOfItsOrigin) {
  const auto [variant, origin, dtype] = GetParam();
  BatchSpec spec;
  spec.model = {"alibi-sinks", 8, 2, 64};
  spec.dtype = dtype;
  spec.block_size = 16;
  spec.sequences = mixed_sequences();
  spec.features.alibi = true;
  spec.features.sinks = true;
  spec.seed = 16;
  HostProblem problem = generate_batch(spec);
  problem.params.alibi_origin = origin;
  const ProblemRun run = run_problem(problem, forced(variant, 7));
  const Comparison c = compare_to_reference(run.out, oracle_attention(problem), problem);
  EXPECT_TRUE(c.passed()) << c.failures << " elements off; max abs error " << c.max_abs_error;
  problem.params.alibi_origin =
      origin == AlibiOrigin::context_length ? AlibiOrigin::query_position : AlibiOrigin::context_length;
  EXPECT_FALSE(compare_to_reference(run.out, oracle_attention(problem), problem).passed());
}

INSTANTIATE_TEST_SUITE_P(AllVariants, KernelAlibiSinks,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::Values(AlibiOrigin::query_position, AlibiOrigin::context_length),
                                            ::testing::Values(DType::fp32, DType::fp16, DType::bf16)),
                         [](const ::testing::TestParamInfo<std::tuple<Variant, AlibiOrigin, DType>>& info) {
                           return std::string(to_string(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) == AlibiOrigin::context_length ? "_from_context_"
                                                                                          : "_from_query_") +
                                  std::string(to_string(std::get<2>(info.param)));
                         });

// A planned mixed batch whose decodes come first runs them apart on split_kv and the rest on the
// table's Q-block plan (CallPlan); decodes elsewhere in the batch keep one launch. Both match the
// oracle. The table's leaves name the variants, so every backend takes the split path.
// The decodes apart on split_kv or on Q-block segments (each part's launches cover only its own
// sequences), the rest on each Q-block variant.
class MixedBatchSplit : public ::testing::TestWithParam<std::tuple<Variant, Variant, DType>> {};

TEST_P(MixedBatchSplit, LeadingDecodesRunApart) {
  const auto [decode_variant, rest_variant, dtype] = GetParam();
  const std::string json = R"({"arch": "test",
    "defaults": {"variant": "qblock", "tile_size": 16, "block_m": 16, "team_size": 4, "vector_length": 32},
    "tree": {"if": {"feature": "max_query_len", "at_most": 1},
             "then": {"name": "decode", "plan": {"variant": ")" +
                           std::string(to_string(decode_variant)) +
                           R"(", "tile_size": 8, "num_segments": 2}},
             "else": {"name": "rest", "plan": {"variant": ")" +
                           std::string(to_string(rest_variant)) + R"(", "num_segments": 3}}}})";
  const TuningTable table = TuningTable::parse(json, "split-test");
  AttentionOptions options;
  options.tuning_table = &table;
  BatchSpec spec;
  spec.model = {"split", 8, 2, 64};
  spec.dtype = dtype;
  spec.block_size = 16;
  for (const auto& [sequences, apart] : std::vector<std::pair<std::vector<SequenceShape>, int>>{
           {{{37, 1}, {70, 1}, {1, 1}, {50, 17}, {23, 23}, {12, 0}}, 3}, {{{50, 17}, {37, 1}, {23, 23}, {70, 1}}, 0}}) {
    spec.sequences = sequences;
    const HostProblem problem = generate_batch(spec);
    const ProblemRun run = run_problem(problem, options);
    EXPECT_EQ(run.plan.decodes_apart, apart);
    EXPECT_EQ(run.plan.variant, rest_variant);
    const Comparison c = compare_to_reference(run.out, oracle_attention(problem), problem);
    EXPECT_TRUE(c.passed()) << c.failures << " elements off; max abs error " << c.max_abs_error;
  }
}

INSTANTIATE_TEST_SUITE_P(QBlockVariants, MixedBatchSplit,
                         ::testing::Combine(::testing::Values(Variant::split_kv, Variant::segmented),
                                            ::testing::Values(Variant::qblock, Variant::segmented,
                                                              Variant::qblock_static, Variant::segmented_static),
                                            ::testing::Values(DType::fp32, DType::fp16)),
                         [](const ::testing::TestParamInfo<std::tuple<Variant, Variant, DType>>& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  std::string(to_string(std::get<1>(info.param))) + "_" +
                                  std::string(to_string(std::get<2>(info.param)));
                         });

INSTANTIATE_TEST_SUITE_P(AllVariants, KernelEdgeCases, ::testing::ValuesIn(all_variants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(to_string(info.param));
                         });

}  // namespace
}  // namespace kattn
