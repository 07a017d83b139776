// Tuning tables and the planner: parsing, evaluation, overrides and fitting to scratch limits.
#include "kattn/core/error.hpp"
#include "kattn/core/team_scratch_cap.hpp"
#include "kattn/detail/shapes/scratch_layout.hpp"
#include "kattn/detail/tiles/tile_mma.hpp"
#include "kattn/detail/tiles/warp_fragments.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn/tuning/tuning_table.hpp"

#include <gtest/gtest.h>

namespace kattn {
namespace {

const char* const kTable = R"({
  "arch": "test",
  "defaults": {"variant": "qblock", "tile_size": 32, "block_m": 16, "team_size": 2, "vector_length": 1},
  "tree": {"if": {"feature": "max_query_len", "at_most": 1},
           "then": {"if": {"feature": "num_seqs", "at_most": 4},
                    "then": {"name": "small-decode", "plan": {"variant": "segmented", "num_segments": 8}},
                    "else": {"name": "decode", "plan": {"block_m": 4}}},
           "else": {"name": "prefill", "plan": {"tile_size": 16}}}})";

Geometry llama() {
  Geometry g;
  g.num_q_heads = 32;
  g.num_kv_heads = 8;
  g.head_size = 64;
  g.block_size = 16;
  return g;
}

BatchMetadata batch(int num_seqs, int max_query_len) {
  BatchMetadata b;
  b.num_seqs = num_seqs;
  b.max_query_len = max_query_len;
  return b;
}

TEST(TuningTable, WalksTheTree) {
  const TuningTable table = TuningTable::parse(kTable, "test");
  LaunchPlan plan = table.evaluate(batch(2, 1), llama());
  EXPECT_EQ(plan.variant, Variant::segmented);
  EXPECT_EQ(plan.num_segments, 8);
  EXPECT_EQ(plan.tile_size, 32);  // from the defaults
  EXPECT_EQ(plan.source, "table test: small-decode");
  plan = table.evaluate(batch(64, 1), llama());
  EXPECT_EQ(plan.variant, Variant::qblock);
  EXPECT_EQ(plan.block_m, 4);
  plan = table.evaluate(batch(2, 300), llama());
  EXPECT_EQ(plan.tile_size, 16);
  EXPECT_EQ(plan.source, "table test: prefill");
}

void expect_parse_error(const std::string& json, const std::string& needle) {
  try {
    TuningTable::parse(json, "bad.json");
    FAIL() << "parsed " << json;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(TuningTable, RejectsMalformedTables) {
  expect_parse_error("{", "not valid JSON");
  expect_parse_error(R"({"defaults": {}, "tree": {"plan": {}}})", "arch");
  expect_parse_error(R"({"arch": "x", "defaults": {}, "tree": {"plan": {"variant": "fastest"}}})", "fastest");
  expect_parse_error(R"({"arch": "x", "defaults": {}, "tree": {"plan": {"tile": 3}}})", "unknown plan field 'tile'");
  expect_parse_error(R"({"arch": "x", "defaults": {"tile_size": 0}, "tree": {"plan": {}}})", "tile_size");
  expect_parse_error(R"({"arch": "x", "defaults": {}, "tree": {"if": {"feature": "moon", "at_most": 1},
                         "then": {"plan": {}}, "else": {"plan": {}}}})",
                     "unknown feature 'moon'");
  expect_parse_error(R"({"arch": "x", "defaults": {}, "tree": {"if": {"feature": "num_seqs", "at_most": 1},
                         "then": {"plan": {}}}})",
                     "tree");
}

TEST(TuningTable, SplitDecodesIsTrueOrFalse) {
  expect_parse_error(R"({"arch": "x", "defaults": {}, "tree": {"plan": {"split_decodes": 1}}})",
                     "split_decodes must be true or false");
  const TuningTable table =
      TuningTable::parse(R"({"arch": "x", "defaults": {}, "tree": {"plan": {"split_decodes": false}}})", "x");
  EXPECT_FALSE(table.evaluate(batch(2, 1), llama()).split_decodes);
  EXPECT_TRUE(LaunchPlan{}.split_decodes);  // a leaf that does not say: apart, as before the field
}

// 4 decodes of 1000 keys first, then 2 prefills of 256 tokens.
BatchMetadata decodes_then_prefills() {
  const SequenceTotals decodes = SequenceTotals::at_bounds(4, 4, 1, 1000);
  const SequenceTotals prefills = SequenceTotals::at_bounds(2, 512, 256, 256);
  return BatchMetadata(decodes, prefills, 4);
}

TEST(Planner, MixedBatchRunsItsDecodesApartWhereTheWholeBatchsLeafSays) {
  const TuningTable table = TuningTable::parse(R"({
    "arch": "test", "defaults": {"variant": "qblock", "block_m": 16, "team_size": 2, "vector_length": 1},
    "tree": {"if": {"feature": "decode_share", "at_most": 0},
             "then": {"name": "prefill", "plan": {}},
             "else": {"if": {"feature": "decode_share", "at_most": 0.99},
                      "then": {"name": "mixed", "plan": {"split_decodes": false, "tile_size": 64}},
                      "else": {"name": "decode", "plan": {"variant": "split_kv", "tile_size": 256}}}}})",
                                               "test");
  AttentionOptions options;
  options.tuning_table = &table;
  const CallPlan fused = plan_call(decodes_then_prefills(), llama(), 2, false, options);
  EXPECT_FALSE(fused.decodes);
  EXPECT_EQ(fused.main.decodes_apart, 0);
  EXPECT_EQ(fused.main.source, "table test: mixed");
  options.split_decodes = true;  // the caller's override wins, as for the other fields
  const CallPlan split = plan_call(decodes_then_prefills(), llama(), 2, false, options);
  ASSERT_TRUE(split.decodes);
  EXPECT_EQ(split.main.decodes_apart, 4);
  EXPECT_EQ(split.decodes->variant, Variant::split_kv);
  EXPECT_EQ(split.main.source, "table test: prefill");
}

TEST(TuningTable, ShippedTablesParse) {
  for (const char* arch : {"cpu", "h100"}) {
    const TuningTable* table = TuningTable::builtin(arch);
    ASSERT_NE(table, nullptr) << arch;
    EXPECT_EQ(table->arch(), arch);
    EXPECT_NO_THROW(table->evaluate(batch(1, 1), llama()));
  }
}

TEST(Planner, OverridesWinAndPlansFitScratch) {
  const TuningTable table = TuningTable::parse(kTable, "test");
  AttentionOptions options;
  options.tuning_table = &table;
  options.variant = Variant::qblock_static;
  options.block_m = 1000;
  options.tile_size = 4096;
  Geometry g = llama();
  const LaunchPlan plan = plan_launch(batch(2, 500), g, sizeof(float), false, options);
  EXPECT_EQ(plan.variant, Variant::qblock_static);
  EXPECT_EQ(plan.block_m % g.queries_per_kv(), 0);
  EXPECT_LE(qblock_scratch_bytes(plan.block_m, plan.tile_size, g.head_size, sizeof(float)), kokkos_team_scratch_max());
  EXPECT_GT(plan.grid_teams, 0);
}

// A static grid left to the device: a producer team an SM (resident, its producer streaming items
// ahead), other teams as many as the units' threads hold, never none.
TEST(Planner, StaticGridsHoldAProducerTeamAnSmElseWhatTheThreadsHold) {
  LaunchPlan plan;
  plan.variant = Variant::qblock_static;
  plan.warpgroup_products = true;
  plan.team_size = 3 * kWarpgroupWarps;
  plan.vector_length = 32;
  ASSERT_TRUE(plan.producer_warpgroup());
  EXPECT_EQ(static_grid_teams(plan, 132, 2048), 132);
  plan.team_size = kWarpgroupWarps;
  EXPECT_EQ(static_grid_teams(plan, 132, 2048), 132 * 2048 / 128);
  plan.warpgroup_products = false;
  plan.team_size = 12;
  EXPECT_EQ(static_grid_teams(plan, 132, 2048), 132 * 2048 / 384);
  EXPECT_EQ(static_grid_teams(plan, 2, 1), 1);
}

TEST(Planner, BaselineTilesAreBlocks) {
  AttentionOptions options;
  options.variant = Variant::baseline;
  options.tile_size = 7;
  EXPECT_EQ(plan_launch(batch(2, 1), llama(), 2, true, options).tile_size, 16);
}

TEST(Planner, BlockMIsAtLeastOneTokenOfHeads) {
  AttentionOptions options;
  options.variant = Variant::qblock;
  options.block_m = 1;
  EXPECT_EQ(plan_launch(batch(2, 1), llama(), 2, false, options).block_m, 4);  // the scratch kernel's rows
}

TEST(Planner, SplitKvPartitionsCoverTheLongestVisibleRange) {
  AttentionOptions options;
  options.variant = Variant::split_kv;
  options.tile_size = 256;
  BatchMetadata b = batch(2, 1);
  b.max_seq_len = 1000;
  EXPECT_EQ(plan_launch(b, llama(), 2, true, options).num_segments, 4);  // ceil(1000 / 256)
  b.window_left = 99;                                                    // a query sees at most 100 keys
  EXPECT_EQ(plan_launch(b, llama(), 2, true, options).num_segments, 1);
}

TEST(Planner, SplitKvWarpsHaveATileEachAtLeast) {
  AttentionOptions options;
  options.variant = Variant::split_kv;
  options.team_size = 4;
  BatchMetadata b = batch(2, 1);
  for (const int keys : {16, 20, 40, 1000}) {
    b.max_seq_len = keys;
    const LaunchPlan plan = plan_launch(b, llama(), 2, true, options);
    if (!plan.register_rows) GTEST_SKIP() << "the warps of the tensor-core split-KV kernel (CUDA)";
    const int tiles = (plan.tile_size + kKeyRowTileKeys - 1) / kKeyRowTileKeys;
    EXPECT_LE(plan.team_size, tiles) << keys << " keys";
    if (keys == 16) EXPECT_EQ(plan.team_size, 1);  // one tile: one warp
  }
}

TEST(Planner, TensorCoresOnlyWhereAvailable) {
  AttentionOptions options;
  options.variant = Variant::qblock;
  options.vector_length = tensor_core_lanes();
  const LaunchPlan plan = plan_launch(batch(2, 1), llama(), 2, true, options);
  EXPECT_EQ(plan.tensor_cores, tensor_cores_available() && plan.vector_length == tensor_core_lanes());
  EXPECT_FALSE(plan_launch(batch(2, 1), llama(), 4, false, options).tensor_cores);  // fp32 operands
  // On tensor cores, rows live in registers: 16 per warp in teams of at most 4 warps, tiles of the
  // fragments' size.
  EXPECT_EQ(plan.register_rows, plan.tensor_cores && register_rows_available());
  if (plan.register_rows) {
    EXPECT_LE(plan.team_size, kFragmentMaxWarps);
    EXPECT_EQ(plan.block_m, kFragmentRows * plan.team_size);  // 4 query heads per KV head divide 16
    EXPECT_EQ(plan.tile_size, kFragmentTileKeys);
  }
  Geometry wide = llama();
  wide.head_size = 256;  // more than the fragments hold: the scratch kernel, still on tensor cores
  EXPECT_FALSE(plan_launch(batch(2, 1), wide, 2, true, options).register_rows);
}

// The register-row team shapes on the warpgroup products: one warpgroup of rows, two (8 warps),
// or two with a producer warpgroup (12), each where the plan asks for that many warps and its
// tiles fit; Q blocks of 16 rows a warp of rows, tiles of 64 keys a warpgroup of rows.
TEST(Planner, WarpgroupTeamsTakeTheWarpsThatFit) {
  const auto team = [](int team_size, bool two_fit, bool producer_fits) {
    LaunchPlan plan;
    plan.register_rows = plan.warpgroup_products = true;
    plan.team_size = team_size;
    fit_register_rows_team(plan, 4, two_fit, producer_fits);
    return plan;
  };
  const LaunchPlan one = team(4, true, true), two = team(8, true, true), fed = team(12, true, true);
  EXPECT_EQ(one.team_size, 4);
  EXPECT_EQ(one.warpgroups(), 1);
  EXPECT_FALSE(one.producer_warpgroup());
  EXPECT_EQ(two.team_size, 8);
  EXPECT_EQ(two.warpgroups(), 2);
  EXPECT_FALSE(two.producer_warpgroup());
  EXPECT_EQ(fed.team_size, 12);
  EXPECT_EQ(fed.warpgroups(), 2);
  EXPECT_TRUE(fed.producer_warpgroup());
  for (const LaunchPlan& p : {two, fed}) {
    EXPECT_EQ(p.block_m, 128);
    EXPECT_EQ(p.tile_size, 128);
  }
  EXPECT_EQ(one.block_m, 64);
  EXPECT_EQ(one.tile_size, 64);
  EXPECT_EQ(team(12, true, false).team_size, 8);  // the rings do not fit: two warpgroups alone
  EXPECT_EQ(team(12, false, true).team_size, 4);  // nor the wide tiles: one
  EXPECT_EQ(team(16, true, true).team_size, 12);
}

}  // namespace
}  // namespace kattn
