// The served model and engine of the simulator (docs/simulation.md): attention geometry, layer
// count, KV capacity, the scheduler's token budget, and a constant-plus-per-token model of the
// time a step spends outside attention.
#pragma once

#include "kattn/core/dtype.hpp"
#include "kattn/workload/scenario.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace kattn::sim {

struct ModelConfig {
  std::string name;
  ModelGeometry geometry;           // q heads, KV heads, head size
  int num_layers = 1;               // attention is timed for one layer and multiplied by this
  DType dtype = DType::fp16;        // q, KV cache and output
  int block_size = 16;              // tokens per KV-cache block
  int num_kv_blocks = 1;            // the fixed KV capacity, in blocks (per layer)
  int max_num_batched_tokens = 1;   // token budget of one step (decodes + prefill chunks)
  int max_num_seqs = 256;           // most requests running at once
  double other_ms_per_step = 0.0;   // modelled non-attention time of a step (GEMMs, sampling, ...)
  double other_us_per_token = 0.0;  // ... plus this per token of the step's batch

  // Modelled non-attention time of a step with `num_tokens` tokens, in microseconds.
  double other_us(int num_tokens) const { return 1000.0 * other_ms_per_step + other_us_per_token * num_tokens; }
};

// Reads a model config file; throws FileFormatError naming the file and the bad field.
ModelConfig load_model_config(const std::string& path);

// `name_or_file`: a config file, or, where no such file exists, the name of one compiled in from
// data/models/<name>.json (builtin_data.hpp: llama-3.1-8b, tiny), found from any working directory.
ModelConfig model_config_for(const std::string& name_or_file);

// The config of a parsed file; `path` names it in errors.
ModelConfig parse_model_config(const nlohmann::json& j, const std::string& path);

// Throws std::invalid_argument unless every field is in range.
void check_model_config(const ModelConfig& config);

}  // namespace kattn::sim
