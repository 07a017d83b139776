// The fitting half of `kattn tune`: raw sweep results → costs → decision tree → tuning table
// (docs/tuning-tables.md#fitting).
#pragma once

#include "tools/tune.hpp"
#include "tools/tune_tree.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kattn::cli {

// The samples of one or more raw result files, with their costs under every candidate plan.
struct TuneData {
  CostMatrix costs;
  std::vector<nlohmann::json> plans;                // each candidate's override set, by plan index
  std::vector<std::string> names;                   // "<case>[part]" per sample
  std::vector<std::string> groups;                  // the scenario case per sample: cross-validation keeps it whole
  std::vector<double> untuned_cost;                 // ln(untuned time / best) per sample; NaN where not timed
  std::vector<double> planned_cost;                 // the same for the table the sweep's build had
  nlohmann::json space_defaults;                    // what the override sets go over
  nlohmann::json sweeps = nlohmann::json::array();  // provenance of each file
  int skipped = 0;                                  // samples without a single timed candidate
};

// Cost of a sample under a plan: ln(t / t_best); a pruned plan at least ln(prune); a rejected or
// untimed one 2 ln(prune). `origins` name the documents in errors.
TuneData tune_data(const std::vector<nlohmann::json>& raw, const std::vector<std::string>& origins);

// Geometric mean and maximum of exp(cost) over the costs that are not NaN.
struct Slowdown {
  double geomean = 0.0;
  double max = 0.0;
  int samples = 0;
};
Slowdown slowdown_of(const std::vector<double>& costs);

struct FitResult {
  FittedTree tree;
  nlohmann::ordered_json table;  // a tuning table (docs/tuning-tables.md#format)
  Slowdown in_sample, cross_validated, untuned, planned;
  int folds = 0;  // 0: too few cases to cross-validate
};

FitResult fit_table(const TuneData& data, const FitOptions& options);

}  // namespace kattn::cli
