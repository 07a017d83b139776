// The hardware model (docs/hardware-model.md): monotonicity, wave quantisation, occupancy and item
// latency, mixed batches as two launches, parameter-file errors, `kattn model calibrate` on either
// timing, and `kattn simulate --predict` on this build.
#include "kattn/core/arch.hpp"
#include "kattn/core/error.hpp"
#include "kattn/detail/shapes/tile_shapes.hpp"
#include "kattn/io/builtin_data.hpp"
#include "kattn/io/json_file.hpp"
#include "kattn/simulation/hardware_model.hpp"
#include "run_cli.hpp"
#include "temp_files.hpp"
#include "tools/bench_report.hpp"
#include "tools/commands.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace kattn::model {
namespace {

std::string data_file(const std::string& arch) { return hardware_model_path(arch, KATTN_DATA_DIR); }

BatchShape decodes(int n, int len) {
  BatchShape b;
  b.query_lens.assign(std::size_t(n), 1);
  b.seq_lens.assign(std::size_t(n), len);
  return b;
}

BatchShape prefill(int n, int len) {
  BatchShape b;
  b.query_lens.assign(std::size_t(n), len);
  b.seq_lens.assign(std::size_t(n), len);
  return b;
}

// Every built-in parameter file: each architecture's, and the H200's, which models the h100 build.
TEST(HardwareModel, EveryShippedParameterFileLoads) {
  const std::vector<std::string> names = builtin_data_names("data/hardware/models");
  for (const char* name : {"h100", "h200", "a100", "mi300", "mi250", "cpu"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  for (const std::string& name : names) {
    const HardwareModel hw = load_hardware_model(data_file(name));
    EXPECT_TRUE(std::any_of(std::begin(kArchTable), std::end(kArchTable),
                            [&](const ArchTraits& row) { return hw.arch == row.name; }))
        << name << ": arch " << hw.arch;
    EXPECT_GT(hw.memory_gb_per_s, 0);
    EXPECT_GT(predict_us(decodes(4, 1000), hw), hw.host_us) << name;
  }
  EXPECT_EQ(load_hardware_model(data_file("h200")).arch, "h100");
  for (const char* calibrated : {"h100", "h200"})
    EXPECT_NE(load_hardware_model(data_file(calibrated)).provenance.find("calibrated"), std::string::npos);
  EXPECT_NE(load_hardware_model(data_file("mi300")).provenance.find("assumed"), std::string::npos);
}

TEST(HardwareModel, MoreTokensAreNeverPredictedFaster) {
  for (const char* arch : {"h100", "mi300", "cpu"}) {
    const HardwareModel hw = load_hardware_model(data_file(arch));
    double last = 0;
    for (int len : {16, 64, 256, 1024, 4096, 16384}) {
      const double t = predict_us(decodes(8, len), hw);
      EXPECT_GE(t, last) << arch << " decode context " << len;
      last = t;
    }
    last = 0;
    for (int n : {1, 2, 8, 32, 128}) {
      const double t = predict_us(decodes(n, 2048), hw);
      EXPECT_GE(t, last) << arch << " decode batch " << n;
      last = t;
    }
    last = 0;
    for (int len : {16, 128, 512, 2048, 8192}) {
      const double t = predict_us(prefill(2, len), hw);
      EXPECT_GE(t, last) << arch << " prefill length " << len;
      last = t;
    }
  }
}

TEST(HardwareModel, MoreBandwidthOrFlopsIsNeverSlower) {
  const HardwareModel hw = load_hardware_model(data_file("h100"));
  HardwareModel faster = hw;
  faster.memory_gb_per_s *= 2;
  for (const BatchShape& b : {decodes(1, 128), decodes(64, 4096), prefill(1, 4096)}) {
    EXPECT_LE(predict_us(b, faster), predict_us(b, hw));
  }
  EXPECT_LT(predict_us(decodes(64, 4096), faster), predict_us(decodes(64, 4096), hw));  // memory bound
  HardwareModel more_flops = hw;
  more_flops.tensor_tflop_per_s *= 2;
  EXPECT_LT(predict_us(prefill(1, 8192), more_flops), predict_us(prefill(1, 8192), hw));  // compute bound
}

// A unit computes at its rate whatever the wave, so compute-bound teams beyond a full wave take a
// whole second one; the memory's rate is shared by the resident teams, so memory-bound ones do not.
TEST(HardwareModel, ComputeQuantisesByWavesAndMemoryDoesNot) {
  HardwareModel hw = load_hardware_model(data_file("h100"));
  hw.compute_units = 10;
  hw.max_teams_per_unit = 1;
  hw.launch_us = 0;
  hw.item_us = 0;
  hw.team_gb_per_s = 0;  // a unit's share of the memory's rate (a team's own: the test below)
  LaunchCost c;
  c.team_threads = 32;
  c.tensor = true;
  auto time_of = [&](double teams, bool compute) {
    LaunchCost t = c;
    t.teams = teams;
    (compute ? t.flops : t.bytes) = 1e9 * teams;  // the same work per team
    return launch_us(t, hw);
  };
  const double one_wave = time_of(10, true), two_waves = time_of(20, true);
  EXPECT_NEAR(two_waves, 2 * one_wave, 1e-9 * one_wave);
  EXPECT_NEAR(time_of(11, true), two_waves, 1e-9 * one_wave);  // one team more: a whole second wave
  EXPECT_NEAR(time_of(19, true), two_waves, 1e-9 * one_wave);
  EXPECT_NEAR(time_of(5, true), one_wave, 1e-9 * one_wave);  // half a wave: as long as a full one
  const double full = time_of(10, false);
  EXPECT_NEAR(time_of(11, false), 1.1 * full, 1e-9 * full);  // memory: in proportion to the bytes
  EXPECT_NEAR(time_of(5, false), full, 1e-9 * full);         // ... while every unit has a team
}

// A launch's bytes take the memory's rate, and no less time than its longest team streaming its
// K/V alone at team_gb_per_s: one long team, or the longest of unequal ones, sets the time.
TEST(HardwareModel, ALaunchStreamsNoFasterThanItsLongestTeam) {
  HardwareModel hw = load_hardware_model(data_file("h200"));
  ASSERT_GT(hw.team_gb_per_s, 0);
  hw.launch_us = 0;
  hw.item_us = 0;
  LaunchCost one;
  one.team_threads = 128;
  one.teams = 1;
  one.kv_bytes = one.kv_unique_bytes = one.team_kv_bytes = 1e8;
  const double team_us = 1e8 / (hw.team_gb_per_s * 1e9) * 1e6;
  EXPECT_NEAR(launch_us(one, hw), team_us, 1e-9 * team_us);
  LaunchCost many = one;  // 10^4 such teams: the memory's rate
  many.teams = 1e4;
  many.kv_bytes = many.kv_unique_bytes = 1e4 * one.team_kv_bytes;
  const double memory_us = many.kv_bytes / (hw.memory_gb_per_s * 1e9 * hw.mem_efficiency) * 1e6;
  ASSERT_GT(memory_us, team_us);
  EXPECT_NEAR(launch_us(many, hw), memory_us, 1e-9 * memory_us);
  LaunchCost unequal = many;  // as many bytes, one team with 20 % of them
  unequal.team_kv_bytes = 0.2 * many.kv_bytes;
  const double longest_us = unequal.team_kv_bytes / (hw.team_gb_per_s * 1e9) * 1e6;
  ASSERT_GT(longest_us, memory_us);
  EXPECT_NEAR(launch_us(unequal, hw), longest_us, 1e-9 * longest_us);
}

// Teams an SM holds: the fewest that threads, registers (per warp, in granules) and scratch allow.
TEST(HardwareModel, TeamsPerUnitFollowRegistersAndScratch) {
  HardwareModel hw = load_hardware_model(data_file("h100"));
  LaunchCost c;
  c.team_threads = 128;
  EXPECT_EQ(teams_per_unit(c, hw), 16);  // 2048 threads
  c.registers = 242;                     // 7744 registers a warp, allocated as 7936
  EXPECT_EQ(teams_per_unit(c, hw), 2);
  c.registers = 168;
  EXPECT_EQ(teams_per_unit(c, hw), 3);
  c.team_threads = 64;
  c.registers = 121;
  c.scratch_bytes = 35000;  // + 1 KB reserved a team: 6 in 228 KB
  EXPECT_EQ(teams_per_unit(c, hw), 6);
  c.scratch_bytes = 1e6;  // more than a unit has: one team still runs
  EXPECT_EQ(teams_per_unit(c, hw), 1);
  hw.registers_per_unit = 0;  // not modelled
  hw.scratch_bytes_per_unit = 0;
  EXPECT_EQ(teams_per_unit(c, hw), 32);
}

// The shipped H100 kernels: the warpgroup prefill holds 2 teams of one warpgroup an SM and 1 of
// two (Nsight Compute's block limits, docs/hardware-model.md), the tensor-core decode's 4-warp teams
// 3 (their 70 KB of scratch past Kokkos' cap, split_kv_scratch_max), and each item adds its latency.
TEST(HardwareModel, ShippedKernelsOccupancyAndItemLatency) {
  HardwareModel hw = load_hardware_model(data_file("h100"));
  const BatchShape long_prefill = prefill(1, 8192);
  const CallPlan p = target_call_plan(long_prefill, hw);
  ASSERT_TRUE(p.main.warpgroup_products);
  LaunchPlan one = p.main, two = p.main;
  one.team_size = kWarpgroupWarps;
  one.block_m = kWarpgroupRows;
  one.tile_size = kFragmentTileKeys;
  two.team_size = 2 * kWarpgroupWarps;
  two.block_m = 2 * kWarpgroupRows;
  two.tile_size = 2 * kFragmentTileKeys;
  EXPECT_EQ(teams_per_unit(launch_cost(one, long_prefill, 0, 1, hw), hw), 2);
  EXPECT_EQ(teams_per_unit(launch_cost(two, long_prefill, 0, 1, hw), hw), 1);
  const int teams = p.main.team_size == kWarpgroupWarps ? 2 : 1;
  const BatchShape decode = decodes(8, 4096);
  const CallPlan d = target_call_plan(decode, hw);
  ASSERT_TRUE(d.main.register_rows);
  ASSERT_EQ(d.main.team_size, 4);
  EXPECT_EQ(teams_per_unit(launch_cost(d.main, decode, 0, 8, hw), hw), 3);
  const LaunchCost items = launch_cost(p.main, long_prefill, 0, 1, hw);
  HardwareModel slower = hw;
  slower.item_us += 1;
  EXPECT_NEAR(launch_us(items, slower) - launch_us(items, hw),
              std::ceil(items.items / double(teams * hw.compute_units)), 1e-9);
}

// A split-KV team takes one partition beside the other teams its unit holds: its latency shows a
// wave (partition_us), not an item (item_us prices Q blocks). A launch's reduction kernel, queued
// behind the first, costs reduction_us, not another launch_us; a file without reduction_us prices
// it as a launch.
TEST(HardwareModel, SplitKvPartitionsPayTheirLatencyAWaveAndReductionsQueue) {
  const HardwareModel hw = load_hardware_model(data_file("h100"));
  const BatchShape decode = decodes(1, 1024);
  const CallPlan d = target_call_plan(decode, hw);
  ASSERT_EQ(d.main.variant, Variant::split_kv);
  const LaunchCost c = launch_cost(d.main, decode, 0, 1, hw);
  ASSERT_EQ(c.kernels, 2);  // partitions, then their reduction
  EXPECT_FALSE(c.item_latency);
  HardwareModel other = hw;
  other.item_us += 1;
  EXPECT_DOUBLE_EQ(launch_us(c, other), launch_us(c, hw));
  other = hw;
  other.partition_us += 1;
  EXPECT_NEAR(launch_us(c, other) - launch_us(c, hw), 1.0, 1e-9);  // one wave
  other = hw;
  other.reduction_us += 1;
  EXPECT_NEAR(launch_us(c, other) - launch_us(c, hw), 1.0, 1e-9);
  other = hw;
  other.launch_us += 1;
  EXPECT_NEAR(launch_us(c, other) - launch_us(c, hw), 1.0, 1e-9);
  nlohmann::json j = read_json_file(data_file("h100"), "the H100 model");
  j.erase("reduction_us");
  EXPECT_EQ(parse_hardware_model(j, "no reduction_us").reduction_us, hw.launch_us);
}

// Every grid takes its items sequence by sequence, so a key's re-reads hit the L2 while its own
// sequence's K/V fits, however much K/V the launch holds in all (Q blocks of one warpgroup, 64 rows,
// whose re-reads past the L2 outweigh their products).
TEST(HardwareModel, ReReadsAreCachedWhileASequenceFits) {
  HardwareModel hw = load_hardware_model(data_file("h100"));
  hw.launch_us = 0;
  hw.item_us = 0;
  const BatchShape one = prefill(1, 8192), four = prefill(4, 8192);
  LaunchPlan plan = target_call_plan(four, hw).main;
  ASSERT_TRUE(plan.warpgroup_products);
  plan.team_size = kWarpgroupWarps;
  plan.block_m = kWarpgroupRows;
  plan.tile_size = kFragmentTileKeys;
  const LaunchCost c1 = launch_cost(plan, one, 0, 1, hw), c4 = launch_cost(plan, four, 0, 4, hw);
  ASSERT_GT(c4.kv_bytes, 10 * c4.kv_unique_bytes);   // a Q block's keys are re-read by the later blocks
  ASSERT_GT(c4.kv_unique_bytes, hw.cache_mb * 1e6);  // 134 MB of K/V in all
  ASSERT_LT(c4.kv_seq_bytes, hw.cache_mb * 1e6);     // 34 MB a sequence
  EXPECT_NEAR(launch_us(c4, hw), 4 * launch_us(c1, hw), 0.02 * launch_us(c4, hw));  // compute-bound, as one
  HardwareModel small = hw;
  small.cache_mb = 8;  // a sequence's K/V past the cache: its re-reads go to DRAM
  EXPECT_GT(launch_us(c1, small), 1.5 * launch_us(c1, hw));
}

TEST(HardwareModel, MixedBatchHidesPartOfItsShorterLaunch) {
  const HardwareModel hw = load_hardware_model(data_file("h100"));
  BatchShape mixed = decodes(24, 4096);
  for (int i = 0; i < 8; ++i) {
    mixed.query_lens.push_back(512);
    mixed.seq_lens.push_back(512);
  }
  // The call split as plan_call splits it, each part on the plan it gets alone (whether the shipped
  // table splits this batch is the table's business).
  const BatchShape chunks = prefill(8, 512);
  CallPlan split{target_call_plan(chunks, hw).main, target_call_plan(decodes(24, 4096), hw).main};
  split.main.decodes_apart = 24;
  const double chunks_us = launch_us(launch_cost(split.main, mixed, 24, 32, hw), hw);
  const double decodes_us = launch_us(launch_cost(*split.decodes, mixed, 0, 24, hw), hw);
  const double sum = chunks_us + decodes_us;
  // The two parts run at once: parts_overlap of the shorter one hides behind the longer.
  for (double overlap : {0.0, 0.5, 1.0}) {
    HardwareModel at = hw;
    at.parts_overlap = overlap;
    EXPECT_DOUBLE_EQ(predict_call_us(split, mixed, at), at.host_us + sum - overlap * std::min(chunks_us, decodes_us));
  }
  // Without overlap each part alone is one call: the mixed call saves one host overhead and nothing else.
  HardwareModel in_order = hw;
  in_order.parts_overlap = 0;
  EXPECT_NEAR(predict_call_us(split, mixed, in_order),
              predict_us(decodes(24, 4096), in_order) + predict_us(chunks, in_order) - in_order.host_us, 1e-6 * sum);
}

std::string write_file(const std::string& name, const nlohmann::json& j) {
  const std::string path = test::temp_path("kattn_hw_" + name + ".json");
  std::ofstream(path) << j.dump();
  return path;
}

TEST(HardwareModel, ParameterFileErrorsNameFileAndField) {
  const nlohmann::json good = read_json_file(data_file("h100"), "the H100 model");
  auto expect_error = [&](const std::string& name, nlohmann::json j, const std::string& field) {
    const std::string path = write_file(name, j);
    try {
      load_hardware_model(path);
      ADD_FAILURE() << "no error for " << name;
    } catch (const FileFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  nlohmann::json j = good;
  j.erase("memory_gb_per_s");
  expect_error("missing", j, "memory_gb_per_s");
  j = good;
  j["compute_units"]["value"] = "many";
  expect_error("type", j, "compute_units");
  j = good;
  j["mem_efficiency"]["value"] = 1.5;
  expect_error("range", j, "mem_efficiency");
  j = good;
  j["parts_overlap"]["value"] = 1.5;
  expect_error("overlap", j, "parts_overlap");
  j = good;
  j["launch_us"] = -1;
  expect_error("negative", j, "launch_us");
  j = good;
  j["kernel_registers"]["value"]["split_kv_mma"] = 128;
  expect_error("kernel", j, "split_kv_mma");
  j = good;
  j["kernel_registers"]["value"]["qblock"] = 300;
  expect_error("registers", j, "kernel_registers.qblock");
  EXPECT_THROW(load_hardware_model(test::temp_path("kattn_hw_absent.json")), FileFormatError);
}

// A synthetic suite timed by the model itself with known parameters: kernel time the device part,
// the call that plus host_us, and one fitted case's call stalled on the host. On kernel time the
// fit recovers the parameters and host_us, and the stall moves none of them; on the call it does.
TEST(HardwareModel, CalibrateOnKernelTimeIgnoresHostStalls) {
  const std::string h100 = data_file("h100");
  nlohmann::json start = read_json_file(h100, "the H100 model");
  HardwareModel truth = load_hardware_model(h100);
  truth.mem_efficiency = 0.85;
  truth.tensor_efficiency = 0.4;
  truth.launch_us = 8;
  truth.reduction_us = 4;
  truth.item_us = 5;
  truth.partition_us = 2;
  truth.team_gb_per_s = 10;  // slow enough that some shapes stream at it
  truth.host_us = 30;
  truth.parts_overlap = 0.5;
  BatchShape mixed = decodes(16, 4096);
  for (int i = 0; i < 4; ++i) {
    mixed.query_lens.push_back(512);
    mixed.seq_lens.push_back(512);
  }
  BatchShape chunk = prefill(1, 16);  // 16 tokens after 16k: a Q block's long stream
  chunk.seq_lens = {16384};
  const std::vector<std::pair<std::string, BatchShape>> shapes = {{"tiny-fixed-fp16", decodes(1, 64)},
                                                                  {"split-fixed-fp16", decodes(1, 1024)},
                                                                  {"decode-fixed-fp16", decodes(8, 4096)},
                                                                  {"wide-fixed-fp16", decodes(64, 2048)},
                                                                  {"prefill-fixed-fp16", prefill(1, 4096)},
                                                                  {"items-fixed-fp16", prefill(16, 256)},
                                                                  {"pair-fixed-fp16", prefill(2, 1024)},
                                                                  {"mixed-fixed-fp16", mixed},
                                                                  {"many-fixed-fp16", decodes(256, 64)},
                                                                  {"long-fixed-fp16", decodes(2, 16384)},
                                                                  {"blocks-fixed-fp16", prefill(64, 16)},
                                                                  {"short-fixed-fp16", decodes(32, 256)},
                                                                  {"chunk-fixed-fp16", chunk},
                                                                  {"decode-rand-fp16", decodes(4, 1000)},
                                                                  {"prefill-rand-fp16", prefill(4, 2000)}};
  auto suite_file = [&](const std::string& name, double stall_us) {
    nlohmann::json suite = {{"device", "synthetic"}, {"date", "today"}, {"commit", "none"}};
    for (const auto& [case_name, b] : shapes) {
      suite["cases"].push_back({{"name", case_name},
                                {"query_lens", b.query_lens},
                                {"seq_lens", b.seq_lens},
                                {"num_q_heads", b.num_q_heads},
                                {"num_kv_heads", b.num_kv_heads},
                                {"head_size", b.head_size},
                                {"block_size", b.block_size},
                                {"spec", nlohmann::json::object()}});
      const CallPlan plans = target_call_plan(b, truth, case_name == "mixed-fixed-fp16");
      const double call_us = predict_call_us(plans, b, truth);
      nlohmann::json r = cli::launch_plan_json(plans.main);
      r.update({{"case", case_name},
                {"dtype", "fp16"},
                {"decodes_apart", plans.main.decodes_apart},
                {"kernel_median_us", call_us - truth.host_us},
                {"median_us", call_us + (case_name == "tiny-fixed-fp16" ? stall_us : 0.0)}});
      suite["results"].push_back(r);
    }
    return write_file(name, suite);
  };
  for (const char* k : {"mem_efficiency", "tensor_efficiency", "team_gb_per_s", "launch_us", "reduction_us", "item_us",
                        "partition_us", "host_us", "parts_overlap"})
    start[k]["value"] = start[k]["value"].get<double>() * 0.6;  // away from the truth
  const std::string start_file = write_file("calibrate_start", start);
  auto calibrate = [&](const std::string& suite, const std::string& timing) {
    const std::string out = test::temp_path("kattn_hw_calibrated_" + timing + ".json");
    const test::CliResult r = test::run_cli("model calibrate --suite " + suite + " --hardware " + start_file +
                                            " --timing " + timing + " --output " + out);
    EXPECT_EQ(r.exit_code, cli::kSuccess) << r.output;
    return read_json_file(out, "the calibrated model");
  };
  const std::string stalled = suite_file("suite_stalled", 150), steady = suite_file("suite_steady", 0);
  const nlohmann::json kernel = calibrate(stalled, "kernel");
  const HardwareModel fitted = parse_hardware_model(kernel, "fitted");
  EXPECT_NEAR(fitted.mem_efficiency, truth.mem_efficiency, 0.01 * truth.mem_efficiency);
  EXPECT_NEAR(fitted.tensor_efficiency, truth.tensor_efficiency, 0.01 * truth.tensor_efficiency);
  EXPECT_NEAR(fitted.launch_us, truth.launch_us, 0.01 * truth.launch_us);
  EXPECT_NEAR(fitted.reduction_us, truth.reduction_us, 0.01 * truth.reduction_us);
  EXPECT_NEAR(fitted.item_us, truth.item_us, 0.01 * truth.item_us);
  EXPECT_NEAR(fitted.partition_us, truth.partition_us, 0.03 * truth.partition_us);  // beside launch_us: a flat valley
  EXPECT_NEAR(fitted.team_gb_per_s, truth.team_gb_per_s, 0.01 * truth.team_gb_per_s);
  EXPECT_NEAR(fitted.host_us, truth.host_us, 0.01 * truth.host_us);
  EXPECT_NEAR(fitted.parts_overlap, truth.parts_overlap, 0.02 * truth.parts_overlap);
  EXPECT_NE(kernel.at("free_parameters").get<std::string>().find("timing kernel"), std::string::npos);
  // Both timings are reported: the stall shows on the call, not on kernel time.
  ASSERT_EQ(kernel.at("calibration_error").size(), 4u);
  for (const nlohmann::json& row : kernel.at("calibration_error")) {
    const bool call = row.at("timing") == "call";
    EXPECT_EQ(row.at("cases").get<int>(), row.at("set").get<std::string>().rfind("calibration", 0) == 0 ? 13 : 2);
    if (call && row.at("set").get<std::string>().rfind("calibration", 0) == 0) {
      EXPECT_EQ(row.at("worst"), "tiny-fixed-fp16/fp16");
      EXPECT_GT(row.at("max").get<double>(), 0.5);
    } else {
      EXPECT_LT(row.at("max").get<double>(), 0.02) << row.dump();
    }
  }
  // Without the stall: the same device part; host_us by at most the residuals' spread (the median
  // moves by one rank: 0.07 µs on the shipped model's shapes). Fitted on the call, the stall drags
  // the per-call overheads (host_us, launch_us) and the rest along.
  const HardwareModel steady_fit = parse_hardware_model(calibrate(steady, "kernel"), "steady");
  EXPECT_EQ(steady_fit.mem_efficiency, fitted.mem_efficiency);
  EXPECT_EQ(steady_fit.tensor_efficiency, fitted.tensor_efficiency);
  EXPECT_EQ(steady_fit.launch_us, fitted.launch_us);
  EXPECT_EQ(steady_fit.reduction_us, fitted.reduction_us);
  EXPECT_EQ(steady_fit.item_us, fitted.item_us);
  EXPECT_EQ(steady_fit.partition_us, fitted.partition_us);
  EXPECT_EQ(steady_fit.team_gb_per_s, fitted.team_gb_per_s);
  EXPECT_EQ(steady_fit.parts_overlap, fitted.parts_overlap);
  EXPECT_NEAR(steady_fit.host_us, fitted.host_us, 0.1);
  const HardwareModel on_call = parse_hardware_model(calibrate(stalled, "call"), "call");
  EXPECT_GT(std::abs(on_call.host_us - truth.host_us) + std::abs(on_call.launch_us - truth.launch_us), 10.0);
}

TEST(HardwareModel, SimulatePredictLabelsItsOutput) {
  const std::string model = write_file("model", {{"name", "tiny"},
                                                 {"num_layers", 2},
                                                 {"num_q_heads", 8},
                                                 {"num_kv_heads", 2},
                                                 {"head_size", 64},
                                                 {"dtype", "fp16"},
                                                 {"block_size", 16},
                                                 {"num_kv_blocks", 256},
                                                 {"max_num_batched_tokens", 256}});
  const std::string json = test::temp_path("kattn_hw_predict.json");
  const test::CliResult predicted =
      test::run_cli("simulate --model " + model +
                    " --poisson 100,6 --prompt-len uniform:16:200 --output-len uniform:4:20 --predict " +
                    data_file("mi300") + " --output " + json);
  const std::string& out = predicted.output;
  ASSERT_EQ(predicted.exit_code, cli::kSuccess) << out;
  EXPECT_NE(out.find("PREDICTION"), std::string::npos) << out;
  EXPECT_NE(out.find("mi300"), std::string::npos) << out;
  const nlohmann::json report = read_json_file(json, "the simulation report");
  EXPECT_TRUE(report.at("predicted").get<bool>());
  EXPECT_EQ(report.at("predicted_arch"), "mi300");
  EXPECT_NE(report.at("timer").get<std::string>().find("PREDICTED"), std::string::npos);
  EXPECT_GT(report.at("totals").at("attention_us").get<double>(), 0);
  const test::CliResult missing = test::run_cli("simulate --model " + model + " --poisson 100,2 --predict " +
                                                test::temp_path("kattn_hw_nope.json"));
  EXPECT_EQ(missing.exit_code, cli::kBadInput);
  EXPECT_NE(missing.output.find("kattn_hw_nope.json"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace kattn::model
