// `kattn model calibrate` (docs/hardware-model.md): fits the hardware model's free parameters
// (efficiencies and overheads) on the kattn results of bench JSON, with the plans the runs
// recorded (apart or fused), and reports the relative error on the cases it did not fit, on kernel
// time and on the call. `--timing kernel` fits the device part on each case's median kernel time
// (device events: no host stalls) and host_us on the calls apart; `--timing call` fits all on the call.
#include "kattn/core/dtype.hpp"
#include "kattn/core/error.hpp"
#include "kattn/io/json_file.hpp"
#include "kattn/simulation/hardware_model.hpp"
#include "tools/commands.hpp"
#include "tools/simulate.hpp"
#include "tools/simulate_report.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace kattn::cli {
namespace {

enum class Timing { kernel, call };

struct Sample {
  std::string file, name;
  model::BatchShape batch;
  CallPlan plans;
  double call_us = 0;    // median_us: host call to completion of attention()
  double kernel_us = 0;  // kernel_median_us: device events around the planned run(), its kernels and gaps
  bool fit = false;
};

// kattn's results of a bench JSON with the plan each run recorded.
std::vector<Sample> samples_of(const std::string& path, const model::HardwareModel& hw, const std::string& fit_marker) {
  const nlohmann::json j = read_json_file(path, "the bench results");
  std::vector<Sample> out;
  try {
    std::map<std::string, const nlohmann::json*> cases;
    for (const nlohmann::json& c : j.at("cases")) cases[c.at("name").get<std::string>()] = &c;
    for (const nlohmann::json& r : j.at("results")) {
      if (!r.contains("median_us") || !r.at("median_us").is_number()) continue;
      const nlohmann::json& c = *cases.at(r.at("case").get<std::string>());
      Sample s;
      s.file = path;
      s.name = r.at("case").get<std::string>() + "/" + r.at("dtype").get<std::string>();
      model::BatchShape& b = s.batch;
      b.query_lens = c.at("query_lens").get<std::vector<int>>();
      b.seq_lens = c.at("seq_lens").get<std::vector<int>>();
      b.num_q_heads = c.at("num_q_heads").get<int>();
      b.num_kv_heads = c.at("num_kv_heads").get<int>();
      b.head_size = c.at("head_size").get<int>();
      b.block_size = c.at("block_size").get<int>();
      b.window_left = c.at("spec").value("window_left", -1);
      b.dtype = parse_dtype(r.at("dtype").get<std::string>());
      // The plan the run recorded; the leading decodes' plan (not recorded) as the model plans it.
      const int apart = r.at("decodes_apart").get<int>();
      s.plans = model::target_call_plan(b, hw, apart > 0);
      LaunchPlan& p = s.plans.main;
      p.variant = parse_variant(r.at("variant").get<std::string>());
      p.tile_size = r.at("tile_size").get<int>();
      p.block_m = r.at("block_m").get<int>();
      p.num_segments = r.at("num_segments").get<int>();
      p.team_size = r.at("team_size").get<int>();
      p.vector_length = r.at("vector_length").get<int>();
      p.grid_teams = r.at("grid_teams").get<int>();
      p.tensor_cores = r.at("tensor_cores").get<bool>();
      p.register_rows = r.at("register_rows").get<bool>();
      p.warpgroup_products = r.value("warpgroup_products", false);  // runs before the warpgroup products
      p.deep_tiles = r.value("deep_tiles", false);                  // runs before the double buffers
      p.decodes_apart = apart;
      if (p.decodes_apart == 0) s.plans.decodes.reset();
      if (p.decodes_apart > 0 && !s.plans.decodes) {
        fmt::print(stderr, "skipping {}: the run split off decodes the model's planner does not\n", s.name);
        continue;
      }
      s.call_us = r.at("median_us").get<double>();
      s.kernel_us = r.at("kernel_median_us").get<double>();
      s.fit = !fit_marker.empty() && s.name.find(fit_marker) != std::string::npos;
      out.push_back(std::move(s));
    }
  } catch (const FileFormatError&) {
    throw;
  } catch (const std::exception& e) {
    throw FileFormatError(path, std::string("not a kattn bench JSON: ") + e.what());
  }
  return out;
}

// The model's time of a sample on `timing`: kernel time is the call without its host overhead.
double predicted_us(const Sample& s, const model::HardwareModel& hw, Timing timing) {
  const double call = model::predict_call_us(s.plans, s.batch, hw);
  return timing == Timing::kernel ? call - hw.host_us : call;
}

double measured_us(const Sample& s, Timing timing) { return timing == Timing::kernel ? s.kernel_us : s.call_us; }

double log_error(const std::vector<Sample>& samples, const model::HardwareModel& hw, Timing timing) {
  double sum = 0;
  int n = 0;
  for (const Sample& s : samples)
    if (s.fit) {
      const double e = std::log(predicted_us(s, hw, timing) / measured_us(s, timing));
      sum += e * e;
      ++n;
    }
  return n ? sum / n : 0.0;
}

// The free parameters, in the order fit() and the file's fields take them; shares are kept in (0, 1].
constexpr int kFreeParameters = 10;
constexpr const char* kFreeNames[kFreeParameters] = {
    "mem_efficiency", "tensor_efficiency", "vector_efficiency", "team_gb_per_s", "launch_us",
    "reduction_us",   "item_us",           "partition_us",      "host_us",       "parts_overlap"};
constexpr bool kShare[kFreeParameters] = {true, true, true, false, false, false, false, false, false, true};
std::array<double*, kFreeParameters> free_parameters(model::HardwareModel& hw) {
  return {&hw.mem_efficiency, &hw.tensor_efficiency, &hw.vector_efficiency, &hw.team_gb_per_s, &hw.launch_us,
          &hw.reduction_us,   &hw.item_us,           &hw.partition_us,      &hw.host_us,       &hw.parts_overlap};
}

// Coordinate descent in log space on the free parameters, on kernel time those of the device part.
// host_us is then the median over the fitted cases of call minus predicted device time: a call
// that stalled on the host moves a median by one rank, not by its stall.
model::HardwareModel fit(const std::vector<Sample>& samples, model::HardwareModel hw, Timing timing) {
  const auto params = free_parameters(hw);
  double best = log_error(samples, hw, timing);
  for (double step = 1.0; step > 1e-3; step /= 2) {
    for (bool improved = true; improved;) {
      improved = false;
      for (int k = 0; k < kFreeParameters; ++k) {
        if (timing == Timing::kernel && params[k] == &hw.host_us) continue;  // fitted on the calls below
        for (double factor : {1 + step, 1 / (1 + step)}) {
          const double old = *params[k];
          double next = std::max(old, 0.01) * factor;
          if (kShare[k]) next = std::min(next, 1.0);
          *params[k] = next;
          const double e = log_error(samples, hw, timing);
          if (e < best - 1e-12) {
            best = e;
            improved = true;
          } else {
            *params[k] = old;
          }
        }
      }
    }
  }
  if (timing == Timing::kernel) {
    std::vector<double> host;
    for (const Sample& s : samples)
      if (s.fit) host.push_back(s.call_us - predicted_us(s, hw, Timing::kernel));
    hw.host_us = std::max(0.0, distribution(host).median);
  }
  return hw;
}

// Whether a fitted case depends on free parameter k: halving it moves some fitted call's prediction.
bool identified(const std::vector<Sample>& samples, const model::HardwareModel& hw, int k) {
  model::HardwareModel probe = hw;
  *free_parameters(probe)[k] *= 0.5;
  return std::any_of(samples.begin(), samples.end(), [&](const Sample& s) {
    return s.fit && std::abs(predicted_us(s, probe, Timing::call) / predicted_us(s, hw, Timing::call) - 1) > 1e-12;
  });
}

struct ErrorSummary {
  int n = 0;
  double median = 0, max = 0;
  std::string worst;
};

ErrorSummary summarize(const std::vector<Sample>& samples, const model::HardwareModel& hw, Timing timing, bool fitted,
                       const std::string& file = "") {
  ErrorSummary e;
  std::vector<double> errors;
  for (const Sample& s : samples)
    if (s.fit == fitted && (file.empty() || s.file == file)) {
      errors.push_back(std::abs(predicted_us(s, hw, timing) / measured_us(s, timing) - 1));
      if (errors.back() >= e.max) {
        e.max = errors.back();
        e.worst = s.name;
      }
    }
  e.n = int(errors.size());
  e.median = distribution(errors).median;
  return e;
}

}  // namespace

int model_calibrate_command(const CalibrateOptions& o) {
  const Timing timing = o.timing == "call" ? Timing::call : Timing::kernel;
  const model::HardwareModel start = model::load_hardware_model(o.hardware);
  std::vector<Sample> samples = samples_of(o.suite, start, o.calibrate_on);
  for (const std::string& h : o.holdout) {
    std::vector<Sample> more = samples_of(h, start, "");  // held out whole
    samples.insert(samples.end(), more.begin(), more.end());
  }
  if (std::none_of(samples.begin(), samples.end(), [](const Sample& s) { return s.fit; }))
    throw std::invalid_argument("no suite case name contains '" + o.calibrate_on + "': nothing to fit");
  model::HardwareModel hw = fit(samples, start, timing);
  const auto fitted = free_parameters(hw);
  fmt::print("fitted on {} cases of {} (names containing '{}'), {}:\n ", summarize(samples, hw, timing, true).n,
             o.suite, o.calibrate_on,
             timing == Timing::kernel
                 ? "timing kernel: the device part on kernel time, host_us the median call minus it"
                 : "timing call: all on the host call");
  for (int k = 0; k < kFreeParameters; ++k) fmt::print(" {} {:.4f}", kFreeNames[k], *fitted[k]);
  fmt::print("\n");
  // Both timings, whichever was fitted: kernel time against the model without host_us, the call
  // against the whole model.
  fmt::print("relative error |predicted / measured - 1| (kernel: kernel_median_us, call: median_us):\n");
  std::size_t width = ("calibration: " + o.suite).size();  // the set column takes the longest path
  for (const std::string& h : o.holdout) width = std::max(width, ("held out: " + h).size());
  fmt::print("  {:<{}} {:>6} {:>5} {:>8} {:>8}  worst\n", "set", width, "timing", "cases", "median", "max");
  nlohmann::json report = nlohmann::json::array();
  auto rows = [&](const std::string& label, bool fitted_cases, const std::string& file) {
    for (Timing t : {Timing::kernel, Timing::call}) {
      const std::string name = t == Timing::kernel ? "kernel" : "call";
      const ErrorSummary e = summarize(samples, hw, t, fitted_cases, file);
      fmt::print("  {:<{}} {:>6} {:>5} {:>7.1f}% {:>7.1f}%  {}\n", label, width, name, e.n, 100 * e.median, 100 * e.max,
                 e.worst);
      report.push_back(
          {{"set", label}, {"timing", name}, {"cases", e.n}, {"median", e.median}, {"max", e.max}, {"worst", e.worst}});
    }
  };
  rows("calibration: " + o.suite, true, "");
  rows("held out: " + o.suite, false, o.suite);
  for (const std::string& h : o.holdout) rows("held out: " + h, false, h);
  fmt::print("per held-out case of the extra files (µs, measured / predicted):\n");
  for (const Sample& s : samples)
    if (s.file != o.suite)
      fmt::print("  {:<40} kernel {:>9.1f} / {:>9.1f}   call {:>9.1f} / {:>9.1f}\n", s.name, s.kernel_us,
                 predicted_us(s, hw, Timing::kernel), s.call_us, predicted_us(s, hw, Timing::call));

  if (!o.out.empty()) {
    nlohmann::json file = read_json_file(o.hardware, "the hardware model file");
    const nlohmann::json suite = read_json_file(o.suite, "the bench results");
    const std::string provenance = fmt::format(
        "calibrated by kattn model calibrate on {} ({}, {}, kattn commit {}), cases containing '{}', timing {}",
        o.suite, suite.value("device", "?"), suite.value("date", "?"), suite.value("commit", "?"), o.calibrate_on,
        o.timing);
    file["free_parameters"] = provenance;
    for (int k = 0; k < kFreeParameters; ++k)
      file[kFreeNames[k]] = {
          {"value", std::round(*fitted[k] * 1e4) / 1e4},
          {"source", identified(samples, hw, k) ? provenance
                                                : "not identified by the calibration (no fitted case depends on it): "
                                                  "kept from the starting file, assumed"}};
    file["calibration_error"] = report;
    write_json_file(o.out, file, 2, "the parameter file");
    fmt::print("wrote {}\n", o.out);
  }
  return kSuccess;
}

}  // namespace kattn::cli
