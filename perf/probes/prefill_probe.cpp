// Probe: kattn's fp16 prefill and mixed batches timed alone, for A/B runs of kernel changes. It
// links one storage combination of the entry points (q, cache and out fp16; src/CMakeLists.txt's
// kattn_calls_fp16_fp16_fp16), so that `cmake --build build/h100 --target kattn_prefill_probe`
// compiles a kernel change in minutes where the library's every combination takes far longer.
// The prefill A/B scenario's cases (Llama-3-8B geometry, block 16, causal), built as `kattn bench`
// builds them (generate_batch, synthesize_problem) and timed as it times a planned run()
// (time_enqueued: kernel time from device events, the L2 flushed before each run), each planned
// from the build's table and with teams of 4, 8 and 12 warps. Values are not checked against the
// oracle (the GPU tests and `kattn validate` judge the kernels); a case whose output holds a NaN or
// an infinity is marked, and a checksum of the output (the mean of |x| and of x weighted by its
// index mod 7) lets two binaries' A/B compare their values. Usage: kattn_prefill_probe [runs
// [warmup]] (default 40 and 10), the cache's block size from KATTN_PROBE_BLOCK_SIZE (default 16),
// and, where set, the variant from KATTN_PROBE_VARIANT and the grid of static variants from
// KATTN_PROBE_GRID_TEAMS (teams resident for the whole call, each a stream of items); a line a case
// and team size, "case/tN team T mean M median D min L sum A W", N the team size
// asked (0: the table's).
#include "kattn/attention.hpp"
#include "kattn/batch/batch_metadata.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/workload/generator.hpp"
#include "kattn/workspace.hpp"
#include "tools/timing.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct ProbeCase {
  std::string name;
  std::vector<kattn::SequenceShape> sequences;
};

std::vector<kattn::SequenceShape> repeat(int n, int seq_len, int query_len) {
  return std::vector<kattn::SequenceShape>(std::size_t(n), kattn::SequenceShape{seq_len, query_len});
}

// The prefill A/B scenario's shapes (perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json),
// and lengths off the tiles (a chunk among them) whose last tiles are partial.
std::vector<ProbeCase> probe_cases() {
  std::vector<kattn::SequenceShape> mixed = repeat(24, 4096, 1);
  for (const kattn::SequenceShape& chunk : repeat(8, 4096, 512)) mixed.push_back(chunk);
  return {{"prefill-b1-8k", repeat(1, 8192, 8192)},
          {"prefill-b16-512", repeat(16, 512, 512)},
          {"mixed-24x4k-8x512", mixed},
          {"d0-b4-4k", repeat(4, 4096, 4096)},
          {"d0-b16-256", repeat(16, 256, 256)},
          {"odd-lengths", {{1000, 1000}, {777, 777}, {1500, 300}}}};
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int runs = argc > 1 ? std::atoi(argv[1]) : 40, warmup = argc > 2 ? std::atoi(argv[2]) : 10;
  const char* block_size_env = std::getenv("KATTN_PROBE_BLOCK_SIZE");
  const int block_size = block_size_env ? std::atoi(block_size_env) : 16;
  const char* variant_env = std::getenv("KATTN_PROBE_VARIANT");
  const char* grid_teams_env = std::getenv("KATTN_PROBE_GRID_TEAMS");
  using kattn::fp16_t;
  for (const ProbeCase& c : probe_cases()) {
    kattn::BatchSpec spec;
    spec.model = kattn::model_by_name("llama-3-8b");
    spec.block_size = block_size;
    spec.sequences = c.sequences;
    spec.with_values = false;
    const kattn::HostProblem layout = kattn::generate_batch(spec);
    const auto problem = kattn::synthesize_problem<fp16_t, fp16_t, fp16_t>(layout, spec.seed);
    const kattn::BatchMetadata batch =
        kattn::host_batch_metadata(layout.cu_seqlens_q.data(), layout.seq_lens.data(), layout.geometry.num_seqs);
    for (int team_size : {0, 4, 8, 12}) {
      kattn::AttentionOptions options;
      if (team_size) options.team_size = team_size;
      if (variant_env) options.variant = kattn::parse_variant(variant_env);
      if (grid_teams_env) options.grid_teams = std::atoi(grid_teams_env);
      const kattn::AttentionPlan plan =
          kattn::plan_attention(problem.inputs, problem.params, batch, kattn::Workspace::instance(), options);
      const kattn::cli::Timing t = kattn::cli::time_enqueued(kattn::ExecutionSpace(), warmup, runs, [&] {
                                     kattn::run(plan, problem.inputs, problem.out);
                                   }).kernel;
      std::size_t not_finite = 0, i = 0;
      double absolute = 0, weighted = 0;
      const std::vector<float> out = kattn::download_out(problem.out);
      for (float x : out) {
        not_finite += !std::isfinite(x);
        absolute += std::fabs(x);
        weighted += double(x) * double(i++ % 7);
      }
      const double n = out.empty() ? 1.0 : double(out.size());
      std::printf("%s/t%d team %d mean %.1f median %.1f min %.1f sum %.6e %.6e%s\n", c.name.c_str(), team_size,
                  plan.call().main.team_size, t.mean_us, t.median_us, t.min_us, absolute / n, weighted / n,
                  not_finite ? " NOT FINITE" : "");
      std::fflush(stdout);
    }
  }
}
