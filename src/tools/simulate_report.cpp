#include "tools/simulate_report.hpp"

#include "kattn/core/execution_space.hpp"
#include "kattn/io/json_file.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>

namespace kattn::cli {
namespace {

// At most `rows` indices of [0, count), evenly spread, first and last included.
std::vector<std::size_t> spread(std::size_t count, int rows) {
  std::vector<std::size_t> picked;
  if (count == 0 || rows < 1) return picked;
  if (count <= std::size_t(rows) || rows == 1) {
    for (std::size_t i = 0; i < std::min(count, std::size_t(rows)); ++i) picked.push_back(i);
    return picked;
  }
  for (int k = 0; k < rows; ++k) picked.push_back(std::size_t(k) * (count - 1) / std::size_t(rows - 1));
  return picked;
}

double mean(const std::vector<double>& values) {
  double total = 0.0;
  for (double v : values) total += v;
  return values.empty() ? 0.0 : total / double(values.size());
}

// Replayed steps against their eager calls, per layer.
struct ReplaySummary {
  int steps = 0;
  double replay_us = 0.0, eager_us = 0.0;  // means
};

ReplaySummary replay_summary(const sim::SimulationResult& r) {
  ReplaySummary summary;
  for (const sim::StepRecord& s : r.steps) {
    if (!s.replayed) continue;
    ++summary.steps;
    summary.replay_us += s.attention_us_per_layer;
    summary.eager_us += s.eager_us_per_layer;
  }
  if (summary.steps > 0) {
    summary.replay_us /= summary.steps;
    summary.eager_us /= summary.steps;
  }
  return summary;
}

// The block `vllm bench serve` prints, in its shape (vllm/benchmarks/serve.py), P90 beside P99.
void print_serving_metrics(const ServingMetrics& m) {
  fmt::print("{:=^50}\n", " Serving Benchmark Result ");
  fmt::print("{:<40} {:<10}\n", "Successful requests:", m.completed);
  fmt::print("{:<40} {:<10.2f}\n", "Benchmark duration (s):", m.duration_s);
  fmt::print("{:<40} {:<10}\n", "Total input tokens:", m.total_input_tokens);
  fmt::print("{:<40} {:<10}\n", "Total generated tokens:", m.total_output_tokens);
  fmt::print("{:<40} {:<10.2f}\n", "Request throughput (req/s):", m.request_throughput);
  fmt::print("{:<40} {:<10.2f}\n", "Output token throughput (tok/s):", m.output_throughput);
  fmt::print("{:<40} {:<10.2f}\n", "Total Token throughput (tok/s):", m.total_token_throughput);
  const auto section = [](const char* title, const char* name, const Distribution& d) {
    fmt::print("{:-^50}\n", title);
    fmt::print("{:<40} {:<10.2f}\n", fmt::format("Mean {} (ms):", name), d.mean);
    fmt::print("{:<40} {:<10.2f}\n", fmt::format("Median {} (ms):", name), d.median);
    fmt::print("{:<40} {:<10.2f}\n", fmt::format("P90 {} (ms):", name), d.p90);
    fmt::print("{:<40} {:<10.2f}\n", fmt::format("P99 {} (ms):", name), d.p99);
  };
  section("Time to First Token", "TTFT", m.ttft_ms);
  section("Time per Output Token (excl. 1st token)", "TPOT", m.tpot_ms);
  section("Inter-token Latency", "ITL", m.itl_ms);
  section("End-to-end Latency", "E2EL", m.e2el_ms);
  fmt::print("{:=^50}\n", "");
}

}  // namespace

Distribution distribution(std::vector<double> values) {
  Distribution d;
  d.count = values.size();
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  const auto percentile = [&](double p) {
    const double rank = p / 100.0 * double(values.size() - 1);
    const std::size_t below = std::size_t(rank);
    if (below + 1 >= values.size()) return values.back();
    return values[below] + (rank - double(below)) * (values[below + 1] - values[below]);
  };
  d.mean = mean(values);
  d.median = percentile(50.0);
  d.p90 = percentile(90.0);
  d.p99 = percentile(99.0);
  return d;
}

ServingMetrics serving_metrics(const sim::SimulationResult& r) {
  ServingMetrics m;
  std::vector<double> ttft, tpot, itl, e2el;
  for (const sim::RequestRecord& q : r.requests) {
    if (q.tokens.empty()) continue;
    ++m.completed;
    m.total_input_tokens += q.request.prompt_len;
    m.total_output_tokens += (long long)q.tokens.size();
    ttft.push_back(1e3 * q.ttft_s());
    e2el.push_back(1e3 * (q.tokens.back().time_s - q.request.arrival_s));
    if (q.tokens.size() > 1) tpot.push_back(1e3 * q.mean_itl_s());
    for (std::size_t t = 1; t < q.tokens.size(); ++t)
      itl.push_back(1e3 * (q.tokens[t].time_s - q.tokens[t - 1].time_s));
  }
  m.duration_s = r.end_s;
  if (m.duration_s > 0.0) {
    m.request_throughput = double(m.completed) / m.duration_s;
    m.output_throughput = double(m.total_output_tokens) / m.duration_s;
    m.total_token_throughput = double(m.total_input_tokens + m.total_output_tokens) / m.duration_s;
  }
  m.ttft_ms = distribution(std::move(ttft));
  m.tpot_ms = distribution(std::move(tpot));
  m.itl_ms = distribution(std::move(itl));
  m.e2el_ms = distribution(std::move(e2el));
  return m;
}

void print_simulation(const sim::SimulationResult& r, const sim::ModelConfig& c, const std::string& timer, int rows) {
  fmt::print("kattn simulate {}: {} layers, {}/{} heads x {}, {}, {} KV blocks of {}, budget {} tokens\n", c.name,
             c.num_layers, c.geometry.num_q_heads, c.geometry.num_kv_heads, c.geometry.head_size, to_string(c.dtype),
             c.num_kv_blocks, c.block_size, c.max_num_batched_tokens);
  fmt::print("attention: {} (x {} layers); other: {} ms/step + {} us/token (modelled)\n", timer, c.num_layers,
             c.other_ms_per_step, c.other_us_per_token);
  fmt::print("{:>7} {:>10} {:>8} {:>10} {:>14} {:>12} {:>9}\n", "step", "start s", "decodes", "prefill tk",
             "attention us", "other us", "KV used");
  for (std::size_t i : spread(r.steps.size(), rows)) {
    const sim::StepRecord& s = r.steps[i];
    fmt::print("{:>7} {:>10.4f} {:>8} {:>10} {:>14.1f} {:>12.1f} {:>8.1f}%\n", i, s.start_s, s.num_decodes,
               s.num_prefill_tokens, s.attention_us, s.other_us, 100.0 * s.kv_blocks_used / c.num_kv_blocks);
  }
  fmt::print("{:>7} {:>10} {:>7} {:>7} {:>10} {:>9} {:>12} {:>9} {:>8}\n", "request", "arrival s", "prompt", "output",
             "TTFT ms", "attn TTFT", "mean ITL ms", "attn ITL", "preempt");
  std::vector<double> ttft, itl;
  for (std::size_t i : spread(r.requests.size(), rows)) {
    const sim::RequestRecord& q = r.requests[i];
    fmt::print("{:>7} {:>10.4f} {:>7} {:>7} {:>10.3f} {:>8.1f}% {:>12.3f} {:>8.1f}% {:>8}\n", q.request.id,
               q.request.arrival_s, q.request.prompt_len, q.request.output_len, 1e3 * q.ttft_s(),
               100.0 * q.ttft_attention_share(), 1e3 * q.mean_itl_s(), 100.0 * q.itl_attention_share(),
               q.num_preemptions);
  }
  for (const sim::RequestRecord& q : r.requests) {
    ttft.push_back(q.ttft_s());
    if (q.tokens.size() > 1) itl.push_back(q.mean_itl_s());
  }
  fmt::print(
      "{} requests, {} steps, {} tokens generated, {:.4f} s simulated; attention {:.1f}% of the busy time; "
      "mean TTFT {:.3f} ms, mean ITL {:.3f} ms; peak KV {:.1f}%, {} preemptions\n",
      r.requests.size(), r.steps.size(), r.total_tokens_generated(), r.end_s,
      100.0 * r.total_attention_us() / r.total_busy_us(), 1e3 * mean(ttft), 1e3 * mean(itl),
      100.0 * r.peak_kv_blocks() / c.num_kv_blocks, r.total_preemptions());
  const ReplaySummary replay = replay_summary(r);
  if (replay.steps > 0)
    fmt::print(
        "graph replay: {} of {} steps; attention per layer {:.1f} us replayed vs {:.1f} us eager: {:.1f} us "
        "({:.1f}%) saved per layer, {:.3f} ms per step of {} layers\n",
        replay.steps, r.steps.size(), replay.replay_us, replay.eager_us, replay.eager_us - replay.replay_us,
        100.0 * (replay.eager_us - replay.replay_us) / replay.eager_us,
        1e-3 * (replay.eager_us - replay.replay_us) * c.num_layers, c.num_layers);
  print_serving_metrics(serving_metrics(r));
}

void write_simulation_json(const std::string& path, const sim::SimulationResult& r, const sim::ModelConfig& c,
                           const std::string& timer, const std::string& source, const std::string& predicted_arch) {
  using nlohmann::json;
  json steps = json::array();
  for (const sim::StepRecord& s : r.steps)
    steps.push_back({{"start_s", s.start_s},
                     {"end_s", s.end_s},
                     {"num_decodes", s.num_decodes},
                     {"num_prefill_seqs", s.num_prefill_seqs},
                     {"num_prefill_tokens", s.num_prefill_tokens},
                     {"attention_us_per_layer", s.attention_us_per_layer},
                     {"attention_us", s.attention_us},
                     {"other_us", s.other_us},
                     {"kv_blocks_used", s.kv_blocks_used},
                     {"num_preempted", s.num_preempted},
                     {"replayed", s.replayed},
                     {"eager_us_per_layer", s.eager_us_per_layer}});
  json requests = json::array();
  for (const sim::RequestRecord& q : r.requests) {
    json tokens = json::array();
    for (const sim::TokenRecord& t : q.tokens)
      tokens.push_back({{"time_s", t.time_s}, {"step", t.step}, {"attention_us", t.attention_us}});
    requests.push_back({{"id", q.request.id},
                        {"arrival_s", q.request.arrival_s},
                        {"prompt_len", q.request.prompt_len},
                        {"output_len", q.request.output_len},
                        {"ttft_s", q.ttft_s()},
                        {"mean_itl_s", q.mean_itl_s()},
                        {"ttft_attention_share", q.ttft_attention_share()},
                        {"itl_attention_share", q.itl_attention_share()},
                        {"num_preemptions", q.num_preemptions},
                        {"tokens", tokens}});
  }
  const json model = {{"name", c.name},
                      {"num_layers", c.num_layers},
                      {"num_q_heads", c.geometry.num_q_heads},
                      {"num_kv_heads", c.geometry.num_kv_heads},
                      {"head_size", c.geometry.head_size},
                      {"dtype", std::string(to_string(c.dtype))},
                      {"block_size", c.block_size},
                      {"num_kv_blocks", c.num_kv_blocks},
                      {"max_num_batched_tokens", c.max_num_batched_tokens},
                      {"max_num_seqs", c.max_num_seqs},
                      {"other_ms_per_step", c.other_ms_per_step},
                      {"other_us_per_token", c.other_us_per_token}};
  const ReplaySummary replay = replay_summary(r);
  const ServingMetrics m = serving_metrics(r);
  // `vllm bench serve`'s result keys (its --save-result JSON), P90 beside P99; duration in seconds.
  json serving = {{"completed", m.completed},
                  {"duration", m.duration_s},
                  {"total_input_tokens", m.total_input_tokens},
                  {"total_output_tokens", m.total_output_tokens},
                  {"request_throughput", m.request_throughput},
                  {"output_throughput", m.output_throughput},
                  {"total_token_throughput", m.total_token_throughput}};
  for (const auto& [name, d] : {std::pair<const char*, const Distribution&>{"ttft", m.ttft_ms},
                                {"tpot", m.tpot_ms},
                                {"itl", m.itl_ms},
                                {"e2el", m.e2el_ms}}) {
    serving[std::string("mean_") + name + "_ms"] = d.mean;
    serving[std::string("median_") + name + "_ms"] = d.median;
    serving[std::string("p90_") + name + "_ms"] = d.p90;
    serving[std::string("p99_") + name + "_ms"] = d.p99;
  }
  json doc = {{"schema", "kattn-simulation"},
              {"schema_version", 1},
              {"backend", ExecutionSpace::name()},
              {"timer", timer},
              {"attention_layers", c.num_layers},
              {"source", source},
              {"model", model},
              {"totals",
               {{"num_requests", r.requests.size()},
                {"num_steps", r.steps.size()},
                {"tokens_generated", r.total_tokens_generated()},
                {"end_s", r.end_s},
                {"attention_us", r.total_attention_us()},
                {"busy_us", r.total_busy_us()},
                {"peak_kv_blocks", r.peak_kv_blocks()},
                {"preemptions", r.total_preemptions()}}},
              {"serving", serving},
              {"graph_replay",
               {{"steps", replay.steps},
                {"mean_replay_us_per_layer", replay.replay_us},
                {"mean_eager_us_per_layer", replay.eager_us}}},
              {"steps", steps},
              {"requests", requests}};
  // --predict: the times are the hardware model's predictions for that architecture, not measurements.
  doc["predicted"] = !predicted_arch.empty();
  if (!predicted_arch.empty()) doc["predicted_arch"] = predicted_arch;
  write_json_file(path, doc, 1, "the simulation report");
}

}  // namespace kattn::cli
