// `kattn tune sweep`: every plan of the search space timed on every sample of a scenario.
#include "kattn/harness/device_problem.hpp"
#include "kattn/io/builtin_data.hpp"
#include "kattn/io/json_file.hpp"
#include "kattn/tuning/tuning_table.hpp"
#include "kattn/workload/generator.hpp"
#include "tools/bench_hardware.hpp"
#include "tools/bench_report.hpp"
#include "tools/commands.hpp"
#include "tools/timing.hpp"
#include "tools/tune.hpp"
#include "tools/tune_samples.hpp"
#include "tools/tune_space.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>

namespace kattn::cli {
namespace {

using Clock = std::chrono::steady_clock;

// The plan that ran, as the planner fitted it, where it came from, and the leading decodes it ran
// apart (a split call's main plan can equal a fused call's).
nlohmann::json plan_json(const LaunchPlan& p) {
  nlohmann::json plan = launch_plan_json(p);
  plan["source"] = p.source;
  plan["decodes_apart"] = p.decodes_apart;
  return plan;
}

nlohmann::json timing_json(const Timing& t, std::size_t runs) {
  return {{"mean_us", t.mean_us}, {"min_us", t.min_us}, {"stddev_us", t.stddev_us}, {"runs", runs}};
}

// "35 s", "2m10s", "1h02m".
std::string duration_text(double seconds) {
  const long s = long(seconds + 0.5);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

// The timings of one sample, as they accrue: each plan's kernel time (its run(), planned once from
// the sample's metadata, timed by `clock` as kattn bench's kernel_*), the measure of the targets.
class SampleSweep {
 public:
  SampleSweep(const SweepOptions& o, const BatchMetadata& batch, KernelClock& clock)
      : o_(o), batch_(batch), clock_(clock) {}

  // Times one plan: `overrides` null for the references (planned, untuned). A plan the planner
  // fits into one already timed is not timed again but recorded with that plan's times.
  template <class Device>
  void time_plan(const Device& d, const AttentionOptions& options, const std::string& status,
                 const nlohmann::json& overrides) {
    nlohmann::json result{{"status", status}};
    if (!overrides.is_null()) result["overrides"] = overrides;
    LaunchPlan plan;
    try {
      warm_up(d, options, 1, plan);  // plans the call, or throws for a plan it cannot run
      result["plan"] = plan_json(plan);
      nlohmann::json fitted = result["plan"];
      fitted.erase("source");  // the same plan, whichever table proposed it
      const std::string key = fitted.dump();
      const auto repeat = timed_.find(key);
      if (repeat != timed_.end() && !overrides.is_null()) {
        const nlohmann::json& earlier = results_[repeat->second];
        for (const char* field : {"mean_us", "min_us", "stddev_us", "runs"}) result[field] = earlier[field];
        result["status"] = earlier["status"] == "pruned" ? "pruned" : "ok";
        result["same_plan_as"] = earlier.value("overrides", nlohmann::json(earlier["status"]));
        ++repeats_;
        return record(result, overrides);
      }
      timed_.emplace(key, results_.size());
      const AttentionPlan planned = plan_attention(d.inputs, d.params, batch_, workspace_, options);
      const auto run_once = [&] { run(planned, d.inputs, d.out, space_); };
      for (int i = 1; i < o_.warmup; ++i) run_once();
      std::vector<double> runs{clock_.time_us(run_once)};
      if (runs.front() > o_.prune * best_us_) {
        result["status"] = "pruned";
      } else {
        for (int i = 1; i < o_.runs; ++i) runs.push_back(clock_.time_us(run_once));
      }
      result.update(timing_json(summarize(runs), runs.size()));
    } catch (const std::exception& e) {
      result["status"] = "rejected";
      result["error"] = e.what();
    }
    record(result, overrides);
  }

  nlohmann::json results() const { return results_; }

  // "41 plans (9 pruned), best split_kv tile 256 team 8 = 206.1 us, planned 230.4 us"
  std::string summary() const {
    std::vector<std::string> notes;
    if (pruned_) notes.push_back(fmt::format("{} pruned", pruned_));
    if (rejected_) notes.push_back(fmt::format("{} rejected", rejected_));
    if (repeats_) notes.push_back(fmt::format("{} fitted into another", repeats_));
    std::string joined;
    for (const std::string& n : notes) joined += (joined.empty() ? " (" : ", ") + n;
    return fmt::format("{} plans{}, best {} = {:.1f} us, planned {}", candidates_, joined.empty() ? "" : joined + ")",
                       best_candidate_.is_null() ? "none" : describe_plan(best_candidate_), best_candidate_us_,
                       planned_us_ ? fmt::format("{:.1f} us", planned_us_) : "rejected");
  }

 private:
  void record(const nlohmann::json& result, const nlohmann::json& overrides) {
    const std::string status = result["status"];
    if (!overrides.is_null()) {
      ++candidates_;
      pruned_ += status == "pruned";
      rejected_ += status == "rejected";
    }
    if (result.contains("mean_us") && status != "pruned") {
      const double mean = result["mean_us"];
      best_us_ = std::min(best_us_, mean);
      if (status == "planned") planned_us_ = mean;
      if (!overrides.is_null() && mean < best_candidate_us_) {
        best_candidate_us_ = mean;
        best_candidate_ = overrides;
      }
    }
    results_.push_back(result);
  }

  const SweepOptions& o_;
  const BatchMetadata& batch_;
  KernelClock& clock_;
  ExecutionSpace space_;
  Workspace workspace_;
  nlohmann::json results_ = nlohmann::json::array();
  std::map<std::string, std::size_t> timed_;  // plan that ran → its result
  double best_us_ = std::numeric_limits<double>::infinity();
  double best_candidate_us_ = std::numeric_limits<double>::infinity();
  nlohmann::json best_candidate_;
  double planned_us_ = 0.0;
  int candidates_ = 0, pruned_ = 0, rejected_ = 0, repeats_ = 0;
};

struct ScenarioSample {
  WorkloadSpec spec;
  TuneSample sample;
};

// The cases of every scenario file in `paths` (comma separated), in order.
std::vector<WorkloadSpec> load_scenarios(const std::string& paths) {
  std::vector<WorkloadSpec> specs;
  std::size_t begin = 0;
  while (begin <= paths.size()) {
    const std::size_t end = std::min(paths.find(',', begin), paths.size());
    for (WorkloadSpec& spec : load_scenario(paths.substr(begin, end - begin))) specs.push_back(std::move(spec));
    begin = end + 1;
  }
  return specs;
}

std::vector<ScenarioSample> scenario_samples(const SweepOptions& o) {
  std::vector<ScenarioSample> samples;
  std::vector<std::string> unmatched = o.only_cases;
  for (const WorkloadSpec& spec : load_scenarios(o.scenario)) {
    const std::string base = scenario_case(spec.name, std::string(to_string(spec.dtype)));
    auto matches = [&](const std::string& name) { return name == spec.name || name == base; };
    if (!o.only_cases.empty() && std::none_of(o.only_cases.begin(), o.only_cases.end(), matches)) continue;
    unmatched.erase(std::remove_if(unmatched.begin(), unmatched.end(), matches), unmatched.end());
    BatchSpec batch = draw_batch(spec);
    batch.with_values = false;
    for (TuneSample& sample : tune_samples(spec.name, generate_batch(batch)))
      samples.push_back({spec, std::move(sample)});
  }
  if (!unmatched.empty()) throw std::invalid_argument(o.scenario + ": no case named '" + unmatched.front() + "'");
  return samples;
}

nlohmann::json features_json(const TuneSample& sample) {
  nlohmann::json features = nlohmann::json::object();
  for (const std::string& name : batch_feature_names())
    features[name] = batch_feature(name, sample.batch, sample.problem.geometry);
  return features;
}

}  // namespace

int tune_sweep_command(const SweepOptions& o) {
  if (o.prune <= 1.0) throw std::invalid_argument("--prune " + std::to_string(o.prune) + " must be more than 1");
  const std::string space_path = o.space.empty() ? default_search_space() : o.space;
  const char* builtin = o.space.empty() ? builtin_data(space_path) : nullptr;  // the default is compiled in
  const SearchSpace space = builtin ? parse_search_space(builtin, space_path) : load_search_space(space_path);
  const std::vector<ScenarioSample> samples = scenario_samples(o);
  nlohmann::json doc{{"schema", "kattn-tune-raw"},
                     {"schema_version", 1},
                     {"complete", false},
                     {"backend", ExecutionSpace::name()},
                     {"arch", std::string(build_arch())},
                     {"device", device_name()},
                     {"date", today()},
                     {"commit", o.commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.commit)},
                     {"command", o.command},
                     {"scenario", o.scenario},
                     {"space", space_path},
                     {"space_defaults", space.defaults},
                     {"warmup", o.warmup},
                     {"runs", o.runs},
                     {"prune", o.prune},
                     {"check_values", o.check_values},
                     {"timing",
                      "kernel time: device events around the plan's run() (planned once), the L2 flushed "
                      "before each run by writing 256 MiB (as kattn bench's kernel_*)"},
                     {"features", batch_feature_names()},
                     {"samples", nlohmann::json::array()}};
  fmt::print(stderr, "kattn tune sweep {} on {} ({}): {} samples, space {}\n", o.scenario, ExecutionSpace::name(),
             build_arch(), samples.size(), space_path);
  KernelClock clock{ExecutionSpace()};
  const Clock::time_point start = Clock::now();
  Clock::time_point last_write = start;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const WorkloadSpec& spec = samples[i].spec;
    const TuneSample& sample = samples[i].sample;
    const HostProblem& p = sample.problem;
    SampleSweep sweep(o, sample.batch, clock);
    dispatch_storage(p.dtype, p.kv_dtype(), p.out_dtype(), [&](auto q, auto cache, auto out) {
      const auto device = synthesize_problem<decltype(q), decltype(cache), decltype(out)>(p, spec.seed);
      AttentionOptions reference;
      reference.check_values = o.check_values;
      sweep.time_plan(device, reference, "planned", nullptr);
      // A whole mixed batch: run apart (each part on the build's table, as the parts' samples fit
      // it) or fused in one launch of each plan of the space.
      const bool whole_mixed = sample.part == "whole" && sample.batch.decodes_lead();
      if (whole_mixed) {
        AttentionOptions split = reference;
        split.split_decodes = true;
        sweep.time_plan(device, split, "ok", {{"split_decodes", true}});
      }
      reference.untuned = true;
      sweep.time_plan(device, reference, "untuned", nullptr);
      for (nlohmann::json overrides : space.plans_for(sample.batch, p.geometry)) {
        if (whole_mixed) overrides["split_decodes"] = false;
        const TuningTable table = plan_table(space.defaults, overrides, space_path);
        AttentionOptions options;
        options.tuning_table = &table;
        options.check_values = o.check_values;
        sweep.time_plan(device, options, "ok", overrides);
      }
    });
    doc["samples"].push_back({{"name", sample.name},
                              {"case", spec.name},
                              {"dtype", std::string(to_string(spec.dtype))},
                              {"part", sample.part},
                              {"num_seqs", p.geometry.num_seqs},
                              {"num_tokens", p.geometry.num_tokens},
                              {"features", features_json(sample)},
                              {"results", sweep.results()}});
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const std::string dtype(to_string(spec.dtype));
    const bool named_with_dtype = scenario_case(spec.name, dtype) != spec.name;
    fmt::print(stderr, "[{}/{}] {}: {}, {} elapsed, ~{} left\n", i + 1, samples.size(),
               named_with_dtype ? sample.name : sample.name + " " + dtype, sweep.summary(), duration_text(elapsed),
               duration_text(elapsed / double(i + 1) * double(samples.size() - i - 1)));
    if (Clock::now() - last_write > std::chrono::seconds(30)) {  // a cut-off sweep keeps what it timed
      write_json_file(o.out, doc, 1, "the raw results");
      last_write = Clock::now();
    }
  }
  doc["complete"] = true;
  write_json_file(o.out, doc, 1, "the raw results");
  fmt::print(stderr, "wrote {} samples to {}\n", samples.size(), o.out);
  return kSuccess;
}

}  // namespace kattn::cli
