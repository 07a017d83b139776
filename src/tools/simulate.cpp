#include "tools/simulate.hpp"

#include "kattn/simulation/hardware_model.hpp"
#include "kattn/simulation/kernel_step_timer.hpp"
#include "kattn/simulation/predicted_step_timer.hpp"
#include "kattn/simulation/simulator.hpp"
#include "tools/commands.hpp"
#include "tools/simulate_report.hpp"

#include <fmt/core.h>

#include <stdexcept>

namespace kattn::cli {
namespace {

// A fixed length: "N" (the latency experiment's lengths).
int fixed_length(const std::string& text, int fallback, const char* what) {
  if (text.empty()) return fallback;
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (const std::logic_error&) {
  }
  throw std::invalid_argument(std::string("--latency-experiment takes a number for ") + what + ", not '" + text + "'");
}

sim::PoissonSpec poisson_spec(const SimulateOptions& o) {
  sim::PoissonSpec spec;
  const std::size_t comma = o.poisson.find(',');
  try {
    if (comma == std::string::npos) throw std::invalid_argument("no comma");
    spec.rate_per_s = std::stod(o.poisson.substr(0, comma));
    spec.num_requests = std::stoi(o.poisson.substr(comma + 1));
  } catch (const std::logic_error&) {
    throw std::invalid_argument("--poisson takes RATE,N (requests per second, number of requests), not '" + o.poisson +
                                "'");
  }
  spec.prompt = sim::parse_length_distribution(o.prompt_len.empty() ? "uniform:128:1024" : o.prompt_len);
  spec.output = sim::parse_length_distribution(o.output_len.empty() ? "uniform:64:512" : o.output_len);
  spec.seed = o.seed;
  return spec;
}

// The trace and a line that says where it came from.
std::vector<sim::Request> trace_of(const SimulateOptions& o, std::string& source) {
  const int sources = int(!o.trace_file.empty()) + int(!o.poisson.empty()) + int(o.latency_experiment);
  if (sources != 1) throw std::invalid_argument("give exactly one of --trace, --poisson, --latency-experiment");
  if (!o.trace_file.empty()) {
    if (!o.prompt_len.empty() || !o.output_len.empty())
      throw std::invalid_argument("--prompt-len and --output-len do not apply to --trace");
    source = "trace " + o.trace_file;
    return sim::load_trace(o.trace_file);
  }
  if (!o.poisson.empty()) {
    const sim::PoissonSpec spec = poisson_spec(o);
    source = fmt::format("poisson rate {}/s, {} requests, seed {}", spec.rate_per_s, spec.num_requests, spec.seed);
    return sim::poisson_trace(spec);
  }
  const int prompt = fixed_length(o.prompt_len, 500, "--prompt-len");
  const int output = fixed_length(o.output_len, 12800, "--output-len");
  source = fmt::format("latency experiment: prompt {}, output {}", prompt, output);
  return sim::latency_experiment_trace(prompt, output);
}

}  // namespace

int simulate_command(const SimulateOptions& o) {
  const sim::ModelConfig config = sim::model_config_for(o.model_file);
  std::string source;
  const std::vector<sim::Request> trace = trace_of(o, source);
  if (!o.write_trace_path.empty()) sim::write_trace(o.write_trace_path, trace);
  std::unique_ptr<sim::StepTimer> timer;
  std::string predicted_arch;  // the arch the parameter file names
  if (!o.predict_arch.empty()) {
    const model::HardwareModel hw = model::hardware_model_for(o.predict_arch);
    predicted_arch = hw.arch;
    timer = sim::make_predicted_step_timer(config, hw);
  } else {
    sim::KernelTimerOptions timer_options;
    timer_options.warmup = o.warmup;
    timer_options.runs = o.runs;
    timer_options.seed = o.seed;
    timer_options.graph_replay = o.graph_replay;
    if (!o.variant.empty()) timer_options.variant = parse_variant(o.variant);
    timer = sim::make_kernel_step_timer(config, timer_options);
  }
  const sim::SimulationResult result = sim::simulate(config, trace, *timer);
  fmt::print("{}\n", source);
  if (!o.predict_arch.empty())
    fmt::print("PREDICTION: attention times below are the hardware model's, not measurements\n");
  print_simulation(result, config, timer->description(), o.rows);
  if (!o.json_path.empty())
    write_simulation_json(o.json_path, result, config, timer->description(), source, predicted_arch);
  return kSuccess;
}

}  // namespace kattn::cli
