#include "tools/bench.hpp"

#include "kattn/attention.hpp"
#include "kattn/kernels/device_problem.hpp"
#include "kattn/tuning/tuning_table.hpp"
#include "kattn/workload/generator.hpp"
#include "tools/bench_report.hpp"
#include "tools/commands.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace kattn::cli {
namespace {

// The least work of a problem (see Work).
Work work_of(const HostProblem& p, std::size_t element_bytes, std::size_t cache_bytes) {
  const Geometry& g = p.geometry;
  Work w;
  w.bytes = 2.0 * double(g.q_elements()) * double(element_bytes);
  double pairs = 0.0;
  for (int s = 0; s < g.num_seqs; ++s) {
    const int query_len = p.cu_seqlens_q[std::size_t(s) + 1] - p.cu_seqlens_q[std::size_t(s)];
    const double seq_len = p.seq_lens[std::size_t(s)];
    w.bytes += 2.0 * seq_len * g.num_kv_heads * g.head_size * double(cache_bytes);
    const double context = seq_len - query_len;
    // causal: keys context+1 .. context+query_len; otherwise seq_len each
    pairs += p.params.causal ? query_len * context + 0.5 * query_len * (query_len + 1.0) : query_len * seq_len;
  }
  w.flops = 4.0 * g.head_size * g.num_q_heads * pairs;
  return w;
}

// Host call to completion of each run: fenced before and after.
template <class Device>
Timing time_runs(const Device& d, const AttentionOptions& options, int warmup, int runs,
                 LaunchPlan& plan) {
  for (int i = 0; i < warmup; ++i) plan = attention(d.inputs, d.params, d.out, options);
  Kokkos::fence();
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    Kokkos::Timer timer;
    plan = attention(d.inputs, d.params, d.out, options);  // also with --warmup 0
    Kokkos::fence();
    samples.push_back(timer.seconds() * 1e6);
  }
  Timing t;
  for (double s : samples) t.mean_us += s / double(samples.size());
  for (double s : samples) t.stddev_us += (s - t.mean_us) * (s - t.mean_us) / double(samples.size());
  t.stddev_us = std::sqrt(t.stddev_us);
  t.min_us = *std::min_element(samples.begin(), samples.end());
  return t;
}

// The Cartesian product of the swept options.
std::vector<AttentionOptions> sweep(const BenchOptions& o, const TuningTable* table) {
  std::vector<AttentionOptions> result{AttentionOptions{}};
  result.front().tuning_table = table;
  result.front().check_values = o.check_values;
  auto expand = [&result](const auto& values, auto set) {
    if (values.empty()) return;
    std::vector<AttentionOptions> next;
    for (const AttentionOptions& base : result)
      for (const auto& value : values) {
        AttentionOptions options = base;
        set(options, value);
        next.push_back(options);
      }
    result = std::move(next);
  };
  expand(o.variants, [](AttentionOptions& a, const std::string& v) {
    if (v != "planned") a.variant = parse_variant(v);
  });
  expand(o.tile_sizes, [](AttentionOptions& a, int v) { a.tile_size = v; });
  expand(o.block_ms, [](AttentionOptions& a, int v) { a.block_m = v; });
  expand(o.segments, [](AttentionOptions& a, int v) { a.num_segments = v; });
  expand(o.team_sizes, [](AttentionOptions& a, int v) { a.team_size = v; });
  expand(o.vector_lengths, [](AttentionOptions& a, int v) { a.vector_length = v; });
  expand(o.grid_teams, [](AttentionOptions& a, int v) { a.grid_teams = v; });
  return result;
}

}  // namespace

int bench_command(const BenchOptions& o) {
  std::optional<TuningTable> table;
  if (!o.tuning_table.empty()) table = TuningTable::load(o.tuning_table);
  const std::vector<AttentionOptions> configurations = sweep(o, table ? &*table : nullptr);
  BenchReport report(o, measure_hardware_limits(o.hardware_file));
  bool found = false;
  for (const WorkloadSpec& spec : load_scenario(o.scenario)) {
    if (!o.only_case.empty() && spec.name != o.only_case) continue;
    found = true;
    BatchSpec batch = draw_batch(spec);
    batch.with_values = false;
    const HostProblem layout = generate_batch(batch);
    dispatch_storage(layout.dtype, layout.kv_dtype(), layout.out_dtype(), [&](auto q, auto cache, auto out) {
      using Q = decltype(q);
      using Cache = decltype(cache);
      using Out = decltype(out);
      const DeviceProblem<Q, Cache, Out> device = synthesize_problem<Q, Cache, Out>(layout, spec.seed);
      const Work work = work_of(layout, sizeof(Q), sizeof(Cache));
      report.add_case(spec, layout, work);
      for (const AttentionOptions& options : configurations) {
        LaunchPlan plan;
        const Timing t = time_runs(device, options, o.warmup, o.runs, plan);
        report.add_result(spec, layout.geometry, plan, bool(options.variant), t, work);
      }
    });
  }
  if (!found) throw std::invalid_argument(o.scenario + ": no case named '" + o.only_case + "'");
  if (!o.json_path.empty()) report.write_json(o.json_path);
  return kSuccess;
}

}  // namespace kattn::cli
