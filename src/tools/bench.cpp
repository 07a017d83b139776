#include "tools/bench.hpp"

#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/tuning/tuning_table.hpp"
#include "kattn/workload/generator.hpp"
#include "tools/bench_report.hpp"
#include "tools/commands.hpp"
#include "tools/timing.hpp"

#include <optional>
#include <stdexcept>

namespace kattn::cli {
namespace {

// The Cartesian product of the swept options.
std::vector<AttentionOptions> sweep(const BenchOptions& o, const TuningTable* table) {
  std::vector<AttentionOptions> result{AttentionOptions{}};
  result.front().tuning_table = table;
  result.front().check_values = o.check_values;
  result.front().untuned = o.untuned;
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
  if (o.untuned && !o.tuning_table.empty())
    throw std::invalid_argument("--untuned and --tuning-table " + o.tuning_table + " exclude each other");
  std::optional<TuningTable> table;
  if (!o.tuning_table.empty()) table = TuningTable::load(o.tuning_table);
  const std::vector<AttentionOptions> configurations = sweep(o, table ? &*table : nullptr);
  // The whole scenario is parsed and checked, and the case found, before the device is measured
  // or the header printed: a malformed scenario fails at once, with nothing on stdout.
  std::vector<WorkloadSpec> specs;
  for (const WorkloadSpec& spec : load_scenario(o.scenario))
    if (o.only_case.empty() || spec.name == o.only_case) specs.push_back(spec);
  if (specs.empty()) throw std::invalid_argument(o.scenario + ": no case named '" + o.only_case + "'");
  BenchReport report(o, measure_hardware_limits(o.hardware_file));
  for (const WorkloadSpec& spec : specs) {
    BatchSpec batch = draw_batch(spec);
    batch.with_values = false;
    const HostProblem layout = generate_batch(batch);
    dispatch_storage(layout.dtype, layout.kv_dtype(), layout.out_dtype(), [&](auto q, auto cache, auto out) {
      using Q = decltype(q);
      using Cache = decltype(cache);
      using Out = decltype(out);
      const DeviceProblem<Q, Cache, Out> device = synthesize_problem<Q, Cache, Out>(layout, spec.seed);
      const Work work = work_of(layout, sizeof(Q), sizeof(Cache));
      report.add_case(spec, layout, work, time_stream_read(std::size_t(work.bytes), o.runs));
      const BatchMetadata batch_metadata =
          host_batch_metadata(layout.cu_seqlens_q.data(), layout.seq_lens.data(), layout.geometry.num_seqs);
      Workspace workspace;
      for (const AttentionOptions& options : configurations) {
        LaunchPlan plan;
        const Timing t = time_runs(device, options, o.warmup, o.runs, plan);
        const AttentionPlan planned = plan_attention(device.inputs, device.params, batch_metadata, workspace, options);
        const PlanTimings r = time_plan_runs(device, planned, o.warmup, o.runs);
        report.add_result(spec, layout.geometry, plan, bool(options.variant), t, r, work);
      }
    });
  }
  if (!o.json_path.empty()) report.write_json(o.json_path);
  return kSuccess;
}

}  // namespace kattn::cli
