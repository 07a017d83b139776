// Probe: kattn's fp16 prefill and mixed batches timed alone, for A/B runs of kernel changes. It
// links one storage combination of the entry points (q, cache and out fp16; src/CMakeLists.txt's
// kattn_calls_fp16_fp16_fp16), so that `cmake --build build/h100 --target kattn_prefill_probe`
// compiles a kernel change in minutes where the library's every combination takes far longer.
// Llama-3-8B geometry (32 query heads, 8 KV heads, head 128), block 16, causal; inputs from the
// harness (synthesize_problem, as `kattn bench`), each case planned from the build's table and
// with teams of 4 and 8 warps. Times are kernel time by CUDA events around a planned run(), the
// L2 flushed before each (as `kattn bench`). Values are not checked against the oracle (the GPU
// tests and `kattn validate` judge the kernels); a case whose output holds a NaN or an infinity
// is reported. Usage: kattn_prefill_probe [runs [warmup]] (default 40 and 10).
#include "kattn/attention.hpp"
#include "kattn/batch/batch_metadata.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/workspace.hpp"

#include <cuda_runtime.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

struct ProbeCase {
  std::string name;
  std::vector<int> query_lens, seq_lens;
};

// The prefill A/B scenario's shapes (perf/results/h100-2026-11-26-overlap/ab/prefill-ab-scenario.json).
std::vector<ProbeCase> probe_cases() {
  const auto repeat = [](int n, int value) { return std::vector<int>(std::size_t(n), value); };
  ProbeCase mixed{"mixed-24x4k-8x512", repeat(24, 1), repeat(32, 4096)};
  mixed.query_lens.resize(32, 512);
  return {{"prefill-b1-8k", {8192}, {8192}},
          {"prefill-b16-512", repeat(16, 512), repeat(16, 512)},
          mixed,
          {"d0-b4-4k", repeat(4, 4096), repeat(4, 4096)},
          {"d0-b16-256", repeat(16, 256), repeat(16, 256)}};
}

kattn::HostProblem layout_of(const ProbeCase& c) {
  constexpr int kBlock = 16;
  kattn::HostProblem p;
  p.dtype = kattn::DType::fp16;
  kattn::Geometry& g = p.geometry;
  g.num_q_heads = 32, g.num_kv_heads = 8, g.head_size = 128, g.block_size = kBlock;
  g.num_seqs = int(c.seq_lens.size());
  p.cu_seqlens_q.push_back(0);
  for (int s = 0; s < g.num_seqs; ++s) {
    p.cu_seqlens_q.push_back(p.cu_seqlens_q.back() + c.query_lens[std::size_t(s)]);
    g.max_blocks_per_seq = std::max(g.max_blocks_per_seq, (c.seq_lens[std::size_t(s)] + kBlock - 1) / kBlock);
  }
  g.num_tokens = p.cu_seqlens_q.back();
  p.seq_lens = c.seq_lens;
  // The sequences' blocks in a shuffled order of the pool (a serving engine's is not contiguous).
  for (int s = 0; s < g.num_seqs; ++s) g.num_blocks += (p.seq_lens[std::size_t(s)] + kBlock - 1) / kBlock;
  std::vector<std::int32_t> pool(std::size_t(g.num_blocks));
  std::iota(pool.begin(), pool.end(), 0);
  std::shuffle(pool.begin(), pool.end(), std::mt19937(12345));
  p.block_table.assign(std::size_t(g.num_seqs) * std::size_t(g.max_blocks_per_seq), 0);
  for (int s = 0, next = 0; s < g.num_seqs; ++s)
    for (int b = 0; b < (p.seq_lens[std::size_t(s)] + kBlock - 1) / kBlock; ++b)
      p.block_table[std::size_t(s) * std::size_t(g.max_blocks_per_seq) + std::size_t(b)] = pool[std::size_t(next++)];
  p.params.softmax_scale = 1.0 / std::sqrt(double(g.head_size));
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int runs = argc > 1 ? std::atoi(argv[1]) : 40, warmup = argc > 2 ? std::atoi(argv[2]) : 10;
  using kattn::fp16_t;
  Kokkos::View<char*, kattn::MemorySpace> flush("kattn::l2_flush", std::size_t(256) << 20);
  const cudaStream_t stream = kattn::ExecutionSpace().cuda_stream();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::printf("%-22s %5s %10s %10s %10s\n", "case", "team", "mean us", "median us", "min us");
  for (const ProbeCase& c : probe_cases()) {
    const kattn::HostProblem layout = layout_of(c);
    const auto problem = kattn::synthesize_problem<fp16_t, fp16_t, fp16_t>(layout, 7);
    const kattn::BatchMetadata batch =
        kattn::host_batch_metadata(layout.cu_seqlens_q.data(), layout.seq_lens.data(), layout.geometry.num_seqs);
    for (int team_size : {0, 4, 8}) {  // 0: the table's
      kattn::AttentionOptions options;
      if (team_size) options.team_size = team_size;
      const kattn::AttentionPlan plan =
          kattn::plan_attention(problem.inputs, problem.params, batch, kattn::Workspace::instance(), options);
      std::vector<float> us;
      for (int r = 0; r < warmup + runs; ++r) {
        Kokkos::deep_copy(kattn::ExecutionSpace(), flush, char(r));
        cudaEventRecord(start, stream);
        kattn::run(plan, problem.inputs, problem.out);
        cudaEventRecord(stop, stream);
        cudaEventSynchronize(stop);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, start, stop);
        if (r >= warmup) us.push_back(1000.0f * ms);
      }
      double mean = 0.0;
      for (float t : us) mean += t / double(us.size());
      std::sort(us.begin(), us.end());
      const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), problem.out);
      std::size_t not_finite = 0;
      for (std::size_t i = 0; i < out.size(); ++i) not_finite += !std::isfinite(kattn::fp16_to_float(out.data()[i]));
      std::printf("%-22s %5d %10.1f %10.1f %10.1f%s\n", c.name.c_str(), plan.call().main.team_size, mean,
                  us[us.size() / 2], us.front(), not_finite ? "  NOT FINITE" : "");
      std::fflush(stdout);
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}
