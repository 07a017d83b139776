// The report of `kattn simulate`: the printed summary and the JSON file (docs/simulation.md).
#pragma once

#include "kattn/simulation/model_config.hpp"
#include "kattn/simulation/simulator.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace kattn::cli {

// Mean, median and percentiles (linear interpolation between the closest ranks, as numpy.percentile,
// which `vllm bench serve` uses); all 0 for no values.
struct Distribution {
  std::size_t count = 0;
  double mean = 0.0, median = 0.0, p90 = 0.0, p99 = 0.0;
};
Distribution distribution(std::vector<double> values);

// What `vllm bench serve` reports, over the simulated run: the duration is the simulated time from
// t = 0 to the end of the last step. TTFT: arrival to first token; TPOT: (last token - first
// token) / (output tokens - 1) per request of more than one token; ITL: every gap between a
// request's consecutive tokens; E2EL: arrival to last token. Latencies in ms.
struct ServingMetrics {
  std::size_t completed = 0;
  double duration_s = 0.0;
  long long total_input_tokens = 0, total_output_tokens = 0;
  double request_throughput = 0.0;      // requests/s
  double output_throughput = 0.0;       // output tokens/s
  double total_token_throughput = 0.0;  // (input + output) tokens/s
  Distribution ttft_ms, tpot_ms, itl_ms, e2el_ms;
};
ServingMetrics serving_metrics(const sim::SimulationResult& result);

void print_simulation(const sim::SimulationResult& result, const sim::ModelConfig& config, const std::string& timer,
                      int rows);
void write_simulation_json(const std::string& path, const sim::SimulationResult& result, const sim::ModelConfig& config,
                           const std::string& timer, const std::string& source, const std::string& predicted_arch = "");

}  // namespace kattn::cli
