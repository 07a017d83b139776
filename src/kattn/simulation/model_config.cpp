#include "kattn/simulation/model_config.hpp"

#include "kattn/core/error.hpp"
#include "kattn/io/json_file.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace kattn::sim {

void check_model_config(const ModelConfig& c) {
  const ModelGeometry& g = c.geometry;
  if (g.num_q_heads < 1 || g.num_kv_heads < 1 || g.num_q_heads % g.num_kv_heads != 0 || g.head_size < 1)
    throw std::invalid_argument("needs num_q_heads a positive multiple of num_kv_heads >= 1, head_size >= 1");
  if (c.num_layers < 1 || c.block_size < 1 || c.num_kv_blocks < 1 || c.max_num_batched_tokens < 1 ||
      c.max_num_seqs < 1)
    throw std::invalid_argument("needs num_layers, block_size, num_kv_blocks, max_num_batched_tokens and "
                                "max_num_seqs >= 1");
  if (!(c.other_ms_per_step >= 0.0) || !(c.other_us_per_token >= 0.0))
    throw std::invalid_argument("needs other_ms_per_step >= 0 and other_us_per_token >= 0");
  if (c.dtype == DType::fp8_e4m3) throw std::invalid_argument("dtype: q cannot be fp8_e4m3");
}

ModelConfig load_model_config(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "the model config");
  ModelConfig c;
  try {
    c.name = j.at("name").get<std::string>();
    c.geometry.name = c.name;
    c.geometry.num_q_heads = j.at("num_q_heads").get<int>();
    c.geometry.num_kv_heads = j.at("num_kv_heads").get<int>();
    c.geometry.head_size = j.at("head_size").get<int>();
    c.num_layers = j.at("num_layers").get<int>();
    c.dtype = parse_dtype(j.value("dtype", std::string("fp16")));
    c.block_size = j.value("block_size", c.block_size);
    c.num_kv_blocks = j.at("num_kv_blocks").get<int>();
    c.max_num_batched_tokens = j.at("max_num_batched_tokens").get<int>();
    c.max_num_seqs = j.value("max_num_seqs", c.max_num_seqs);
    c.other_ms_per_step = j.value("other_ms_per_step", c.other_ms_per_step);
    c.other_us_per_token = j.value("other_us_per_token", c.other_us_per_token);
    check_model_config(c);
  } catch (const std::exception& e) {  // nlohmann's type errors and the range checks
    throw FileFormatError(path, e.what());
  }
  return c;
}

}  // namespace kattn::sim
