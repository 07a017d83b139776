// `kattn simulate`: a request trace through the serving simulator (docs/simulation.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kattn::cli {

struct SimulateOptions {
  std::string model_file;
  std::string trace_file;  // one of the three sources
  std::string poisson;     // "RATE,N"
  bool latency_experiment = false;
  std::string prompt_len;  // Poisson: a distribution; latency experiment: a number; empty = default
  std::string output_len;
  std::uint64_t seed = 1;
  int warmup = 1;  // untimed kernel calls per step
  int runs = 1;    // timed kernel calls per step
  int rows = 20;   // printed step and request rows (evenly spread)
  std::string json_path;
  std::string write_trace_path;  // also write the trace that was simulated
  std::string predict_arch;      // --predict ARCH: the hardware model instead of the kernels
  bool graph_replay = false;     // every step as a captured graph (KernelTimerOptions::graph_replay)
  std::string variant;           // every call on this variant; empty = the launch plan's choice
};

int simulate_command(const SimulateOptions& options);

// `kattn model calibrate`: fits the hardware model's free parameters on bench JSON (model_calibrate.cpp).
struct CalibrateOptions {
  std::string suite;                     // bench JSON with the calibration cases
  std::vector<std::string> holdout;      // more bench JSON, all held out
  std::string hardware;                  // parameter file to start from
  std::string calibrate_on = "-fixed-";  // suite cases whose name contains this are fitted; the rest held out
  std::string timing = "kernel";         // "kernel": device part on kernel_median_us, host_us on the calls; "call"
  std::string out;                       // write the parameter file with the fitted values here
};
int model_calibrate_command(const CalibrateOptions& options);

}  // namespace kattn::cli
