#include "tools/bench_report.hpp"

#include "kattn/core/execution_space.hpp"
#include "kattn/io/json_file.hpp"
#include "tools/build_info.hpp"

#include <fmt/core.h>

#include <optional>

namespace kattn::cli {
namespace {

// The scenario case as the generator read it.
nlohmann::json spec_json(const WorkloadSpec& s) {
  const FeatureSpec& f = s.features;
  return {{"model", s.model.name},
          {"batch_size", s.batch_size},
          {"min_seq_len", s.min_seq_len},
          {"max_seq_len", s.max_seq_len},
          {"decode_share", s.decode_share},
          {"chunked_prefill", s.chunked_prefill},
          {"max_query_len", s.max_query_len},
          {"block_size", s.block_size},
          {"permute_blocks", s.permute_blocks},
          {"causal", s.causal},
          {"seed", s.seed},
          {"window_left", f.window_left},
          {"softcap", f.softcap},
          {"alibi", f.alibi},
          {"sinks", f.sinks},
          {"prefix_lm", f.prefix_lm},
          {"qq_bias", f.qq_bias},
          {"fp8_kv_cache", f.fp8_kv_cache},
          {"fp8_out", f.fp8_out}};
}

nlohmann::json optional_json(std::optional<double> value) { return value ? nlohmann::json(*value) : nullptr; }

// "12.3", or "-" when the share is unknown.
std::string percent(std::optional<double> share) { return share ? fmt::format("{:.1f}", 100.0 * *share) : "-"; }

}  // namespace

nlohmann::json launch_plan_json(const LaunchPlan& p) {
  return {{"variant", std::string(to_string(p.variant))},
          {"tile_size", p.tile_size},
          {"block_m", p.block_m},
          {"num_segments", p.num_segments},
          {"team_size", p.team_size},
          {"vector_length", p.vector_length},
          {"grid_teams", p.grid_teams},
          {"tensor_cores", p.tensor_cores},
          {"register_rows", p.register_rows},
          {"warpgroup_products", p.warpgroup_products},
          {"deep_tiles", p.deep_tiles}};
}

BenchReport::BenchReport(const BenchOptions& options, HardwareLimits limits)
    : options_(options), limits_(std::move(limits)) {
  fmt::print("kattn bench {} on {} ({}): {}\n", options_.scenario, ExecutionSpace::name(), build_arch(),
             limits_.device);
  fmt::print("copy bandwidth {:.1f} GB/s (read + write); peak TFLOP/s", limits_.copy_gb_per_s);
  for (const auto& [dtype, peak] : limits_.peak_tflop_per_s)
    fmt::print(" {} {}", dtype, peak ? fmt::format("{:.1f}", *peak) : "unknown");
  fmt::print(
      " ({})\n{} warm-up + {} timed runs each; mean: attention() host call to completion; run: the plan's"
      " run() host call to completion (host: its host time alone); graph: the run captured as a graph, a replay's host "
      "call"
      " to completion; kernel: device events, L2 flushed;"
      " GB/s, TFLOP/s and shares on kernel time\n",
      limits_.peak_source, options_.warmup, options_.runs);
  fmt::print(
      "{:<24} {:<17} {:>4} {:>4} {:>4} {:>7} {:>10} {:>8} {:>8} {:>6} {:>8} {:>10} {:>9} {:>9} {:>6} {:>6}  {}\n",
      "case", "variant", "tile", "bm", "segs", "team", "mean us", "+- us", "run us", "host", "graph us", "kernel us",
      "GB/s", "TFLOP/s", "%copy", "%peak", "plan");
}

// What ran: geometry and per-sequence shapes, enough for another tool to rebuild the batch.
void BenchReport::add_case(const WorkloadSpec& spec, const HostProblem& p, const Work& work, const RunTimings& stream) {
  const double stream_gb_per_s = work.bytes / (stream.kernel.mean_us * 1e3);
  const Geometry& g = p.geometry;
  std::vector<int> query_lens;
  for (int s = 0; s < g.num_seqs; ++s)
    query_lens.push_back(p.cu_seqlens_q[std::size_t(s) + 1] - p.cu_seqlens_q[std::size_t(s)]);
  cases_.push_back({{"name", spec.name},
                    {"dtype", std::string(to_string(p.dtype))},
                    {"kv_dtype", std::string(to_string(p.kv_dtype()))},
                    {"out_dtype", std::string(to_string(p.out_dtype()))},
                    {"num_q_heads", g.num_q_heads},
                    {"num_kv_heads", g.num_kv_heads},
                    {"head_size", g.head_size},
                    {"block_size", g.block_size},
                    {"causal", p.params.causal},
                    {"query_lens", query_lens},
                    {"seq_lens", p.seq_lens},
                    {"bytes", work.bytes},
                    {"flops", work.flops},
                    {"stream_kernel_us", stream.kernel.mean_us},
                    {"stream_gb_per_s", stream_gb_per_s},
                    {"stream_run_us", stream.call.mean_us},
                    {"stream_run_host_us", stream.host.mean_us},
                    {"spec", spec_json(spec)}});
  fmt::print(
      "{:<24} stream read of its {:.1f} MB, timed as run(): kernel {:.1f} us, {:.1f} GB/s; run {:.1f} us, host {:.1f} "
      "us\n",
      spec.name, work.bytes / 1e6, stream.kernel.mean_us, stream_gb_per_s, stream.call.mean_us, stream.host.mean_us);
}

void BenchReport::add_result(const WorkloadSpec& spec, const Geometry& g, const LaunchPlan& plan, bool forced,
                             const Timing& t, const PlanTimings& timings, const Work& work) {
  const RunTimings& r = timings.run;
  const RunTimings& replay = timings.replay;
  const auto rates = [&](double us) { return std::pair(work.bytes / (us * 1e3), work.flops / (us * 1e6)); };
  const auto [gbs, tflops] = rates(t.mean_us);
  const auto [kernel_gbs, kernel_tflops] = rates(r.kernel.mean_us);
  const double bandwidth_share = kernel_gbs / limits_.copy_gb_per_s;
  const std::optional<double> peak = peak_tflop_per_s(limits_, spec.dtype);
  const std::optional<double> peak_share = peak ? std::optional<double>(kernel_tflops / *peak) : std::nullopt;
  fmt::print(
      "{:<24} {:<17} {:>4} {:>4} {:>4} {:>3}x{:<3} {:>10.1f} {:>8.1f} {:>8.1f} {:>6.1f} {:>8.1f} {:>10.1f} {:>9.1f} "
      "{:>9.3f} {:>6} {:>6}  {}\n",
      spec.name, to_string(plan.variant), plan.tile_size, plan.block_m, plan.num_segments, plan.team_size,
      plan.vector_length, t.mean_us, t.stddev_us, r.call.mean_us, r.host.mean_us, replay.call.mean_us, r.kernel.mean_us,
      kernel_gbs, kernel_tflops, percent(bandwidth_share), percent(peak_share),
      forced ? std::string("forced")
             : plan.source + (plan.decodes_apart ? " + " + std::to_string(plan.decodes_apart) + " decodes apart" : ""));
  std::fflush(stdout);
  nlohmann::json row = launch_plan_json(plan);
  row.update({{"case", spec.name},
              {"dtype", std::string(to_string(spec.dtype))},
              {"forced", forced},
              {"plan_source", plan.source},
              {"decodes_apart", plan.decodes_apart},
              {"mean_us", t.mean_us},
              {"stddev_us", t.stddev_us},
              {"min_us", t.min_us},
              {"median_us", t.median_us},
              {"p90_us", t.p90_us},
              {"run_mean_us", r.call.mean_us},
              {"run_median_us", r.call.median_us},
              {"run_host_mean_us", r.host.mean_us},
              {"kernel_mean_us", r.kernel.mean_us},
              {"kernel_median_us", r.kernel.median_us},
              {"kernel_p90_us", r.kernel.p90_us},
              {"graph_run_mean_us", replay.call.mean_us},
              {"graph_run_host_mean_us", replay.host.mean_us},
              {"graph_kernel_mean_us", replay.kernel.mean_us},
              {"bytes", work.bytes},
              {"flops", work.flops},
              {"gb_per_s", gbs},
              {"tflop_per_s", tflops},
              {"kernel_gb_per_s", kernel_gbs},
              {"kernel_tflop_per_s", kernel_tflops},
              {"bandwidth_share", bandwidth_share},
              {"peak_share", optional_json(peak_share)},
              {"num_seqs", g.num_seqs},
              {"num_tokens", g.num_tokens}});
  results_.push_back(row);
}

void BenchReport::write_json(const std::string& path) const {
  const nlohmann::json doc{
      {"schema", "kattn-bench"},
      {"schema_version", 3},
      {"backend", ExecutionSpace::name()},
      {"arch", std::string(build_arch())},
      {"device", limits_.device},
      {"date", today()},
      {"commit", options_.commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(options_.commit)},
      {"build", build_info_json()},
      {"command", options_.command},
      {"scenario", options_.scenario},
      {"warmup", options_.warmup},
      {"runs", options_.runs},
      {"check_values", options_.check_values},
      {"untuned", options_.untuned},
      {"tuning_table", options_.tuning_table.empty() ? nlohmann::json(nullptr) : nlohmann::json(options_.tuning_table)},
      {"timing",
       "mean_us: attention() host call to completion, fenced before and after each run; "
       "run_*: the plan's run(), planned once (run_host: the call alone); graph_*: that run captured "
       "once as a graph, its replays timed as run_* and kernel_*; kernel_*: "
       "device events around run(), L2 flushed before each (by writing 256 MiB); stream_* (per case): a "
       "plain streaming read of the case's bytes in one launch, timed as run_* and kernel_*; "
       "gb_per_s and tflop_per_s on mean_us, kernel_* rates and the shares on kernel "
       "time"},
      {"hardware", to_json(limits_)},
      {"cases", cases_},
      {"results", results_}};
  write_json_file(path, doc, 1, "the bench results");
}

}  // namespace kattn::cli
