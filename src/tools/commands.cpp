#include "tools/commands.hpp"

#include "tools/bench.hpp"
#include "tools/build_info.hpp"
#include "tools/simulate.hpp"
#include "tools/tune_cli.hpp"

#include "kattn/core/error.hpp"
#include "kattn/core/execution_space.hpp"
#include "kattn/harness/run_problem.hpp"
#include "kattn/io/reference_file.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/workload/generator.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <functional>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace kattn::cli {
namespace {

// "all": every variant; "planned": the launch plan's choice; else one variant by name.
std::vector<std::optional<Variant>> selected_variants(const std::string& name) {
  if (name == "planned") return {std::nullopt};
  if (name != "all") return {parse_variant(name)};
  std::vector<std::optional<Variant>> all;
  for (Variant v : all_variants()) all.emplace_back(v);
  return all;
}

// "bf16", or "bf16 kv8 out8" when the cache or the output is fp8.
std::string storage_label(const HostProblem& p) {
  return std::string(to_string(p.dtype)) + (p.fp8_kv_cache ? " kv8" : "") + (p.fp8_out ? " out8" : "");
}

int validate_command(const std::string& path, const std::string& variant_name, const std::string& only_case) {
  // Only the selected case is read and checked, all before any run.
  const std::vector<ProblemCase> cases =
      read_problem_file(path, only_case.empty() ? std::vector<std::string>{} : std::vector<std::string>{only_case});
  const std::vector<std::optional<Variant>> variants = selected_variants(variant_name);
  for (const ProblemCase& c : cases)
    if (c.expected.empty()) throw FileFormatError(path, "case " + c.name + " has no out_ref to validate against");
  fmt::print("kattn validate {} on {}\n", path, ExecutionSpace::name());
  fmt::print("{:<32} {:<13} {:<17} {:>12} {:>12}  {}\n", "case", "dtype", "variant", "max abs err", "max rel err",
             "result");
  int checked = 0, failed = 0;
  for (const ProblemCase& c : cases) {
    for (const std::optional<Variant>& variant : variants) {
      AttentionOptions options;
      options.variant = variant;
      const ProblemRun run = run_problem(c.problem, options);
      const Comparison result = compare_to_reference(run.out, c.expected, c.problem);
      ++checked;
      failed += result.passed() ? 0 : 1;
      fmt::print("{:<32} {:<13} {:<17} {:>12.3e} {:>12.3e}  {}\n", c.name, storage_label(c.problem),
                 to_string(run.plan.variant), result.max_abs_error, result.max_rel_error,
                 result.passed() ? "pass" : fmt::format("FAIL ({} elements)", result.failures));
    }
  }
  fmt::print("{} passed, {} failed\n", checked - failed, failed);
  return failed == 0 ? kSuccess : kValidationFailed;
}

int refgen_command(const std::string& scenario, const std::string& output) {
  std::vector<ProblemCase> cases;
  for (const WorkloadSpec& spec : load_scenario(scenario)) {
    ProblemCase c;
    c.name = spec.name;
    c.seed = spec.seed;
    c.description = fmt::format("{} {}: batch {}, seq len {}..{}, decode share {}, block {}{}{}", spec.model.name,
                                to_string(spec.dtype), spec.batch_size, spec.min_seq_len, spec.max_seq_len,
                                spec.decode_share, spec.block_size, spec.chunked_prefill ? ", chunked prefill" : "",
                                spec.causal ? "" : ", non-causal");
    c.problem = generate_problem(spec);
    c.expected = oracle_attention(c.problem);
    fmt::print("{:<40} tokens {:>6}  seqs {:>4}  blocks {:>6}\n", c.name, c.problem.geometry.num_tokens,
               c.problem.geometry.num_seqs, c.problem.geometry.num_blocks);
    cases.push_back(std::move(c));
  }
  write_problem_file(output, cases);
  fmt::print("wrote {} cases to {}\n", cases.size(), output);
  return kSuccess;
}

int run_command(const std::string& input, const std::string& output, const std::string& only_case,
                const std::string& variant_name) {
  // Only the chosen case is read and checked: another, invalid case of the file does not stop it.
  if (only_case.empty() && problem_case_names(input).size() != 1)
    throw FileFormatError(input, "holds several cases: choose one with --case");
  const std::vector<ProblemCase> cases =
      read_problem_file(input, only_case.empty() ? std::vector<std::string>{} : std::vector<std::string>{only_case});
  const ProblemCase* chosen = &cases.front();
  AttentionOptions options;
  if (!variant_name.empty()) options.variant = parse_variant(variant_name);
  const ProblemRun run = run_problem(chosen->problem, options);
  write_output_file(output, *chosen, run.out, std::string(to_string(run.plan.variant)));
  fmt::print("{}: case {} ({} tokens) -> {} with variant {}\n", input, chosen->name,
             chosen->problem.geometry.num_tokens, output, to_string(run.plan.variant));
  return kSuccess;
}

// The output file is --output in every command; --json (bench, simulate) and --out (model
// calibrate, tune) are its deprecated aliases (docs/cli.md): they work, with a note on stderr.
void warn_of_deprecated_aliases(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (std::string_view alias : {"--json", "--out"}) {
      const std::string_view arg = argv[i];
      if (arg == alias || (arg.size() > alias.size() && arg.substr(0, alias.size() + 1) == std::string(alias) + "="))
        fmt::print(stderr, "kattn: {} is a deprecated alias of --output\n", alias);
    }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kattn: paged attention kernels (Kokkos), oracle and references"};
  app.require_subcommand(1);
  app.set_version_flag(
      "--version", [] { return version_text(); }, "print the versions of kattn, Kokkos and the compiler");
  app.footer("Kokkos' options keep their --kokkos- names (--kokkos-help lists them); see docs/cli.md.");

  std::string file, variant = "all", only_case;
  CLI::App* validate =
      app.add_subcommand("validate", "run the kernels on a reference file and compare with its oracle output");
  validate->add_option("file", file, "reference HDF5 file")->required();
  validate->add_option("--variant", variant, "kernel variant, all, or planned")->capture_default_str();
  validate->add_option("--case", only_case, "validate only this case");

  std::string scenario, output;
  CLI::App* refgen = app.add_subcommand("refgen", "generate a reference file from a scenario (inputs + oracle output)");
  refgen->add_option("--scenario", scenario, "scenario JSON file")->required();
  refgen->add_option("--output", output, "HDF5 file to write")->required();

  std::string input, run_variant;
  CLI::App* run = app.add_subcommand("run", "run one problem and write its output");
  run->add_option("--input", input, "problem HDF5 file")->required();
  run->add_option("--output", output, "output HDF5 file")->required();
  run->add_option("--case", only_case, "case to run when the file holds several");
  run->add_option("--variant", run_variant, "kernel variant (default: the launch plan's)");

  BenchOptions bench_options;
  CLI::App* bench = app.add_subcommand("bench", "time scenarios through the kernels (lists are swept)");
  bench->add_option("--scenario", bench_options.scenario, "scenario JSON file")->required();
  bench->add_option("--case", bench_options.only_case, "run only this case");
  bench->add_option("--variant", bench_options.variants, "variants, comma separated, or planned")
      ->delimiter(',')
      ->capture_default_str();
  bench->add_option("--tile-size", bench_options.tile_sizes, "tile sizes to sweep")->delimiter(',');
  bench->add_option("--block-m", bench_options.block_ms, "Q-block rows to sweep")->delimiter(',');
  bench->add_option("--segments", bench_options.segments, "segment counts to sweep")->delimiter(',');
  bench->add_option("--team-size", bench_options.team_sizes, "team sizes to sweep")->delimiter(',');
  bench->add_option("--vector-length", bench_options.vector_lengths, "vector lengths to sweep")->delimiter(',');
  bench->add_option("--grid-teams", bench_options.grid_teams, "static-grid team counts to sweep")->delimiter(',');
  bench->add_option("--warmup", bench_options.warmup, "untimed runs first")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  bench->add_option("--runs", bench_options.runs, "timed runs")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()))
      ->capture_default_str();
  bench->add_option("--output,--json", bench_options.json_path,
                    "also write the results to this JSON file (--json: deprecated alias)");
  bench->add_option("--tuning-table", bench_options.tuning_table, "plan from this table instead of the built-in one");
  bench->add_flag("--untuned", bench_options.untuned, "plan from the untuned defaults, without any table");
  bench->add_flag("!--no-check-values", bench_options.check_values,
                  "skip the host copies that validate the index values (shapes are still checked)");
  bench->add_option("--hardware", bench_options.hardware_file,
                    "peak FLOP/s file (default: data/hardware/<arch>.json, built in)");
  bench->add_option("--commit", bench_options.commit, "source revision to record in the JSON");

  SimulateOptions sim_options;
  CLI::App* simulate = app.add_subcommand("simulate",
                                          "replay a request trace through a vLLM-like scheduler, "
                                          "timing each step's attention on the kernels");
  simulate
      ->add_option("--model", sim_options.model_file,
                   "model config JSON, or a built-in one by name: tiny, llama-3.1-8b (docs/simulation.md)")
      ->required();
  simulate->add_option("--trace", sim_options.trace_file, "request trace JSON");
  simulate->add_option("--poisson", sim_options.poisson, "RATE,N: N requests with Poisson arrivals at RATE per second");
  simulate->add_flag("--latency-experiment", sim_options.latency_experiment,
                     "one request at t = 0 (prompt 500, output 12800 unless --prompt-len/--output-len)");
  simulate->add_option("--prompt-len", sim_options.prompt_len,
                       "Poisson: uniform:MIN:MAX or lognormal:MEDIAN:SIGMA:MIN:MAX; latency experiment: N");
  simulate->add_option("--output-len", sim_options.output_len, "as --prompt-len, for the generated tokens");
  simulate->add_option("--seed", sim_options.seed, "seed of the Poisson trace and the tensor fills")
      ->capture_default_str();
  simulate->add_option("--warmup", sim_options.warmup, "untimed kernel calls per step")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  simulate->add_option("--runs", sim_options.runs, "timed kernel calls per step (mean)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()))
      ->capture_default_str();
  simulate->add_option("--rows", sim_options.rows, "step and request rows to print (evenly spread)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  simulate->add_option("--output,--json", sim_options.json_path,
                       "also write the whole report to this JSON file (--json: deprecated alias)");
  simulate->add_option("--write-trace", sim_options.write_trace_path, "also write the simulated trace (trace format)");
  simulate->add_option("--predict", sim_options.predict_arch,
                       "ARCH (h100, h200, a100, mi300, mi250, cpu) or a parameter file: predict each step's attention "
                       "with the hardware model (docs/hardware-model.md) instead of running the kernels");
  simulate
      ->add_flag("--graph-replay", sim_options.graph_replay,
                 "run every step as a captured graph (paper 6.2), timing each step's eager call too")
      ->excludes("--predict");
  simulate
      ->add_option("--variant", sim_options.variant,
                   "run every call on this kernel variant (as Figure 9 compares kernel versions); default: planned")
      ->excludes("--predict");

  CalibrateOptions calibrate_options;
  CLI::App* model_app = app.add_subcommand("model", "the hardware model (docs/hardware-model.md)");
  CLI::App* calibrate = model_app->add_subcommand("calibrate",
                                                  "fit the model's free parameters on bench JSON and "
                                                  "report its error on held-out cases");
  model_app->require_subcommand(1);
  calibrate->add_option("--suite", calibrate_options.suite, "bench JSON of the calibration runs")->required();
  calibrate->add_option("--holdout", calibrate_options.holdout, "more bench JSON, held out (repeatable)");
  calibrate->add_option("--hardware", calibrate_options.hardware, "parameter file to start from")->required();
  calibrate
      ->add_option("--calibrate-on", calibrate_options.calibrate_on,
                   "fit the suite cases whose name contains this; hold out the others")
      ->capture_default_str();
  calibrate
      ->add_option("--timing", calibrate_options.timing,
                   "kernel: fit the device part on kernel time (device events), then host_us on the calls; "
                   "call: fit everything on the host call to completion")
      ->check(CLI::IsMember({"kernel", "call"}))
      ->capture_default_str();
  calibrate->add_option("--output,--out", calibrate_options.out,
                        "write the parameter file with the fitted values (--out: deprecated alias)");

  bench_options.command = command_line(argc, argv);
  std::function<int()> run_tune;
  CLI::App* tune = add_tune_command(app, bench_options.command, run_tune);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kSuccess : kBadInput;
  }
  warn_of_deprecated_aliases(argc, argv);
  try {
    if (*validate) return validate_command(file, variant, only_case);
    if (*refgen) return refgen_command(scenario, output);
    if (*bench) return bench_command(bench_options);
    if (*simulate) return simulate_command(sim_options);
    if (*calibrate) return model_calibrate_command(calibrate_options);
    if (*tune) return run_tune();
    return run_command(input, output, only_case, run_variant);
  } catch (const NotSupported& e) {
    fmt::print(stderr, "kattn: {}\n", e.what());
    return kNotSupported;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kattn: error: {}\n", e.what());
    return kBadInput;
  }
}

}  // namespace kattn::cli
