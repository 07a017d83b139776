// `kattn bench`: times scenarios through kattn::attention (docs/cli.md).
#pragma once

#include <string>
#include <vector>

namespace kattn::cli {

struct BenchOptions {
  std::string scenario;
  std::string only_case;
  std::vector<std::string> variants{"planned"};  // "planned" = the launch plan's choice
  // Each list is swept (Cartesian product); empty = the plan's value.
  std::vector<int> tile_sizes, block_ms, segments, team_sizes, vector_lengths, grid_teams;
  int warmup = 20;
  int runs = 100;
  std::string json_path;      // also write the results as JSON
  std::string tuning_table;   // plan from this table instead of the built-in one
  bool untuned = false;       // plan from the untuned defaults, without any table
  bool check_values = true;   // AttentionOptions::check_values (off: an inference server's trusted call)
  std::string hardware_file;  // peak FLOP/s; empty = the built-in data/hardware/<arch>.json
  std::string commit;         // recorded in the JSON (the binary may run where there is no .git)
  std::string command;        // the command line, recorded in the JSON
};

int bench_command(const BenchOptions& options);

}  // namespace kattn::cli
