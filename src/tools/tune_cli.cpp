#include "tools/tune_cli.hpp"

#include "tools/tune.hpp"

#include <limits>
#include <memory>
#include <stdexcept>

namespace kattn::cli {
namespace {

void add_sweep_options(CLI::App* app, SweepOptions& o) {
  app->add_option("--scenario", o.scenario, "scenario JSON file, or several separated by commas");
  app->add_option("--case", o.only_cases, "sweep only these cases (comma separated; with or without the -dtype)")
      ->delimiter(',');
  app->add_option("--space", o.space,
                  "search space JSON (default: the built-in data/tuning/spaces/gpu.json, host.json on CPUs)");
  app->add_option("--warmup", o.warmup, "untimed runs of each plan (at least one runs: it plans the call)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  app->add_option("--runs", o.runs, "timed runs of each plan")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()))
      ->capture_default_str();
  app->add_option("--prune", o.prune, "stop timing a plan whose first run takes this many times the sample's best")
      ->capture_default_str();
  app->add_flag("!--no-check-values", o.check_values, "time the calls without the host validation of index values");
  app->add_option("--commit", o.commit, "source revision to record");
}

void add_fit_options(CLI::App* app, FitOptions& o) {
  app->add_option("--arch", o.arch, "architecture the table is for (default: this build's)");
  app->add_option("--max-depth", o.max_depth, "tests on a path of the tree at most")->capture_default_str();
  app->add_option("--min-leaf", o.min_leaf, "samples in a leaf at least")->capture_default_str();
  app->add_option("--folds", o.folds, "cross-validation folds (of whole scenario cases)")->capture_default_str();
}

}  // namespace

CLI::App* add_tune_command(CLI::App& app, const std::string& command, std::function<int()>& run) {
  // The options live as long as the parsed app may run them.
  auto sweep = std::make_shared<SweepOptions>();
  auto fit = std::make_shared<FitOptions>();
  auto both_sweep = std::make_shared<SweepOptions>();
  auto both_fit = std::make_shared<FitOptions>();
  auto out_dir = std::make_shared<std::string>();
  sweep->command = both_sweep->command = fit->command = both_fit->command = command;

  CLI::App* tune = app.add_subcommand("tune",
                                      "autotune the launch plans: sweep the plan space on a scenario, then fit "
                                      "the tuning table (both, or one with a subcommand)");
  tune->require_subcommand(0, 1);
  add_sweep_options(tune, *both_sweep);
  add_fit_options(tune, *both_fit);
  tune->add_option("--output,--out", *out_dir, "folder for raw.json and <arch>.json (--out: deprecated alias)");

  CLI::App* sweep_app = tune->add_subcommand("sweep", "time every plan of the search space on each scenario batch");
  add_sweep_options(sweep_app, *sweep);
  sweep_app->get_option("--scenario")->required();
  sweep_app->add_option("--output,--out", sweep->out, "raw results JSON to write (--out: deprecated alias)")
      ->required();

  CLI::App* fit_app = tune->add_subcommand("fit", "fit the decision tree of a tuning table to raw sweep results");
  fit_app->add_option("raw", fit->raw, "raw results of kattn tune sweep")->required();
  add_fit_options(fit_app, *fit);
  fit_app->add_option("--output,--out", fit->out, "tuning table JSON to write (--out: deprecated alias)")->required();

  run = [=]() {
    if (*sweep_app) return tune_sweep_command(*sweep);
    if (*fit_app) return tune_fit_command(*fit);
    if (both_sweep->scenario.empty() || out_dir->empty())
      throw std::invalid_argument("kattn tune needs --scenario and --output (or a subcommand: sweep, fit)");
    return tune_command(*both_sweep, *both_fit, *out_dir);
  };
  return tune;
}

}  // namespace kattn::cli
