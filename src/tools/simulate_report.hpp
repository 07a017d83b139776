// The report of `kattn simulate`: the printed summary and the JSON file (docs/simulation.md).
#pragma once

#include "kattn/simulation/model_config.hpp"
#include "kattn/simulation/simulator.hpp"

#include <string>

namespace kattn::cli {

void print_simulation(const sim::SimulationResult& result, const sim::ModelConfig& config,
                      const std::string& timer, int rows);
void write_simulation_json(const std::string& path, const sim::SimulationResult& result,
                           const sim::ModelConfig& config, const std::string& timer, const std::string& source,
                           const std::string& predicted_arch = "");

}  // namespace kattn::cli
