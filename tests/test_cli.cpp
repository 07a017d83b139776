// The kattn command line: exit codes, tables and the promise of no output file on error.
#include "kattn/io/hdf5_file.hpp"
#include "kattn/io/reference_file.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn/tuning/tuning_table.hpp"
#include "run_cli.hpp"
#include "temp_files.hpp"
#include "test_problems.hpp"
#include "tools/commands.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace kattn {
namespace {

using test::CliResult;
using test::run_cli;

std::string temp_path(const std::string& name) { return test::temp_path("kattn_cli_" + name); }

std::string write_single_case(const std::string& name, HostProblem problem, bool with_reference) {
  ProblemCase c;
  c.name = name;
  c.problem = std::move(problem);
  if (with_reference) c.expected = oracle_attention(c.problem);
  const std::string path = temp_path(name + ".h5");
  write_problem_file(path, {c});
  return path;
}

TEST(Cli, NoCommandIsUsageError) { EXPECT_EQ(run_cli("").exit_code, cli::kBadInput); }

TEST(Cli, UnknownFlagIsUsageError) { EXPECT_EQ(run_cli("validate --frobnicate x").exit_code, cli::kBadInput); }

TEST(Cli, HelpSucceeds) { EXPECT_EQ(run_cli("--help").exit_code, cli::kSuccess); }

// Runs the command with OMP_PROC_BIND and OMP_PLACES unset, as a user who set neither would.
CliResult run_cli_unbound(const std::string& arguments) {
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* name : {"OMP_PROC_BIND", "OMP_PLACES"})
    if (const char* value = std::getenv(name)) saved.emplace_back(name, value);
  unsetenv("OMP_PROC_BIND");
  unsetenv("OMP_PLACES");
  CliResult r = run_cli(arguments);
  for (const auto& [name, value] : saved) setenv(name.c_str(), value.c_str(), 1);
  return r;
}

// kattn's help first and alone: not Kokkos' option list, nor its warning of an unbound OpenMP.
TEST(Cli, HelpIsKattnsAlone) {
  for (const char* arguments : {"--help", "bench --help", "tune sweep --help"}) {
    const CliResult r = run_cli_unbound(arguments);
    EXPECT_EQ(r.exit_code, cli::kSuccess) << arguments << "\n" << r.output;
    const std::string first_lines = r.output.substr(0, r.output.find('\n', r.output.find('\n') + 1));
    EXPECT_NE(first_lines.find("Usage: "), std::string::npos) << arguments << "\n" << r.output;
    EXPECT_EQ(r.output.find("Kokkos command line"), std::string::npos) << arguments << "\n" << r.output;
    EXPECT_EQ(r.output.find("OMP_PROC_BIND"), std::string::npos) << arguments << "\n" << r.output;
  }
  EXPECT_EQ(run_cli("--help").output.rfind("kattn: paged attention", 0), 0u);
}

TEST(Cli, VersionPrintsTheBuild) {
  const CliResult r = run_cli_unbound("--version");
  EXPECT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_EQ(r.output.rfind("kattn 0.", 0), 0u) << r.output;
  for (const char* fact : {"(git ", "Kokkos ", "devices ", "arch ", "compiler ", "build type "})
    EXPECT_NE(r.output.find(fact), std::string::npos) << fact << "\n" << r.output;
  EXPECT_EQ(r.output.find("OMP_PROC_BIND"), std::string::npos) << r.output;  // the binding kattn sets
}

// Kokkos' options pass to Kokkos under their --kokkos- names; unprefixed, they are not kattn's.
TEST(Cli, KokkosOptionsKeepTheirPrefix) {
  const CliResult r = run_cli("--kokkos-disable-warnings --version");
  EXPECT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("Kokkos "), std::string::npos) << r.output;
  EXPECT_EQ(run_cli("validate --threads=1 x.h5").exit_code, cli::kBadInput);
}

TEST(Cli, ValidatesTheShippedReferences) {
  const CliResult r = run_cli(std::string("validate ") + KATTN_DATA_DIR + "/references.h5");
  EXPECT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("max abs err"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
}

TEST(Cli, ValidateReportsAWrongReference) {
  ProblemCase c;
  c.name = "wrong";
  c.problem = test::small_mixed_problem();
  c.expected = oracle_attention(c.problem);
  c.expected[5] += 0.5;
  const std::string path = temp_path("wrong.h5");
  write_problem_file(path, {c});
  const CliResult r = run_cli("validate " + path);
  EXPECT_EQ(r.exit_code, cli::kValidationFailed) << r.output;
  EXPECT_NE(r.output.find("FAIL (1 elements)"), std::string::npos) << r.output;
}

TEST(Cli, ValidateMissingFile) {
  const CliResult r = run_cli("validate " + temp_path("absent.h5"));
  EXPECT_EQ(r.exit_code, cli::kBadInput);
  EXPECT_NE(r.output.find("no such file"), std::string::npos) << r.output;
}

TEST(Cli, ValidateUnknownVariant) {
  const CliResult r = run_cli(std::string("validate ") + KATTN_DATA_DIR + "/references.h5 --variant fastest");
  EXPECT_EQ(r.exit_code, cli::kBadInput);
  EXPECT_NE(r.output.find("fastest"), std::string::npos) << r.output;
}

TEST(Cli, RunWritesTheOutput) {
  const HostProblem problem = test::small_mixed_problem(DType::fp16);
  const std::string input = write_single_case("run_ok", problem, false);
  const std::string output = temp_path("run_ok_out.h5");
  std::filesystem::remove(output);
  const CliResult r = run_cli("run --input " + input + " --output " + output);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  ASSERT_TRUE(std::filesystem::exists(output));
  const h5::Dataset<float> out = h5::File::open(output).read<float>("out");
  EXPECT_EQ(out.dims, (h5::Dims{std::uint64_t(problem.geometry.num_tokens), std::uint64_t(problem.geometry.num_q_heads),
                                std::uint64_t(problem.geometry.head_size)}));
  EXPECT_TRUE(compare_to_reference(out.values, oracle_attention(problem), DType::fp16).passed());
}

TEST(Cli, RunMalformedInputLeavesNoOutput) {
  const std::string input = temp_path("garbage.h5");
  std::ofstream(input) << "garbage";
  const std::string output = temp_path("garbage_out.h5");
  std::filesystem::remove(output);
  const CliResult r = run_cli("run --input " + input + " --output " + output);
  EXPECT_EQ(r.exit_code, cli::kBadInput);
  EXPECT_NE(r.output.find("not an HDF5 file"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(output));
}

// The baseline's tile is a whole KV-cache block; one of 20000 keys (80 KB of scores) cannot fit in team scratch
// (32 KiB on OpenMP, about 40 KiB on CUDA), which is a request kattn cannot serve.
TEST(Cli, RunUnsupportedPlanLeavesNoOutput) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.block_size = 20000;
  spec.sequences = {{20, 3}};
  const std::string input = write_single_case("huge_block", generate_batch(spec), false);
  const std::string output = temp_path("huge_block_out.h5");
  std::filesystem::remove(output);
  const CliResult r = run_cli("run --variant baseline --input " + input + " --output " + output);
  EXPECT_EQ(r.exit_code, cli::kNotSupported) << r.output;
  EXPECT_NE(r.output.find("not supported yet: baseline variant with block_size 20000"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(Cli, RunNeedsCaseWhenSeveral) {
  const CliResult r =
      run_cli(std::string("run --input ") + KATTN_DATA_DIR + "/references.h5 --output " + temp_path("several.h5"));
  EXPECT_EQ(r.exit_code, cli::kBadInput);
  EXPECT_NE(r.output.find("--case"), std::string::npos) << r.output;
}

// A command reads and checks only the case it was asked for: another, invalid case of the file
// (a sequence longer than its blocks) stops only the commands that read it.
TEST(Cli, RunAndValidateReadOnlyTheSelectedCase) {
  ProblemCase good, bad;
  good.name = "good";
  good.problem = test::small_mixed_problem(DType::fp16);
  good.expected = oracle_attention(good.problem);
  bad.name = "bad";
  bad.problem = good.problem;
  bad.expected = good.expected;
  bad.problem.seq_lens[0] = bad.problem.geometry.max_blocks_per_seq * bad.problem.geometry.block_size + 1;
  const std::string input = temp_path("one_bad_case.h5");
  write_problem_file(input, {good, bad});
  const std::string output = temp_path("one_bad_case_out.h5");
  std::filesystem::remove(output);
  CliResult r = run_cli("run --input " + input + " --case good --output " + output);
  EXPECT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_TRUE(std::filesystem::exists(output));
  r = run_cli("validate " + input + " --case good --variant planned");
  EXPECT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("1 passed, 0 failed"), std::string::npos) << r.output;
  r = run_cli("validate " + input + " --variant planned");  // every case: stops on the bad one before any run
  EXPECT_EQ(r.exit_code, cli::kBadInput) << r.output;
  EXPECT_NE(r.output.find("bad"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("max abs err"), std::string::npos) << r.output;
  r = run_cli("run --input " + input + " --case bad --output " + output);
  EXPECT_EQ(r.exit_code, cli::kBadInput) << r.output;
  EXPECT_NE(r.output.find("/cases/bad"), std::string::npos) << r.output;
  r = run_cli("run --input " + input + " --case absent --output " + output);
  EXPECT_EQ(r.exit_code, cli::kBadInput) << r.output;
  EXPECT_NE(r.output.find("no case named 'absent'"), std::string::npos) << r.output;
}

TEST(Cli, RefgenWritesAValidatableFile) {
  const std::string scenario = temp_path("scenario.json");
  std::ofstream(scenario) << R"({"cases": [{"name": "s", "model": "tiny", "dtypes": ["fp32", "bf16"],
                                             "batch_size": 3, "min_seq_len": 4, "max_seq_len": 30,
                                             "decode_share": 0.5, "chunked_prefill": true, "block_size": 5}]})";
  const std::string output = temp_path("refgen.h5");
  ASSERT_EQ(run_cli("refgen --scenario " + scenario + " --output " + output).exit_code, cli::kSuccess);
  const CliResult r = run_cli("validate " + output);
  EXPECT_EQ(r.exit_code, cli::kSuccess) << r.output;
  const std::string summary = std::to_string(2 * all_variants().size()) + " passed, 0 failed";  // 2 cases
  EXPECT_NE(r.output.find(summary), std::string::npos) << r.output;
}

TEST(Cli, RefgenBadScenarioLeavesNoOutput) {
  const std::string scenario = temp_path("bad_scenario.json");
  std::ofstream(scenario) << "{ not json";
  const std::string output = temp_path("refgen_bad.h5");
  std::filesystem::remove(output);
  const CliResult r = run_cli("refgen --scenario " + scenario + " --output " + output);
  EXPECT_EQ(r.exit_code, cli::kBadInput);
  EXPECT_NE(r.output.find("not valid JSON"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(output));
}

std::string write_bench_scenario(const std::string& name) {
  const std::string path = temp_path(name + ".json");
  std::ofstream(path) << R"({"cases": [{"name": "m", "model": "tiny", "batch_size": 3, "min_seq_len": 4,
                                         "max_seq_len": 40, "decode_share": 0.34, "chunked_prefill": true}]})";
  return path;
}

// The JSON other tools read (docs/performance.md): hardware limits in the header, each case's
// shapes, and the shares of those limits per result.
TEST(Cli, BenchJsonHasLimitsAndShapes) {
  const std::string scenario = write_bench_scenario("bench_scenario");
  const std::string output = temp_path("bench.json");
  const CliResult r = run_cli("bench --scenario " + scenario + " --warmup 0 --runs 2 --commit abc123 --hardware " +
                              KATTN_DATA_DIR + "/hardware/cpu.json --output " + output);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("copy bandwidth"), std::string::npos) << r.output;
  std::ifstream in(output);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("schema_version"), 3);
  EXPECT_EQ(doc.at("commit"), "abc123");
  EXPECT_EQ(doc.at("command").get<std::string>().rfind("kattn bench --scenario " + scenario, 0), 0u);
  EXPECT_NE(doc.at("command").get<std::string>().find(" --output " + output), std::string::npos);
  for (const char* fact : {"kattn_version", "git_describe", "kokkos_version", "kokkos_devices", "compiler"})
    EXPECT_FALSE(doc.at("build").at(fact).get<std::string>().empty()) << fact;
  EXPECT_FALSE(doc.at("device").get<std::string>().empty());
  EXPECT_GT(doc.at("hardware").at("copy_gb_per_s").get<double>(), 0.0);
  EXPECT_TRUE(doc.at("hardware").at("peak_tflop_per_s").at("fp16").is_null());  // a host's peak is unknown
  const nlohmann::json& c = doc.at("cases").at(0);
  const auto query_lens = c.at("query_lens").get<std::vector<int>>();
  const auto seq_lens = c.at("seq_lens").get<std::vector<int>>();
  ASSERT_EQ(query_lens.size(), 3u);
  ASSERT_EQ(seq_lens.size(), 3u);
  EXPECT_EQ(query_lens[0], 1);  // 0.34 of 3 rounds to one decode, placed first
  for (std::size_t s = 0; s < 3; ++s) EXPECT_LE(query_lens[s], seq_lens[s]);
  EXPECT_EQ(c.at("spec").at("batch_size"), 3);
  const double stream_us = c.at("stream_kernel_us").get<double>();  // the floor: a streaming read of the bytes
  EXPECT_GT(stream_us, 0.0);
  EXPECT_NEAR(c.at("stream_gb_per_s").get<double>(), c.at("bytes").get<double>() / (stream_us * 1e3), 1e-9);
  EXPECT_GT(c.at("stream_run_host_us").get<double>(), 0.0);  // the same launch timed as run()
  EXPECT_GE(c.at("stream_run_us").get<double>(), c.at("stream_run_host_us").get<double>());
  const nlohmann::json& result = doc.at("results").at(0);
  EXPECT_EQ(result.at("num_tokens"), query_lens[0] + query_lens[1] + query_lens[2]);
  EXPECT_NEAR(result.at("bandwidth_share").get<double>(),
              result.at("kernel_gb_per_s").get<double>() / doc.at("hardware").at("copy_gb_per_s").get<double>(), 1e-12);
  EXPECT_TRUE(result.at("peak_share").is_null());
  EXPECT_GT(result.at("graph_run_mean_us").get<double>(), 0.0);  // the run captured as a graph, replayed
  EXPECT_GE(result.at("graph_run_mean_us").get<double>(), result.at("graph_run_host_mean_us").get<double>());
  EXPECT_NE(result.at("plan_source").get<std::string>(), "");  // the plan that ran, even with no warm-up
}

TEST(Cli, BenchMissingHardwareFile) {
  const CliResult r = run_cli("bench --scenario " + write_bench_scenario("bench_no_hardware") +
                              " --runs 1 --hardware " + temp_path("absent_hardware.json"));
  EXPECT_EQ(r.exit_code, cli::kBadInput);
  EXPECT_NE(r.output.find("cannot open the hardware file"), std::string::npos) << r.output;
}

// A malformed scenario fails before the device is measured and any header printed, with an error
// that names the file and the field.
TEST(Cli, BenchRejectsAMalformedScenarioBeforeMeasuring) {
  const struct {
    const char* name;
    const char* case_json;
    const char* message;
  } bad[] = {
      {"negative", R"({"name": "m", "model": "tiny", "batch_size": -3, "max_seq_len": 40})",
       "cases[1].batch_size: must be positive (got -3)"},
      {"missing", R"({"name": "m", "model": "tiny", "batch_size": 3})", "cases[1]: missing field 'max_seq_len'"},
      {"wrong_type", R"({"name": "m", "model": "tiny", "batch_size": "three", "max_seq_len": 40})",
       "cases[1].batch_size: must be an integer (got \"three\")"},
      {"bad_dtype", R"({"name": "m", "model": "tiny", "max_seq_len": 40, "dtypes": ["fp16", "fp12"]})",
       "cases[1].dtypes[1]: unknown dtype 'fp12'"},
      {"unknown_field", R"({"name": "m", "model": "tiny", "max_seq_len": 40, "batch_sise": 3})",
       "cases[1]: unknown field 'batch_sise'"},
      {"bad_model", R"({"name": "m", "model": "huge", "max_seq_len": 40})", "cases[1].model: unknown model 'huge'"},
  };
  for (const auto& b : bad) {
    const std::string scenario = temp_path(std::string("bench_malformed_") + b.name + ".json");
    // The first case is good: the bad second one must still stop the command before any work.
    std::ofstream(scenario) << R"({"cases": [{"name": "ok", "model": "tiny", "max_seq_len": 8}, )" << b.case_json
                            << "]}";
    const CliResult r = run_cli("bench --scenario " + scenario + " --warmup 0 --runs 1");
    EXPECT_EQ(r.exit_code, cli::kBadInput) << b.name << ": " << r.output;
    EXPECT_NE(r.output.find(scenario + ": " + b.message), std::string::npos) << b.name << ": " << r.output;
    EXPECT_EQ(r.output.find("json.exception"), std::string::npos) << b.name << ": " << r.output;
    EXPECT_EQ(r.output.find("copy bandwidth"), std::string::npos) << b.name << ": " << r.output;
    EXPECT_EQ(r.output.find("kattn bench"), std::string::npos) << b.name << ": " << r.output;
  }
  const CliResult r = run_cli("bench --scenario " + write_bench_scenario("bench_no_case") + " --case absent");
  EXPECT_EQ(r.exit_code, cli::kBadInput) << r.output;
  EXPECT_NE(r.output.find("no case named 'absent'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("copy bandwidth"), std::string::npos) << r.output;
}

std::string write_tiny_model(const std::string& name, int num_kv_blocks) {
  const std::string path = temp_path(name + ".json");
  std::ofstream(path) << nlohmann::json{{"name", "tiny"},
                                        {"num_layers", 3},
                                        {"num_q_heads", 4},
                                        {"num_kv_heads", 2},
                                        {"head_size", 64},
                                        {"dtype", "fp32"},
                                        {"block_size", 4},
                                        {"num_kv_blocks", num_kv_blocks},
                                        {"max_num_batched_tokens", 16},
                                        {"other_ms_per_step", 0.25},
                                        {"other_us_per_token", 1.0}};
  return path;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(Cli, SimulateReplaysItsOwnTraceToTheSameRequests) {
  const std::string model = write_tiny_model("simulate_model", 16);
  const std::string trace = temp_path("simulate_trace.json");
  const std::string first = temp_path("simulate_first.json");
  const std::string second = temp_path("simulate_second.json");
  std::remove(first.c_str());
  CliResult r = run_cli("simulate --model " + model +
                        " --poisson 1000,5 --prompt-len uniform:2:20 --output-len "
                        "lognormal:6:0.5:1:12 --seed 9 --warmup 0 --write-trace " +
                        trace + " --json " + first);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("--json is a deprecated alias of --output"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("one layer timed (x 3 layers)"), std::string::npos) << r.output;
  r = run_cli("simulate --model " + model + " --trace " + trace + " --warmup 0 --output " + second);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  for (const std::string& path : {first, second}) {
    const nlohmann::json doc = read_json(path);
    EXPECT_EQ(doc.at("schema"), "kattn-simulation");
    EXPECT_EQ(doc.at("attention_layers"), 3);
    const nlohmann::json& requests = doc.at("requests");
    ASSERT_EQ(requests.size(), 5u);
    long long tokens = 0;
    for (const nlohmann::json& q : requests) {
      EXPECT_EQ(q.at("tokens").size(), q.at("output_len").get<std::size_t>());  // every request finished
      tokens += q.at("output_len").get<long long>();
    }
    EXPECT_EQ(doc.at("totals").at("tokens_generated"), tokens);
    EXPECT_EQ(doc.at("totals").at("num_steps"), doc.at("steps").size());
    double attention = 0.0;
    for (const nlohmann::json& s : doc.at("steps")) {
      attention += s.at("attention_us").get<double>();
      EXPECT_DOUBLE_EQ(s.at("attention_us").get<double>(), 3 * s.at("attention_us_per_layer").get<double>());
      EXPECT_LE(s.at("kv_blocks_used").get<int>(), 16);
    }
    EXPECT_NEAR(doc.at("totals").at("attention_us").get<double>(), attention, 1e-6 * attention);
  }
  const nlohmann::json a = read_json(first), b = read_json(second);
  for (std::size_t i = 0; i < 5; ++i)
    for (const char* field : {"id", "arrival_s", "prompt_len", "output_len"})
      EXPECT_EQ(a.at("requests").at(i).at(field), b.at("requests").at(i).at(field));
}

TEST(Cli, SimulateLatencyExperiment) {
  const std::string json = temp_path("simulate_latency.json");
  const CliResult r =
      run_cli("simulate --model " + write_tiny_model("simulate_latency_model", 16) +
              " --latency-experiment --prompt-len 20 --output-len 30 --warmup 0 --rows 4 --output " + json);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("latency experiment: prompt 20, output 30"), std::string::npos) << r.output;
  const nlohmann::json doc = read_json(json);
  ASSERT_EQ(doc.at("requests").size(), 1u);
  EXPECT_EQ(doc.at("requests").at(0).at("tokens").size(), 30u);
  EXPECT_EQ(doc.at("steps").size(), 31u);  // chunks of 16 + 4 tokens under the budget of 16, then 29 decodes
}

// Every step replayed, on a forced variant (any variant replays); 4 graphs: the chunks of 16 and
// 4 tokens (seq_len 16 and 20: bounds of 16 and 32 keys), then decodes of up to 32 and 64 keys.
TEST(Cli, SimulateGraphReplayTakesEveryStep) {
  const std::string json = temp_path("simulate_graph.json");
  const CliResult r = run_cli("simulate --model " + write_tiny_model("simulate_graph_model", 16) +
                              " --latency-experiment --prompt-len 20 --output-len 30 --warmup 0 --variant qblock "
                              "--graph-replay --output " +
                              json);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("graph replay: 31 of 31 steps"), std::string::npos) << r.output;
  const nlohmann::json doc = read_json(json);
  EXPECT_NE(doc.at("timer").get<std::string>().find("(4 captured)"), std::string::npos) << doc.at("timer");
  EXPECT_EQ(doc.at("graph_replay").at("steps"), 31);
  for (const nlohmann::json& step : doc.at("steps")) {
    EXPECT_TRUE(step.at("replayed").get<bool>());
    EXPECT_GT(step.at("eager_us_per_layer").get<double>(), 0.0);
  }
}

TEST(Cli, SimulateRejectsBadUsage) {
  const std::string model = write_tiny_model("simulate_bad_model", 16);
  EXPECT_EQ(run_cli("simulate --model " + model).exit_code, cli::kBadInput);  // no source
  EXPECT_EQ(run_cli("simulate --model " + model + " --latency-experiment --poisson 1,2").exit_code, cli::kBadInput);
  EXPECT_EQ(run_cli("simulate --model " + model + " --poisson fast").exit_code, cli::kBadInput);
  EXPECT_EQ(run_cli("simulate --model " + model + " --poisson 1,2 --prompt-len normal:3").exit_code, cli::kBadInput);
  const CliResult too_long =
      run_cli("simulate --model " + model + " --latency-experiment --prompt-len 60 --output-len 10");
  EXPECT_EQ(too_long.exit_code, cli::kBadInput);  // 69 tokens need 18 blocks of 4: more than the 16
  EXPECT_NE(too_long.output.find("more KV blocks"), std::string::npos) << too_long.output;
  EXPECT_EQ(run_cli("simulate --model " + temp_path("absent_model.json") + " --latency-experiment").exit_code,
            cli::kBadInput);
}

// The latency distributions and throughputs `vllm bench serve` reports, printed in its shape and
// in the JSON report under its keys.
TEST(Cli, SimulateReportsServingMetricsAsVllm) {
  const std::string json = temp_path("simulate_serving.json");
  const CliResult r = run_cli("simulate --model " + write_tiny_model("simulate_serving_model", 64) +
                              " --predict cpu --poisson 500,12 --prompt-len uniform:4:30 --output-len uniform:1:12"
                              " --seed 3 --rows 2 --output " +
                              json);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  std::size_t at = r.output.find("Serving Benchmark Result");
  ASSERT_NE(at, std::string::npos) << r.output;
  for (const char* line : {"Successful requests:",
                           "Benchmark duration (s):",
                           "Total input tokens:",
                           "Total generated tokens:",
                           "Request throughput (req/s):",
                           "Output token throughput (tok/s):",
                           "Total Token throughput (tok/s):",
                           "Time to First Token",
                           "Mean TTFT (ms):",
                           "Median TTFT (ms):",
                           "P90 TTFT (ms):",
                           "P99 TTFT (ms):",
                           "Mean TPOT (ms):",
                           "P99 TPOT (ms):",
                           "Inter-token Latency",
                           "Mean ITL (ms):",
                           "Median ITL (ms):",
                           "P99 ITL (ms):",
                           "End-to-end Latency",
                           "Mean E2EL (ms):",
                           "P99 E2EL (ms):"}) {
    const std::size_t next = r.output.find(line, at);
    ASSERT_NE(next, std::string::npos) << line << " (in order)\n" << r.output;
    at = next;
  }
  const nlohmann::json doc = read_json(json);
  const nlohmann::json& m = doc.at("serving");
  EXPECT_EQ(m.at("completed"), 12);
  const double duration = m.at("duration").get<double>();
  EXPECT_DOUBLE_EQ(duration, doc.at("totals").at("end_s").get<double>());
  EXPECT_EQ(m.at("total_output_tokens"), doc.at("totals").at("tokens_generated"));
  EXPECT_NEAR(m.at("request_throughput").get<double>(), 12 / duration, 1e-9 * 12 / duration);
  EXPECT_NEAR(m.at("output_throughput").get<double>(), m.at("total_output_tokens").get<double>() / duration, 1e-6);
  EXPECT_GT(m.at("total_token_throughput").get<double>(), m.at("output_throughput").get<double>());
  for (const char* metric : {"ttft", "tpot", "itl", "e2el"}) {
    const std::string n = metric;
    const double mean = m.at("mean_" + n + "_ms"), median = m.at("median_" + n + "_ms");
    const double p90 = m.at("p90_" + n + "_ms"), p99 = m.at("p99_" + n + "_ms");
    EXPECT_GT(mean, 0.0) << n;
    EXPECT_LE(median, p90) << n;
    EXPECT_LE(p90, p99) << n;
    EXPECT_LE(mean, p99) << n;
  }
  EXPECT_LE(m.at("p99_ttft_ms").get<double>(), m.at("p99_e2el_ms").get<double>());
  double ttft_sum = 0.0;  // the mean TTFT is that of the requests
  for (const nlohmann::json& q : doc.at("requests")) ttft_sum += q.at("ttft_s").get<double>();
  EXPECT_NEAR(m.at("mean_ttft_ms").get<double>(), 1e3 * ttft_sum / 12, 1e-9);
}

// simulate's JSON inputs name the field too.
TEST(Cli, SimulateNamesTheBadFieldOfItsInputs) {
  const std::string model = temp_path("simulate_bad_field_model.json");
  std::ofstream(model) << R"({"name": "tiny", "num_layers": 2, "num_q_heads": 4, "num_kv_heads": 2, "head_size": "64",
                               "num_kv_blocks": 16, "max_num_batched_tokens": 16})";
  CliResult r = run_cli("simulate --model " + model + " --latency-experiment");
  EXPECT_EQ(r.exit_code, cli::kBadInput) << r.output;
  EXPECT_NE(r.output.find("head_size: must be an integer (got \"64\")"), std::string::npos) << r.output;
  const std::string trace = temp_path("simulate_bad_field_trace.json");
  std::ofstream(trace) << R"({"requests": [{"arrival_s": 0, "prompt_len": 4, "output_len": 2},
                                           {"arrival_s": 0.1, "prompt_len": 4}]})";
  r = run_cli("simulate --model " + write_tiny_model("simulate_bad_field_tiny", 16) + " --trace " + trace);
  EXPECT_EQ(r.exit_code, cli::kBadInput) << r.output;
  EXPECT_NE(r.output.find("requests[1]: missing field 'output_len'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("json.exception"), std::string::npos) << r.output;
}

// The data the binary needs (hardware peaks and models, model configs, search spaces) is compiled
// in: it is found from a working directory that is not the repository.
TEST(Cli, FindsItsDataOutsideTheRepository) {
  const std::string elsewhere = temp_path("elsewhere");
  std::filesystem::create_directories(elsewhere);
  const std::string json = temp_path("elsewhere_simulate.json");
  CliResult r = test::run_cli_in(elsewhere,
                                 "simulate --model tiny --predict h100 --poisson 100,4 --prompt-len "
                                 "uniform:4:12 --output-len uniform:2:6 --output " +
                                     json);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  const nlohmann::json doc = read_json(json);
  EXPECT_EQ(doc.at("model").at("name"), "tiny");
  EXPECT_EQ(doc.at("predicted_arch"), "h100");
  r = test::run_cli_in(elsewhere, "simulate --model tiny --predict nowhere --latency-experiment");
  EXPECT_EQ(r.exit_code, cli::kBadInput) << r.output;
  EXPECT_NE(r.output.find("built in: a100, cpu, h100"), std::string::npos) << r.output;
  r = test::run_cli_in(elsewhere,
                       "bench --scenario " + write_bench_scenario("elsewhere_bench") + " --warmup 0 --runs 1");
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("data/hardware/" + std::string(build_arch()) + ".json (built in)"), std::string::npos)
      << r.output;
}

TEST(Cli, BenchUntunedPlansWithoutATable) {
  const std::string output = temp_path("bench_untuned.json");
  const CliResult r =
      run_cli("bench --scenario " + write_bench_scenario("bench_untuned") +
              " --warmup 0 --runs 1 --untuned --hardware " + KATTN_DATA_DIR + "/hardware/cpu.json --output " + output);
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  std::ifstream in(output);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_TRUE(doc.at("untuned").get<bool>());
  EXPECT_EQ(doc.at("results").at(0).at("plan_source"), "defaults");
  EXPECT_EQ(run_cli("bench --scenario x.json --untuned --tuning-table t.json").exit_code, cli::kBadInput);
}

// A tiny sweep end to end over two scenario files: a mixed case gives the whole batch (apart or
// fused) and its decodes and its rest as samples, and the fitted table loads, with plans from the space.
TEST(Cli, TuneSweepsAndFitsATable) {
  const std::string space = temp_path("tune_space.json");
  std::ofstream(space) << R"({"defaults": {"variant": "qblock", "tile_size": 16, "block_m": 16, "num_segments": 1,
                                           "team_size": 1, "vector_length": 1, "grid_teams": 0},
    "groups": [{"when": [{"feature": "max_query_len", "at_most": 1}], "variants": ["split_kv"], "tile_size": [16, 64]},
               {"when": [{"feature": "max_query_len", "at_least": 2}], "variants": ["qblock"], "block_m": [8, 16]}]})";
  const std::string scenario = temp_path("tune_scenario.json"), more = temp_path("tune_scenario_more.json");
  std::ofstream(scenario) << R"({"cases": [
    {"name": "m", "model": "tiny", "batch_size": 3, "min_seq_len": 4, "max_seq_len": 40, "decode_share": 0.34},
    {"name": "d", "model": "tiny", "batch_size": 2, "min_seq_len": 20, "max_seq_len": 40, "decode_share": 1.0}]})";
  std::ofstream(more) << R"({"cases": [
    {"name": "p", "model": "tiny", "batch_size": 2, "min_seq_len": 4, "max_seq_len": 20}]})";
  const std::string out = temp_path("tune_out");
  const CliResult r = run_cli("tune --scenario " + scenario + "," + more + " --space " + space + " --output " + out +
                              " --warmup 0 --runs 1 --prune 1e9 --arch test");  // no plan pruned: statuses fixed
  ASSERT_EQ(r.exit_code, cli::kSuccess) << r.output;
  EXPECT_NE(r.output.find("[1/5] m fp16: 3 plans"), std::string::npos) << r.output;  // apart, 2 fused
  EXPECT_NE(r.output.find("[2/5] m[decodes] fp16: 2 plans"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[3/5] m[rest] fp16: 2 plans"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[5/5] p fp16: 2 plans"), std::string::npos) << r.output;  // the second file's case
  EXPECT_NE(r.output.find("untuned defaults"), std::string::npos) << r.output;

  const nlohmann::json raw = read_json(out + "/raw.json");
  EXPECT_TRUE(raw.at("complete").get<bool>());
  ASSERT_EQ(raw.at("samples").size(), 5u);
  const nlohmann::json& whole = raw["samples"][0];
  EXPECT_EQ(whole["part"], "whole");
  EXPECT_EQ(whole["results"][1]["overrides"], nlohmann::json({{"split_decodes", true}}));
  EXPECT_EQ(whole["results"][1]["plan"]["decodes_apart"], 1);
  EXPECT_EQ(whole["results"][3]["overrides"]["split_decodes"], false);
  EXPECT_EQ(whole["results"][3]["plan"]["decodes_apart"], 0);
  EXPECT_EQ(raw["samples"][2]["part"], "rest");
  EXPECT_EQ(raw["samples"][2]["features"]["decode_share"], 0.0);
  EXPECT_EQ(raw["samples"][1]["results"][0]["status"], "planned");
  EXPECT_EQ(raw["samples"][1]["results"][1]["status"], "untuned");

  const std::string table_path = out + "/test.json";
  ASSERT_NO_THROW(TuningTable::load(table_path));
  const nlohmann::json table = read_json(table_path);
  EXPECT_EQ(table.at("measured").at("samples"), 5);
  std::vector<nlohmann::json> nodes{table.at("tree")};
  int leaves = 0;
  while (!nodes.empty()) {
    const nlohmann::json node = nodes.back();
    nodes.pop_back();
    if (node.contains("if")) {
      nodes.push_back(node["then"]);
      nodes.push_back(node["else"]);
      continue;
    }
    ++leaves;
    nlohmann::json plan = table.at("defaults");
    plan.update(node.at("plan"));
    plan.erase("split_decodes");  // apart or fused: either, for a mixed batch
    const bool decode_plan = plan == nlohmann::json({{"variant", "split_kv"},
                                                     {"tile_size", 16},
                                                     {"block_m", 16},
                                                     {"num_segments", 1},
                                                     {"team_size", 1},
                                                     {"vector_length", 1},
                                                     {"grid_teams", 0}}) ||
                             plan["variant"] == "split_kv" && plan["tile_size"] == 64;
    const bool prefill_plan =
        plan["variant"] == "qblock" && plan["tile_size"] == 16 && (plan["block_m"] == 8 || plan["block_m"] == 16);
    EXPECT_TRUE(decode_plan || prefill_plan) << plan;
  }
  EXPECT_GE(leaves, 1);
}

TEST(Cli, TuneRejectsABadSpace) {
  const std::string space = temp_path("bad_space.json");
  std::ofstream(space) << R"({"defaults": {"variant": "qblock"}, "groups": []})";
  const CliResult r = run_cli("tune sweep --scenario " + write_bench_scenario("tune_bad_space") + " --space " + space +
                              " --out " + temp_path("bad_raw.json"));  // the old name: parsed, with a note
  EXPECT_EQ(r.exit_code, cli::kBadInput);
  EXPECT_NE(r.output.find("--out is a deprecated alias of --output"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bad_space.json: defaults"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kattn
