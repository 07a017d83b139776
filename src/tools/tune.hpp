// `kattn tune`: the autotuner (paper section 5; docs/cli.md, docs/tuning-tables.md). `sweep` times
// the plan space on the scenario's batches and keeps the raw results; `fit` turns raw results into
// the decision tree of data/tuning/<arch>.json.
#pragma once

#include <string>
#include <vector>

namespace kattn::cli {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> only_cases;  // empty = every case
  std::string space;                    // empty = default_search_space()
  std::string out;                      // raw results JSON
  int warmup = 2;
  int runs = 10;
  double prune = 3.0;  // stop timing a plan whose first run takes this many times the sample's best
  bool check_values = true;
  std::string commit;
  std::string command;  // the command line, for the provenance
};

struct FitOptions {
  std::vector<std::string> raw;  // raw results of one or more sweeps
  std::string arch;              // empty = build_arch()
  std::string out;               // tuning table JSON
  int max_depth = 4;
  int min_leaf = 2;
  int folds = 5;
  std::string command;
};

int tune_sweep_command(const SweepOptions& options);
int tune_fit_command(const FitOptions& options);
// Both, into out_dir/raw.json and out_dir/<arch>.json.
int tune_command(SweepOptions sweep, FitOptions fit, const std::string& out_dir);

}  // namespace kattn::cli
