#include "kattn/workload/scenario.hpp"

#include "kattn/io/json_file.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace kattn {

ModelGeometry model_by_name(const std::string& name) {
  if (name == "llama-3-8b") return {name, 32, 8, 128};
  if (name == "llama-2-7b") return {name, 32, 32, 128};
  if (name == "mqa-small") return {name, 16, 1, 64};
  if (name == "tiny") return {name, 4, 2, 64};
  throw std::invalid_argument("unknown model '" + name + "' (known: llama-3-8b, llama-2-7b, mqa-small, tiny)");
}

namespace {

WorkloadSpec parse_case(const nlohmann::json& j) {
  WorkloadSpec s;
  s.name = j.at("name").get<std::string>();
  if (j.contains("model")) s.model = model_by_name(j.at("model").get<std::string>());
  if (j.contains("num_q_heads")) {  // an explicit geometry instead of (or overriding) a model name
    s.model.name = "custom";
    s.model.num_q_heads = j.at("num_q_heads").get<int>();
    s.model.num_kv_heads = j.at("num_kv_heads").get<int>();
    s.model.head_size = j.at("head_size").get<int>();
  }
  if (s.model.num_q_heads == 0) throw std::invalid_argument("needs \"model\" or num_q_heads/num_kv_heads/head_size");
  s.batch_size = j.value("batch_size", s.batch_size);
  s.max_seq_len = j.at("max_seq_len").get<int>();
  s.min_seq_len = j.value("min_seq_len", s.max_seq_len);
  s.decode_share = j.value("decode_share", s.decode_share);
  s.chunked_prefill = j.value("chunked_prefill", s.chunked_prefill);
  s.max_query_len = j.value("max_query_len", s.max_query_len);
  s.block_size = j.value("block_size", s.block_size);
  s.permute_blocks = j.value("permute_blocks", s.permute_blocks);
  s.causal = j.value("causal", s.causal);
  s.seed = j.value("seed", s.seed);
  s.features.window_left = j.value("window_left", s.features.window_left);
  s.features.softcap = j.value("softcap", s.features.softcap);
  s.features.alibi = j.value("alibi", s.features.alibi);
  s.features.sinks = j.value("sinks", s.features.sinks);
  s.features.prefix_lm = j.value("prefix_lm", s.features.prefix_lm);
  s.features.qq_bias = j.value("qq_bias", s.features.qq_bias);
  s.features.fp8_kv_cache = j.value("fp8_kv_cache", s.features.fp8_kv_cache);
  s.features.fp8_out = j.value("fp8_out", s.features.fp8_out);
  s.features.k_scale = j.value("k_scale", s.features.k_scale);
  s.features.v_scale = j.value("v_scale", s.features.v_scale);
  s.features.out_scale = j.value("out_scale", s.features.out_scale);
  if (s.batch_size < 1 || s.min_seq_len < 1 || s.max_seq_len < s.min_seq_len || s.block_size < 1 ||
      s.decode_share < 0.0 || s.decode_share > 1.0 || s.max_query_len < 0 || s.features.window_left < -1 ||
      s.features.softcap < 0.0f)
    throw std::invalid_argument("needs batch_size >= 1, 1 <= min_seq_len <= max_seq_len, block_size >= 1, "
                                "decode_share in [0, 1], max_query_len >= 0, window_left >= -1, softcap >= 0");
  return s;
}

}  // namespace

std::vector<WorkloadSpec> load_scenario(const std::string& path) {
  const nlohmann::json doc = read_json_file(path, "the scenario file");
  if (!doc.is_object() || !doc.contains("cases") || !doc["cases"].is_array())
    throw std::runtime_error(path + ": needs an array \"cases\"");
  std::vector<WorkloadSpec> specs;
  const auto& cases = doc["cases"];
  for (std::size_t i = 0; i < cases.size(); ++i) {
    try {
      const WorkloadSpec base = parse_case(cases[i]);
      const auto dtypes = cases[i].value("dtypes", std::vector<std::string>{"fp16"});
      for (const std::string& name : dtypes) {
        WorkloadSpec s = base;
        s.dtype = parse_dtype(name);
        if (dtypes.size() > 1) s.name += "-" + name;
        specs.push_back(s);
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ": cases[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return specs;
}

}  // namespace kattn
