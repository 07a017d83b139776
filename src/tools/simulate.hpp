// `kattn simulate`: a request trace through the serving simulator (docs/simulation.md).
#pragma once

#include <cstdint>
#include <string>

namespace kattn::cli {

struct SimulateOptions {
  std::string model_file;
  std::string trace_file;        // one of the three sources
  std::string poisson;           // "RATE,N"
  bool latency_experiment = false;
  std::string prompt_len;        // Poisson: a distribution; latency experiment: a number; empty = default
  std::string output_len;
  std::uint64_t seed = 1;
  int warmup = 1;                // untimed kernel calls per step
  int runs = 1;                  // timed kernel calls per step
  int rows = 20;                 // printed step and request rows (evenly spread)
  std::string json_path;
  std::string write_trace_path;  // also write the trace that was simulated
};

int simulate_command(const SimulateOptions& options);

}  // namespace kattn::cli
