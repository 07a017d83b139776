// Request traces of the serving simulator (docs/simulation.md): a file, seeded Poisson arrivals,
// or the paper's latency experiment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kattn::sim {

struct Request {
  int id = 0;
  double arrival_s = 0.0;  // simulated seconds from the start
  int prompt_len = 1;      // tokens of the prompt (>= 1)
  int output_len = 1;      // tokens to generate (>= 1); the last prefill chunk samples the first
};

// Lengths of generated requests: uniform in [min, max], or lognormal with the given median and
// log-space sigma, clamped to [min, max].
struct LengthDistribution {
  enum class Kind { uniform, lognormal };
  Kind kind = Kind::uniform;
  int min = 1;
  int max = 1;
  double median = 1.0;  // lognormal only
  double sigma = 0.0;   // lognormal only
};

struct PoissonSpec {
  double rate_per_s = 1.0;  // mean arrivals per simulated second
  int num_requests = 1;
  LengthDistribution prompt;
  LengthDistribution output;
  std::uint64_t seed = 1;
};

// Requests sorted by arrival time, ids 0..n-1 in that order. Throws std::invalid_argument for a
// non-positive rate or count, or lengths outside min <= max, min >= 1.
std::vector<Request> poisson_trace(const PoissonSpec& spec);

// The paper's latency experiment: one request at t = 0 (prompt 500, output 12,800 by default).
std::vector<Request> latency_experiment_trace(int prompt_len = 500, int output_len = 12800);

// {"requests": [{"id": 0, "arrival_s": 0.0, "prompt_len": 500, "output_len": 128}, ...]}; ids may
// be omitted (then their position). Sorted by arrival on load. Throws FileFormatError.
std::vector<Request> load_trace(const std::string& path);
void write_trace(const std::string& path, const std::vector<Request>& requests);

// "uniform:MIN:MAX" or "lognormal:MEDIAN:SIGMA:MIN:MAX" (the CLI's --prompt-len / --output-len).
LengthDistribution parse_length_distribution(const std::string& text);

}  // namespace kattn::sim
