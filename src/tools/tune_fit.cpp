#include "tools/tune_fit.hpp"

#include "kattn/core/error.hpp"
#include "kattn/io/json_file.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn/tuning/tuning_table.hpp"
#include "tools/commands.hpp"
#include "tools/timing.hpp"
#include "tools/tune_samples.hpp"
#include "tools/tune_space.hpp"

#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace kattn::cli {
namespace {

constexpr double kNotTimed = std::numeric_limits<double>::quiet_NaN();

nlohmann::json read_raw(const std::string& path) {
  nlohmann::json doc = read_json_file(path, "the raw results");
  if (!doc.is_object() || doc.value("schema", "") != "kattn-tune-raw")
    throw FileFormatError(path, "not raw results of kattn tune sweep: schema is not kattn-tune-raw");
  return doc;
}

// The plan a leaf names: its fields that differ from the table's defaults, in table order.
nlohmann::ordered_json leaf_plan(const nlohmann::json& plan, const nlohmann::json& defaults) {
  nlohmann::ordered_json leaf = nlohmann::ordered_json::object();
  for (const std::string& field : plan_field_names())
    if (plan[field] != defaults[field]) leaf[field] = plan[field];
  return leaf;
}

nlohmann::ordered_json tree_json(const TuneData& data, const FittedTree& tree, int index,
                                 const nlohmann::json& defaults) {
  const TreeNode& node = tree.nodes[std::size_t(index)];
  if (node.feature < 0)
    return {{"name", node.name},
            {"samples", node.samples.size()},
            {"plan", leaf_plan(full_plan(data.space_defaults, data.plans[std::size_t(node.plan)]), defaults)}};
  return {{"if", {{"feature", data.costs.features[std::size_t(node.feature)]}, {"at_most", node.at_most}}},
          {"then", tree_json(data, tree, node.then_node, defaults)},
          {"else", tree_json(data, tree, node.else_node, defaults)}};
}

nlohmann::ordered_json slowdown_json(const Slowdown& s) {
  return {{"geomean", s.geomean}, {"max", s.max}, {"samples", s.samples}};
}

// Held-out cost per sample: folds of whole scenario cases, each predicted by a tree fitted on the others.
std::vector<double> cross_validated_costs(const TuneData& data, const TreeLimits& limits, int folds) {
  const std::set<std::string> unique(data.groups.begin(), data.groups.end());
  std::map<std::string, int> fold_of;
  for (const std::string& group : unique) fold_of.emplace(group, int(fold_of.size()) % folds);
  std::vector<double> costs(data.names.size(), kNotTimed);
  for (int fold = 0; fold < folds; ++fold) {
    std::vector<int> train;
    for (std::size_t s = 0; s < data.names.size(); ++s)
      if (fold_of[data.groups[s]] != fold) train.push_back(int(s));
    const FittedTree tree = fit_tree(data.costs, train, limits);
    for (std::size_t s = 0; s < data.names.size(); ++s)
      if (fold_of[data.groups[s]] == fold)
        costs[s] = data.costs.cost[s][std::size_t(tree.plan_for(data.costs.values[s]))];
  }
  return costs;
}

void print_summary(const TuneData& data, const FitResult& fit) {
  fmt::print("{} samples, {} plans{}\n", data.names.size(), data.plans.size(),
             data.skipped ? fmt::format(" ({} samples without a timed plan left out)", data.skipped) : "");
  int leaves = 0;
  for (const TreeNode& node : fit.tree.nodes)
    if (node.feature < 0) {
      ++leaves;
      const double mean_cost = summed_cost(data.costs, node.samples, node.plan) / double(node.samples.size());
      fmt::print("  {:<48} {:>4} samples {:>7.3f}x  {}\n", node.name, node.samples.size(), std::exp(mean_cost),
                 describe_plan(data.plans[std::size_t(node.plan)]));
    }
  fmt::print("{} leaves; slowdown against each sample's best plan (geometric mean / max):\n", leaves);
  auto line = [](const char* label, const Slowdown& s) {
    if (s.samples == 0) return fmt::print("  {:<28} -\n", label);
    fmt::print("  {:<28} {:.3f}x / {:.2f}x ({} samples)\n", label, s.geomean, s.max, s.samples);
  };
  line("tuned, in sample", fit.in_sample);
  line(fit.folds ? fmt::format("tuned, {}-fold held out", fit.folds).c_str() : "tuned, held out", fit.cross_validated);
  line("untuned defaults", fit.untuned);
  line("table of the sweep's build", fit.planned);
}

}  // namespace

TuneData tune_data(const std::vector<nlohmann::json>& raw, const std::vector<std::string>& origins) {
  TuneData data;
  data.costs.features = batch_feature_names();
  std::map<std::string, int> plan_index;  // override set (dumped) → plan
  struct Timed {
    std::map<int, std::pair<std::string, double>> plans;  // plan → (status, mean µs)
    double untuned = kNotTimed, planned = kNotTimed, prune = 3.0;
  };
  std::vector<Timed> timed;
  for (std::size_t f = 0; f < raw.size(); ++f) {
    const nlohmann::json& doc = raw[f];
    nlohmann::json space_defaults = doc.at("space_defaults");
    if (!space_defaults.contains("split_decodes")) space_defaults["split_decodes"] = true;  // sweeps before the field
    if (f == 0) data.space_defaults = space_defaults;
    if (space_defaults != data.space_defaults)
      throw std::invalid_argument(origins[f] + ": its space defaults differ from " + origins[0] + "'s");
    data.sweeps.push_back({{"file", origins[f]},
                           {"device", doc.value("device", "")},
                           {"date", doc.value("date", "")},
                           {"commit", doc.value("commit", nlohmann::json())},
                           {"command", doc.value("command", "")},
                           {"complete", doc.value("complete", false)}});
    const double prune = doc.at("prune").get<double>();
    for (const nlohmann::json& sample : doc.at("samples")) {
      Timed t;
      t.prune = prune;
      // The fastest timed plan; where every plan was pruned (another timing, such as the build's
      // table, set a bar none reached), the fastest single run of a pruned one.
      double best = std::numeric_limits<double>::infinity(), best_pruned = best;
      for (const nlohmann::json& r : sample.at("results")) {
        const std::string status = r.at("status");
        const double mean = r.contains("mean_us") ? r["mean_us"].get<double>() : kNotTimed;
        if (status == "untuned") t.untuned = mean;
        if (status == "planned") t.planned = mean;
        if (!r.contains("overrides")) continue;
        const std::string key = r["overrides"].dump();
        if (!plan_index.count(key)) {
          plan_index.emplace(key, int(data.plans.size()));
          data.plans.push_back(r["overrides"]);
        }
        t.plans[plan_index[key]] = {status, mean};
        if (status == "ok") best = std::min(best, mean);
        if (status == "pruned") best_pruned = std::min(best_pruned, mean);
      }
      if (!std::isfinite(best)) best = best_pruned;
      if (!std::isfinite(best)) {
        ++data.skipped;
        continue;
      }
      std::vector<double> values;
      for (const std::string& name : data.costs.features)
        values.push_back(sample.at("features").at(name).get<double>());
      data.costs.values.push_back(values);
      data.names.push_back(sample.at("name").get<std::string>());
      data.groups.push_back(scenario_case(sample.at("case").get<std::string>(), sample.at("dtype").get<std::string>()));
      data.untuned_cost.push_back(std::log(t.untuned / best));
      data.planned_cost.push_back(std::log(t.planned / best));
      timed.push_back(t);
      for (auto& [plan, result] : timed.back().plans)
        if (result.first == "ok" || result.first == "pruned") result.second = std::log(result.second / best);
    }
  }
  // The result that stands for `plan` on a sample. split_decodes only matters for a whole mixed
  // batch (its sweep timed {"split_decodes": true} and each plan fused): there a plan that does not
  // say false runs apart, as the split candidate did; elsewhere a plan is its fields without it.
  const auto apart = plan_index.find(nlohmann::json{{"split_decodes", true}}.dump());
  const int split_candidate = apart == plan_index.end() ? -1 : apart->second;
  const auto stands_for = [&](const Timed& t, int plan) {
    const nlohmann::json& o = data.plans[std::size_t(plan)];
    const bool whole_mixed = split_candidate >= 0 && t.plans.count(split_candidate);
    if (whole_mixed) return o.value("split_decodes", true) ? split_candidate : plan;
    if (!o.contains("split_decodes")) return plan;
    nlohmann::json fields = o;
    fields.erase("split_decodes");
    const auto found = plan_index.find(fields.dump());
    return found == plan_index.end() ? plan : found->second;
  };
  for (const Timed& t : timed) {
    const double pruned = std::log(t.prune), untimed = 2.0 * std::log(t.prune);
    std::vector<double> cost(data.plans.size(), untimed);
    std::vector<bool> rejected(data.plans.size(), false);
    for (int plan = 0; plan < int(data.plans.size()); ++plan) {
      const auto found = t.plans.find(stands_for(t, plan));
      if (found == t.plans.end()) continue;
      const auto& result = found->second;
      if (result.first == "ok") cost[std::size_t(plan)] = result.second;
      if (result.first == "pruned") cost[std::size_t(plan)] = std::max(result.second, pruned);
      rejected[std::size_t(plan)] = result.first == "rejected";
    }
    data.costs.cost.push_back(cost);
    data.costs.rejected.push_back(rejected);
  }
  if (data.names.empty()) throw std::invalid_argument(origins.front() + ": no sample has a timed plan");
  return data;
}

Slowdown slowdown_of(const std::vector<double>& costs) {
  Slowdown s;
  double sum = 0.0, worst = 0.0;
  for (double c : costs)
    if (!std::isnan(c)) {
      sum += c;
      worst = s.samples ? std::max(worst, c) : c;
      ++s.samples;
    }
  if (s.samples) {
    s.geomean = std::exp(sum / s.samples);
    s.max = std::exp(worst);
  }
  return s;
}

FitResult fit_table(const TuneData& data, const FitOptions& o) {
  if (o.max_depth < 0 || o.min_leaf < 1 || o.folds < 2)
    throw std::invalid_argument(
        fmt::format("--max-depth {} must be at least 0, --min-leaf {} at least 1 and --folds {} "
                    "at least 2",
                    o.max_depth, o.min_leaf, o.folds));
  TreeLimits limits;
  limits.max_depth = o.max_depth;
  limits.min_leaf = o.min_leaf;
  std::vector<int> all(data.names.size());
  for (std::size_t s = 0; s < all.size(); ++s) all[s] = int(s);
  FitResult fit;
  fit.tree = fit_tree(data.costs, all, limits);
  std::vector<double> in_sample;
  for (std::size_t s = 0; s < all.size(); ++s)
    in_sample.push_back(data.costs.cost[s][std::size_t(fit.tree.plan_for(data.costs.values[s]))]);
  fit.in_sample = slowdown_of(in_sample);
  fit.folds = std::min<int>(o.folds, int(std::set<std::string>(data.groups.begin(), data.groups.end()).size()));
  if (fit.folds < 2) fit.folds = 0;
  if (fit.folds) fit.cross_validated = slowdown_of(cross_validated_costs(data, limits, fit.folds));
  fit.untuned = slowdown_of(data.untuned_cost);
  fit.planned = slowdown_of(data.planned_cost);

  const nlohmann::json defaults = full_plan(data.space_defaults, data.plans[std::size_t(fit.tree.root_plan)]);
  nlohmann::ordered_json defaults_json = nlohmann::ordered_json::object();
  for (const std::string& field : plan_field_names()) defaults_json[field] = defaults[field];
  const std::string arch = o.arch.empty() ? std::string(build_arch()) : o.arch;
  fit.table = {
      {"arch", arch},
      {"measured",
       {{"device", data.sweeps.front().value("device", "")},
        {"date", today()},
        {"command", o.command},
        {"sweeps", data.sweeps},
        {"samples", data.names.size()},
        {"plans", data.plans.size()},
        {"fit",
         {{"max_depth", o.max_depth},
          {"min_leaf", o.min_leaf},
          {"min_gain", limits.min_gain},
          {"cost", "ln(time / the sample's best); pruned: at least ln(prune); rejected or untimed: 2 ln(prune)"}}},
        {"slowdown",
         {{"what", "time of the plan over the sample's fastest swept plan: geometric mean and max over the samples"},
          {"tuned_in_sample", slowdown_json(fit.in_sample)},
          {"tuned_held_out", fit.folds ? slowdown_json(fit.cross_validated) : nlohmann::ordered_json(nullptr)},
          {"folds", fit.folds},
          {"untuned", slowdown_json(fit.untuned)},
          {"table_of_the_sweep", slowdown_json(fit.planned)}}}}},
      {"defaults", defaults_json},
      {"tree", tree_json(data, fit.tree, 0, defaults)}};
  return fit;
}

int tune_fit_command(const FitOptions& o) {
  std::vector<nlohmann::json> raw;
  for (const std::string& path : o.raw) raw.push_back(read_raw(path));
  const TuneData data = tune_data(raw, o.raw);
  const FitResult fit = fit_table(data, o);
  TuningTable::parse(fit.table.dump(), o.out);  // what is written loads
  write_json_file(o.out, fit.table, 2, "the tuning table");
  std::string files;
  for (const std::string& path : o.raw) files += (files.empty() ? "" : ", ") + path;
  fmt::print("kattn tune fit {}: leaves with their samples, in-sample slowdown and plan\n", files);
  print_summary(data, fit);
  fmt::print("wrote {}\n", o.out);
  return kSuccess;
}

int tune_command(SweepOptions sweep, FitOptions fit, const std::string& out_dir) {
  std::filesystem::create_directories(out_dir);
  sweep.out = out_dir + "/raw.json";
  fit.raw = {sweep.out};
  fit.out = out_dir + "/" + (fit.arch.empty() ? std::string(build_arch()) : fit.arch) + ".json";
  const int status = tune_sweep_command(sweep);
  return status == kSuccess ? tune_fit_command(fit) : status;
}

}  // namespace kattn::cli
