// The differential campaign: seeded random problems over every feature and edge case, each run
// through a random variant and plan and judged by the oracle. A failing case is written to an
// HDF5 problem file for `kattn validate`. Quick tier in CI (ctest), long tier by flag; the vLLM
// tier draws the shapes and features of vLLM's own kernel tests (random_problems.hpp).
#include "kattn/harness/run_problem.hpp"
#include "kattn/io/reference_file.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "random_problems.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  CLI::App app{"kattn differential campaign: random problems against the oracle"};
  int cases = 2000;
  std::uint64_t first_seed = 1;
  bool long_tier = false;
  bool vllm_tier = false;
  int vllm_prefills = 1;
  std::string failures_path = "kattn-differential-failures.h5";
  const CLI::Option* cases_option =
      app.add_option("--cases", cases, "number of problems (vLLM tier: default 200)")->capture_default_str();
  app.add_option("--seed", first_seed, "seed of the first problem (the others follow)")->capture_default_str();
  CLI::Option* long_flag =
      app.add_flag("--long", long_tier, "long tier: 50000 problems, up to 128 sequences and 2048 keys");
  app.add_flag("--vllm", vllm_tier,
               "vLLM tier: the shapes of vLLM's unified-attention tests (533 decodes, 533-token prefills, GQA 5 "
               "and 7, head 128 and 256, windows 64-256, softcap 50, fp8 with scales), each variant in turn")
      ->excludes(long_flag);
  app.add_option("--vllm-prefills", vllm_prefills, "533-token prefills in the vLLM tier's prefill batch (vLLM: 533)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--failures", failures_path, "where failing problems are written")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  kattn::test::RandomSizes sizes;
  if (long_tier) {
    cases = std::max(cases, 50000);
    sizes = {128, 2048};
  }
  if (vllm_tier && cases_option->count() == 0) cases = 200;
  const std::vector<kattn::Variant> variants = kattn::all_variants();
  std::vector<kattn::ProblemCase> failed;
  for (int i = 0; i < cases; ++i) {
    const std::uint64_t seed = first_seed + std::uint64_t(i);
    // Every 32nd problem is large (100+ sequences, longer contexts) even in the quick tier.
    const kattn::test::RandomSizes these = (i % 32 == 31) ? kattn::test::RandomSizes{130, 300} : sizes;
    kattn::ProblemCase c;
    c.name = "seed-" + std::to_string(seed);
    c.seed = seed;
    c.problem = vllm_tier ? kattn::test::vllm_problem(seed, vllm_prefills) : kattn::test::random_problem(seed, these);
    kattn::AttentionOptions options = kattn::test::random_options(seed);
    if (vllm_tier) options.variant = variants[std::size_t(i) % variants.size()];  // a handful of cases covers each
    c.expected = kattn::oracle_attention(c.problem);
    const kattn::ProblemRun run = kattn::run_problem(c.problem, options);
    const kattn::Comparison result = kattn::compare_to_reference(run.out, c.expected, c.problem);
    if (!result.passed()) {
      fmt::print("FAIL seed {} variant {} tile {} block_m {} segments {}: {} elements, max abs error {:.3e}\n", seed,
                 kattn::to_string(run.plan.variant), run.plan.tile_size, run.plan.block_m, run.plan.num_segments,
                 result.failures, result.max_abs_error);
      c.description = fmt::format("differential failure with variant {}", kattn::to_string(run.plan.variant));
      failed.push_back(std::move(c));
    }
  }
  if (!failed.empty()) {
    kattn::write_problem_file(failures_path, failed);
    fmt::print("failing problems written to {}\n", failures_path);
  }
  fmt::print("{} passed, {} failed\n", cases - int(failed.size()), failed.size());
  return failed.empty() ? 0 : 1;
}
