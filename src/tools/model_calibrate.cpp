// `kattn model calibrate` (docs/hardware-model.md): fits the hardware model's free parameters
// (efficiencies and overheads) on the kattn results of bench JSON, with the plans the runs
// recorded (apart or fused), against each case's median call, and reports the relative error on
// the cases it did not fit.
#include "kattn/core/dtype.hpp"
#include "kattn/core/error.hpp"
#include "kattn/io/json_file.hpp"
#include "kattn/simulation/hardware_model.hpp"
#include "tools/commands.hpp"
#include "tools/simulate.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace kattn::cli {
namespace {

struct Sample {
  std::string file, name;
  model::BatchShape batch;
  CallPlan plans;
  double measured_us = 0;
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
      s.measured_us = r.at("median_us").get<double>();
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

double log_error(const std::vector<Sample>& samples, const model::HardwareModel& hw) {
  double sum = 0;
  int n = 0;
  for (const Sample& s : samples)
    if (s.fit) {
      const double e = std::log(model::predict_call_us(s.plans, s.batch, hw) / s.measured_us);
      sum += e * e;
      ++n;
    }
  return n ? sum / n : 0.0;
}

// The free parameters, in the order fit() and the file's fields take them; shares are kept in (0, 1].
constexpr int kFreeParameters = 7;
constexpr const char* kFreeNames[kFreeParameters] = {
    "mem_efficiency", "tensor_efficiency", "vector_efficiency", "launch_us", "item_us", "host_us", "parts_overlap"};
constexpr bool kShare[kFreeParameters] = {true, true, true, false, false, false, true};
std::array<double*, kFreeParameters> free_parameters(model::HardwareModel& hw) {
  return {&hw.mem_efficiency, &hw.tensor_efficiency, &hw.vector_efficiency, &hw.launch_us,
          &hw.item_us,        &hw.host_us,           &hw.parts_overlap};
}

// Coordinate descent in log space on the free parameters.
model::HardwareModel fit(const std::vector<Sample>& samples, model::HardwareModel hw) {
  const auto params = free_parameters(hw);
  double best = log_error(samples, hw);
  for (double step = 1.0; step > 1e-3; step /= 2) {
    for (bool improved = true; improved;) {
      improved = false;
      for (int k = 0; k < kFreeParameters; ++k)
        for (double factor : {1 + step, 1 / (1 + step)}) {
          const double old = *params[k];
          double next = std::max(old, 0.01) * factor;
          if (kShare[k]) next = std::min(next, 1.0);
          *params[k] = next;
          const double e = log_error(samples, hw);
          if (e < best - 1e-12) {
            best = e;
            improved = true;
          } else {
            *params[k] = old;
          }
        }
    }
  }
  return hw;
}

struct ErrorSummary {
  int n = 0;
  double median = 0, max = 0;
  std::string worst;
};

ErrorSummary summarize(const std::vector<Sample>& samples, const model::HardwareModel& hw, bool fitted,
                       const std::string& file = "") {
  std::vector<std::pair<double, std::string>> errors;
  for (const Sample& s : samples)
    if (s.fit == fitted && (file.empty() || s.file == file))
      errors.push_back({std::abs(model::predict_call_us(s.plans, s.batch, hw) / s.measured_us - 1), s.name});
  ErrorSummary e;
  e.n = int(errors.size());
  if (errors.empty()) return e;
  std::sort(errors.begin(), errors.end());
  e.median = errors.size() % 2 ? errors[errors.size() / 2].first
                               : 0.5 * (errors[errors.size() / 2 - 1].first + errors[errors.size() / 2].first);
  e.max = errors.back().first;
  e.worst = errors.back().second;
  return e;
}

}  // namespace

int model_calibrate_command(const CalibrateOptions& o) {
  const model::HardwareModel start = model::load_hardware_model(o.hardware);
  std::vector<Sample> samples = samples_of(o.suite, start, o.calibrate_on);
  for (const std::string& h : o.holdout) {
    std::vector<Sample> more = samples_of(h, start, "");  // held out whole
    samples.insert(samples.end(), more.begin(), more.end());
  }
  if (std::none_of(samples.begin(), samples.end(), [](const Sample& s) { return s.fit; }))
    throw std::invalid_argument("no suite case name contains '" + o.calibrate_on + "': nothing to fit");
  model::HardwareModel hw = fit(samples, start);
  const auto fitted = free_parameters(hw);
  fmt::print("fitted on {} cases of {} (names containing '{}'):\n ", summarize(samples, hw, true).n, o.suite,
             o.calibrate_on);
  for (int k = 0; k < kFreeParameters; ++k) fmt::print(" {} {:.4f}", kFreeNames[k], *fitted[k]);
  fmt::print("\n");
  fmt::print("relative error |predicted / measured - 1|:\n");
  fmt::print("  {:<60} {:>5} {:>8} {:>8}  worst\n", "set", "cases", "median", "max");
  nlohmann::json report = nlohmann::json::array();
  auto row = [&](const std::string& label, const ErrorSummary& e) {
    fmt::print("  {:<60} {:>5} {:>7.1f}% {:>7.1f}%  {}\n", label, e.n, 100 * e.median, 100 * e.max, e.worst);
    report.push_back({{"set", label}, {"cases", e.n}, {"median", e.median}, {"max", e.max}, {"worst", e.worst}});
  };
  row("calibration: " + o.suite, summarize(samples, hw, true));
  row("held out: " + o.suite, summarize(samples, hw, false, o.suite));
  for (const std::string& h : o.holdout) row("held out: " + h, summarize(samples, hw, false, h));
  fmt::print("per held-out case of the extra files (µs):\n");
  for (const Sample& s : samples)
    if (s.file != o.suite)
      fmt::print("  {:<40} measured {:>9.1f}  predicted {:>9.1f}\n", s.name, s.measured_us,
                 model::predict_call_us(s.plans, s.batch, hw));

  if (!o.out.empty()) {
    nlohmann::json file = read_json_file(o.hardware, "the hardware model file");
    const nlohmann::json suite = read_json_file(o.suite, "the bench results");
    const std::string provenance = fmt::format(
        "calibrated by kattn model calibrate on {} ({}, {}, kattn commit {}), cases containing '{}'", o.suite,
        suite.value("device", "?"), suite.value("date", "?"), suite.value("commit", "?"), o.calibrate_on);
    file["free_parameters"] = provenance;
    for (int k = 0; k < kFreeParameters; ++k) {
      // A parameter no calibration case depends on (halving it leaves the error unchanged) is not fitted.
      model::HardwareModel probe = hw;
      *free_parameters(probe)[k] *= 0.5;
      const bool identified = std::abs(log_error(samples, probe) - log_error(samples, hw)) > 1e-12;
      file[kFreeNames[k]] = {
          {"value", std::round(*fitted[k] * 1e4) / 1e4},
          {"source", identified ? provenance
                                : "not identified by the calibration (no fitted case depends on it): "
                                  "kept from the starting file, assumed"}};
    }
    file["calibration_error"] = report;
    write_json_file(o.out, file, 2, "the parameter file");
    fmt::print("wrote {}\n", o.out);
  }
  return kSuccess;
}

}  // namespace kattn::cli
