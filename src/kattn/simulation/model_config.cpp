#include "kattn/simulation/model_config.hpp"

#include "kattn/core/error.hpp"
#include "kattn/io/builtin_data.hpp"
#include "kattn/io/json_fields.hpp"
#include "kattn/io/json_file.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <stdexcept>

namespace kattn::sim {

void check_model_config(const ModelConfig& c) {
  const ModelGeometry& g = c.geometry;
  if (g.num_q_heads < 1 || g.num_kv_heads < 1 || g.num_q_heads % g.num_kv_heads != 0 || g.head_size < 1)
    throw std::invalid_argument("needs num_q_heads a positive multiple of num_kv_heads >= 1, head_size >= 1");
  if (c.num_layers < 1 || c.block_size < 1 || c.num_kv_blocks < 1 || c.max_num_batched_tokens < 1 || c.max_num_seqs < 1)
    throw std::invalid_argument(
        "needs num_layers, block_size, num_kv_blocks, max_num_batched_tokens and "
        "max_num_seqs >= 1");
  if (!(c.other_ms_per_step >= 0.0) || !(c.other_us_per_token >= 0.0))
    throw std::invalid_argument("needs other_ms_per_step >= 0 and other_us_per_token >= 0");
  if (c.dtype == DType::fp8_e4m3) throw std::invalid_argument("dtype: q cannot be fp8_e4m3");
}

ModelConfig load_model_config(const std::string& path) {
  return parse_model_config(read_json_file(path, "the model config"), path);
}

ModelConfig model_config_for(const std::string& name_or_file) {
  const std::string builtin = "data/models/" + name_or_file + ".json";
  if (!std::filesystem::exists(name_or_file))
    if (const char* text = builtin_data(builtin))
      return parse_model_config(parse_json_text(text, builtin + " (built in)"), builtin + " (built in)");
  return load_model_config(name_or_file);
}

ModelConfig parse_model_config(const nlohmann::json& j, const std::string& path) {
  ModelConfig c;
  try {
    using namespace json_fields;
    const std::string where;  // the root object
    if (!j.is_object()) fail(where, "must be an object (got " + j.dump() + ")");
    c.name = field<std::string>(j, where, "name");
    c.geometry.name = c.name;
    c.geometry.num_q_heads = field<int>(j, where, "num_q_heads");
    c.geometry.num_kv_heads = field<int>(j, where, "num_kv_heads");
    c.geometry.head_size = field<int>(j, where, "head_size");
    c.num_layers = field<int>(j, where, "num_layers");
    c.dtype = parse_dtype(field(j, where, "dtype", std::string("fp16")));
    c.block_size = field(j, where, "block_size", c.block_size);
    c.num_kv_blocks = field<int>(j, where, "num_kv_blocks");
    c.max_num_batched_tokens = field<int>(j, where, "max_num_batched_tokens");
    c.max_num_seqs = field(j, where, "max_num_seqs", c.max_num_seqs);
    c.other_ms_per_step = field(j, where, "other_ms_per_step", c.other_ms_per_step);
    c.other_us_per_token = field(j, where, "other_us_per_token", c.other_us_per_token);
    check_model_config(c);
  } catch (const std::exception& e) {  // nlohmann's type errors and the range checks
    throw FileFormatError(path, e.what());
  }
  return c;
}

}  // namespace kattn::sim
