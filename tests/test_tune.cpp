// The autotuner's parts: the fit of the decision tree (on synthetic raw results; mixed batches apart or fused), the search
// space, and the samples a mixed batch gives.
#include "kattn/harness/device_problem.hpp"
#include "kattn/tuning/tuning_table.hpp"
#include "kattn/workload/generator.hpp"
#include "tools/tune_fit.hpp"
#include "tools/tune_samples.hpp"
#include "tools/tune_space.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace kattn {
namespace {

using nlohmann::json;

const json kShortTiles = {{"variant", "split_kv"}, {"tile_size", 64}};
const json kLongTiles = {{"variant", "split_kv"}, {"tile_size", 512}};

// A sample as kattn tune sweep writes it: every feature 0 but those given, and (overrides, status, µs) results.
json raw_sample(const std::string& name, const json& features,
                const std::vector<std::tuple<json, std::string, double>>& results) {
  json f = json::object();
  for (const std::string& feature : batch_feature_names())
    f[feature] = features.is_object() ? features.value(feature, 0.0) : 0.0;  // {} converts to null
  json r = json::array({{{"status", "untuned"}, {"mean_us", 100.0}}});
  for (const auto& [overrides, status, mean] : results) {
    json result{{"status", status}, {"overrides", overrides}};
    if (status != "rejected") result["mean_us"] = mean;
    r.push_back(result);
  }
  return {{"name", name}, {"case", name}, {"dtype", "fp16"}, {"part", "whole"}, {"features", f}, {"results", r}};
}

json raw_doc(const json& samples) {
  return {{"schema", "kattn-tune-raw"},
          {"prune", 3.0},
          {"device", "test"},
          {"space_defaults",
           {{"variant", "qblock"},
            {"tile_size", 32},
            {"block_m", 16},
            {"num_segments", 1},
            {"team_size", 4},
            {"vector_length", 1},
            {"grid_teams", 0}}},
          {"samples", samples}};
}

// Short sequences prefer short tiles, long ones long tiles: the boundary lies between 600 and 700.
json planted_samples() {
  json samples = json::array();
  for (int len = 100; len <= 1200; len += 100) {
    const bool shorter = len <= 600;
    samples.push_back(
        raw_sample("c" + std::to_string(len), {{"max_seq_len", len}},
                   {{kShortTiles, "ok", shorter ? 10.0 : 30.0}, {kLongTiles, "ok", shorter ? 20.0 : 15.0}}));
  }
  return samples;
}

cli::FitResult fit(const json& samples, int max_depth = 4, int min_leaf = 2) {
  cli::FitOptions options;
  options.arch = "test";
  options.max_depth = max_depth;
  options.min_leaf = min_leaf;
  return cli::fit_table(cli::tune_data({raw_doc(samples)}, {"raw"}), options);
}

// Whole mixed batches timed apart ({"split_decodes": true}) and fused (each plan with false), beside
// prefills timed on the same plans without the field: one leaf serves both, a plan that does not
// say false stands for the mixed batch apart, and where fused wins the leaf says false.
TEST(TuneFit, MixedBatchesChooseApartOrFusedBesideThePlansOfOtherBatches) {
  const json apart = {{"split_decodes", true}};
  const json fused = {{"variant", "qblock"}, {"block_m", 64}, {"split_decodes", false}};
  const json qblock64 = {{"variant", "qblock"}, {"block_m", 64}};
  const json qblock16 = {{"variant", "qblock"}, {"block_m", 16}};
  auto samples_where = [&](double apart_us, double fused_us) {
    json samples = json::array();
    for (int n = 1; n <= 3; ++n) {
      samples.push_back(raw_sample("mixed" + std::to_string(n), {{"decode_share", 0.5}, {"num_seqs", 2 * n}},
                                   {{apart, "ok", apart_us}, {fused, "ok", fused_us}}));
      samples.push_back(raw_sample("prefill" + std::to_string(n), {{"num_seqs", 2 * n}},
                                   {{qblock64, "ok", 10.0}, {qblock16, "ok", 20.0}}));
    }
    return samples;
  };
  const cli::FitResult split = fit(samples_where(50.0, 80.0), 0);  // one leaf for all six
  EXPECT_NEAR(split.in_sample.geomean, 1.0, 1e-12);  // qblock bm 64: the prefills' best, the mixed batches apart
  const TuningTable apart_table = TuningTable::parse(split.table.dump(), "fitted");
  EXPECT_TRUE(apart_table.evaluate(BatchMetadata{}, Geometry{}).split_decodes);
  EXPECT_EQ(apart_table.evaluate(BatchMetadata{}, Geometry{}).block_m, 64);

  const cli::FitResult one_launch = fit(samples_where(80.0, 50.0), 0);
  EXPECT_NEAR(one_launch.in_sample.geomean, 1.0, 1e-12);  // fused bm 64 is bm 64 for the prefills
  const LaunchPlan leaf = TuningTable::parse(one_launch.table.dump(), "fitted").evaluate(BatchMetadata{}, Geometry{});
  EXPECT_FALSE(leaf.split_decodes);
  EXPECT_EQ(leaf.block_m, 64);
}

TEST(TuneFit, RecoversAPlantedSplit) {
  const cli::FitResult result = fit(planted_samples());
  const nlohmann::ordered_json& tree = result.table["tree"];
  EXPECT_EQ(tree["if"]["feature"], "max_seq_len");
  EXPECT_EQ(tree["if"]["at_most"], 600.0);  // the largest value on the left
  EXPECT_EQ(tree["then"]["name"], "max_seq_len<=600");
  EXPECT_EQ(tree["then"]["samples"], 6);
  EXPECT_NEAR(result.in_sample.geomean, 1.0, 1e-12);  // each side's plan is each sample's best
  EXPECT_NEAR(result.untuned.geomean, std::exp((6 * std::log(10.0) + 6 * std::log(100.0 / 15.0)) / 12), 1e-9);

  // The table loads and its leaves give the plans that were timed, whatever the defaults.
  const TuningTable table = TuningTable::parse(result.table.dump(), "fitted");
  BatchMetadata batch;
  batch.max_seq_len = 600;
  const LaunchPlan shorter = table.evaluate(batch, Geometry{});
  EXPECT_EQ(shorter.variant, Variant::split_kv);
  EXPECT_EQ(shorter.tile_size, 64);
  EXPECT_EQ(shorter.team_size, 4);  // from the space's defaults
  batch.max_seq_len = 700;
  EXPECT_EQ(table.evaluate(batch, Geometry{}).tile_size, 512);
}

TEST(TuneFit, RespectsDepthAndLeafSize) {
  EXPECT_EQ(fit(planted_samples(), 0).table["tree"].count("plan"), 1u);
  EXPECT_EQ(fit(planted_samples(), 4, 7).table["tree"].count("plan"), 1u);  // 6 | 6 leaves too small a leaf
  // Three regions: one test at depth 1, two at depth 2.
  json samples = planted_samples();
  const json middle = {{"variant", "qblock"}, {"tile_size", 16}};
  for (json& s : samples) {
    const double len = s["features"]["max_seq_len"];
    s["results"].push_back(
        {{"status", "ok"}, {"overrides", middle}, {"mean_us", len > 300 && len <= 900 ? 5.0 : 50.0}});
  }
  const nlohmann::ordered_json shallow = fit(samples, 1).table["tree"];
  EXPECT_TRUE(shallow["then"].contains("plan") && shallow["else"].contains("plan"));
  const nlohmann::ordered_json deep = fit(samples, 2).table["tree"];
  EXPECT_TRUE(deep["then"].contains("if") || deep["else"].contains("if"));
}

TEST(TuneFit, CostsOfPrunedRejectedAndMissingPlans) {
  const json other = {{"variant", "qblock"}};
  const json samples =
      json::array({raw_sample("a", {}, {{kShortTiles, "ok", 10.0}, {kLongTiles, "pruned", 15.0}, {other, "ok", 40.0}}),
                   raw_sample("b", {}, {{kShortTiles, "ok", 10.0}, {kLongTiles, "rejected", 0.0}})});
  const cli::TuneData data = cli::tune_data({raw_doc(samples)}, {"raw"});
  ASSERT_EQ(data.plans.size(), 3u);
  const double prune = std::log(3.0);
  EXPECT_NEAR(data.costs.cost[0][1], prune, 1e-12);          // pruned at 1.5x: at least the prune factor
  EXPECT_NEAR(data.costs.cost[0][2], std::log(4.0), 1e-12);  // pruned factor below the measured ratio
  EXPECT_NEAR(data.costs.cost[1][1], 2 * prune, 1e-12);      // rejected
  EXPECT_TRUE(data.costs.rejected[1][1]);
  EXPECT_NEAR(data.costs.cost[1][2], 2 * prune, 1e-12);  // not timed
  EXPECT_FALSE(data.costs.rejected[1][2]);
}

TEST(TuneFit, ALeafAvoidsAPlanThatCannotRun) {
  // The long tiles win four samples by 2x and cannot run the fifth: their summed cost (2 ln 3)
  // is below the short tiles' (4 ln 2), but a leaf must not choose a plan that throws.
  json samples = json::array();
  for (int i = 0; i < 4; ++i)
    samples.push_back(raw_sample("s" + std::to_string(i), {}, {{kShortTiles, "ok", 20.0}, {kLongTiles, "ok", 10.0}}));
  samples.push_back(raw_sample("s4", {}, {{kShortTiles, "ok", 20.0}, {kLongTiles, "rejected", 0.0}}));
  EXPECT_EQ(fit(samples).table["defaults"]["tile_size"], 64);
}

TEST(TuneSpace, ExpandsGroupsForTheBatchesTheyAdmit) {
  const cli::SearchSpace space = cli::parse_search_space(R"({
    "defaults": {"variant": "qblock", "tile_size": 32, "block_m": 16, "num_segments": 1, "team_size": 4,
                 "vector_length": 1, "grid_teams": 0},
    "groups": [{"when": [{"feature": "max_query_len", "at_most": 1}], "variants": ["split_kv"],
                "tile_size": [64, 128], "vector_length": [null, 8]},
               {"when": [{"feature": "max_query_len", "at_least": 2}], "variants": ["qblock", "segmented"]}]})",
                                                         "space");
  BatchMetadata decode;
  decode.max_query_len = 1;
  const std::vector<json> plans = space.plans_for(decode, Geometry{});
  ASSERT_EQ(plans.size(), 4u);
  EXPECT_EQ(plans[1], json({{"variant", "split_kv"}, {"tile_size", 64}, {"vector_length", 8}}));
  EXPECT_EQ(cli::full_plan(space.defaults, plans[0])["vector_length"], 1);  // null: the defaults' value
  decode.max_query_len = 7;
  EXPECT_EQ(space.plans_for(decode, Geometry{}).size(), 2u);
}

TEST(TuneSpace, RejectsMalformedSpaces) {
  const std::string defaults = R"("defaults": {"variant": "qblock", "tile_size": 32, "block_m": 16, "num_segments": 1,
                                  "team_size": 4, "vector_length": 1, "grid_teams": 0})";
  auto error_of = [](const std::string& text) {
    try {
      cli::parse_search_space(text, "space.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"defaults": {"variant": "qblock"}, "groups": []})").find("'tile_size' is missing"),
            std::string::npos);
  EXPECT_NE(error_of("{" + defaults + R"(, "groups": [{"variants": ["fastest"]}]})").find("fastest"),
            std::string::npos);
  EXPECT_NE(
      error_of("{" + defaults + R"(, "groups": [{"variants": ["qblock"], "tile": [3]}]})").find("unknown key 'tile'"),
      std::string::npos);
  EXPECT_NE(error_of("{" + defaults +
                     R"(, "groups": [{"variants": ["qblock"], "when": [{"feature": "moon", "at_most": 1}]}]})")
                .find("unknown feature 'moon'"),
            std::string::npos);
}

TEST(TuneSpace, ShippedSpacesParse) {
  for (const char* name : {"gpu", "host"})
    EXPECT_NO_THROW(cli::load_search_space(std::string(KATTN_DATA_DIR) + "/tuning/spaces/" + name + ".json")) << name;
}

TEST(TuneSamples, MixedBatchesGiveTheWholeBatchAndItsTwoParts) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.block_size = 4;
  spec.sequences = {{10, 1}, {20, 1}, {30, 5}, {3, 3}};
  const HostProblem problem = generate_batch(spec);
  const std::vector<cli::TuneSample> samples = cli::tune_samples("mix", problem);
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0].name, "mix");  // split or fused: the whole batch's leaf decides
  EXPECT_EQ(samples[0].part, "whole");
  EXPECT_EQ(samples[0].problem.geometry.num_seqs, 4);
  const HostProblem& decodes = samples[1].problem;
  const HostProblem& rest = samples[2].problem;
  EXPECT_EQ(samples[1].name, "mix[decodes]");
  EXPECT_EQ(samples[2].part, "rest");
  EXPECT_EQ(decodes.geometry.num_seqs, 2);
  EXPECT_EQ(decodes.geometry.num_tokens, 2);
  EXPECT_EQ(rest.geometry.num_seqs, 2);
  EXPECT_EQ(rest.geometry.num_tokens, 8);
  EXPECT_EQ(rest.cu_seqlens_q, (std::vector<std::int32_t>{0, 5, 8}));
  EXPECT_EQ(rest.seq_lens, (std::vector<std::int32_t>{30, 3}));
  const std::size_t row = std::size_t(problem.geometry.max_blocks_per_seq);
  EXPECT_EQ(rest.block_table, std::vector<std::int32_t>(problem.block_table.begin() + 2 * std::ptrdiff_t(row),
                                                        problem.block_table.end()));
  const std::size_t token = std::size_t(problem.geometry.num_q_heads * problem.geometry.head_size);
  ASSERT_EQ(rest.q.size(), 8 * token);
  EXPECT_EQ(rest.q.front(), problem.q[2 * token]);  // the third token's row
  EXPECT_EQ(rest.k_cache, problem.k_cache);         // the cache is shared
  EXPECT_EQ(problem_batch_metadata(rest).num_decodes, 0);

  spec.sequences = {{30, 5}, {10, 1}};  // a decode after a longer query: one batch, as plan_call runs it
  EXPECT_EQ(cli::tune_samples("late", generate_batch(spec)).size(), 1u);
}

}  // namespace
}  // namespace kattn
