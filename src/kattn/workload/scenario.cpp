#include "kattn/workload/scenario.hpp"

#include "kattn/io/json_fields.hpp"
#include "kattn/io/json_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace kattn {

ModelGeometry model_by_name(const std::string& name) {
  if (name == "llama-3-8b") return {name, 32, 8, 128};
  if (name == "llama-2-7b") return {name, 32, 32, 128};
  if (name == "mqa-small") return {name, 16, 1, 64};
  if (name == "tiny") return {name, 4, 2, 64};
  throw std::invalid_argument("unknown model '" + name + "' (known: llama-3-8b, llama-2-7b, mqa-small, tiny)");
}

namespace {

using nlohmann::json;

using json_fields::convert;
using json_fields::fail;
using json_fields::field;
using json_fields::require;

const char* const kCaseFields[] = {
    "name",           "description", "model",        "num_q_heads",  "num_kv_heads",    "head_size",     "dtypes",
    "batch_size",     "min_seq_len", "max_seq_len",  "decode_share", "chunked_prefill", "max_query_len", "block_size",
    "permute_blocks", "causal",      "seed",         "window_left",  "softcap",         "alibi",         "sinks",
    "prefix_lm",      "qq_bias",     "fp8_kv_cache", "fp8_out",      "k_scale",         "v_scale",       "out_scale"};

WorkloadSpec parse_case(const json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "must be an object (got " + j.dump() + ")");
  for (const auto& item : j.items())
    if (std::find_if(std::begin(kCaseFields), std::end(kCaseFields),
                     [&](const char* known) { return item.key() == known; }) == std::end(kCaseFields))
      fail(where, "unknown field '" + item.key() + "' (docs/scenarios.md lists the fields)");
  WorkloadSpec s;
  s.name = field<std::string>(j, where, "name");
  if (s.name.empty()) fail(where + ".name", "must not be empty");
  if (j.contains("model")) {
    try {
      s.model = model_by_name(field<std::string>(j, where, "model"));
    } catch (const std::invalid_argument& e) {
      if (j.at("model").is_string()) fail(where + ".model", e.what());
      throw;
    }
  }
  if (j.contains("num_q_heads") || j.contains("num_kv_heads") || j.contains("head_size")) {
    // an explicit geometry instead of (or overriding) a model name
    s.model.name = "custom";
    s.model.num_q_heads = field<int>(j, where, "num_q_heads");
    s.model.num_kv_heads = field<int>(j, where, "num_kv_heads");
    s.model.head_size = field<int>(j, where, "head_size");
    require(s.model.num_q_heads >= 1, where, "num_q_heads", "must be positive", s.model.num_q_heads);
    require(s.model.num_kv_heads >= 1, where, "num_kv_heads", "must be positive", s.model.num_kv_heads);
    require(s.model.num_q_heads % s.model.num_kv_heads == 0, where, "num_q_heads",
            "must be a multiple of num_kv_heads (" + std::to_string(s.model.num_kv_heads) + ")", s.model.num_q_heads);
    require(s.model.head_size >= 1, where, "head_size", "must be positive", s.model.head_size);
  }
  if (s.model.num_q_heads == 0) fail(where, "missing field 'model' (or num_q_heads, num_kv_heads and head_size)");
  s.batch_size = field(j, where, "batch_size", s.batch_size);
  require(s.batch_size >= 1, where, "batch_size", "must be positive", s.batch_size);
  s.max_seq_len = field<int>(j, where, "max_seq_len");
  require(s.max_seq_len >= 1, where, "max_seq_len", "must be positive", s.max_seq_len);
  s.min_seq_len = field(j, where, "min_seq_len", s.max_seq_len);
  require(s.min_seq_len >= 1, where, "min_seq_len", "must be positive", s.min_seq_len);
  require(s.min_seq_len <= s.max_seq_len, where, "min_seq_len",
          "must be at most max_seq_len (" + std::to_string(s.max_seq_len) + ")", s.min_seq_len);
  s.decode_share = field(j, where, "decode_share", s.decode_share);
  require(s.decode_share >= 0.0 && s.decode_share <= 1.0, where, "decode_share", "must be in [0, 1]", s.decode_share);
  s.chunked_prefill = field(j, where, "chunked_prefill", s.chunked_prefill);
  s.max_query_len = field(j, where, "max_query_len", s.max_query_len);
  require(s.max_query_len >= 0, where, "max_query_len", "must be >= 0 (0: no cap)", s.max_query_len);
  s.block_size = field(j, where, "block_size", s.block_size);
  require(s.block_size >= 1, where, "block_size", "must be positive", s.block_size);
  s.permute_blocks = field(j, where, "permute_blocks", s.permute_blocks);
  s.causal = field(j, where, "causal", s.causal);
  s.seed = field(j, where, "seed", s.seed);
  FeatureSpec& f = s.features;
  f.window_left = field(j, where, "window_left", f.window_left);
  require(f.window_left >= -1, where, "window_left", "must be >= -1 (-1: no window)", f.window_left);
  f.softcap = field(j, where, "softcap", f.softcap);
  require(f.softcap >= 0.0f, where, "softcap", "must be >= 0 (0: off)", f.softcap);
  f.alibi = field(j, where, "alibi", f.alibi);
  f.sinks = field(j, where, "sinks", f.sinks);
  f.prefix_lm = field(j, where, "prefix_lm", f.prefix_lm);
  f.qq_bias = field(j, where, "qq_bias", f.qq_bias);
  f.fp8_kv_cache = field(j, where, "fp8_kv_cache", f.fp8_kv_cache);
  f.fp8_out = field(j, where, "fp8_out", f.fp8_out);
  f.k_scale = field(j, where, "k_scale", f.k_scale);
  require(f.k_scale > 0.0f, where, "k_scale", "must be positive", f.k_scale);
  f.v_scale = field(j, where, "v_scale", f.v_scale);
  require(f.v_scale > 0.0f, where, "v_scale", "must be positive", f.v_scale);
  f.out_scale = field(j, where, "out_scale", f.out_scale);
  require(f.out_scale > 0.0f, where, "out_scale", "must be positive", f.out_scale);
  return s;
}

std::vector<DType> parse_dtypes(const json& j, const std::string& where) {
  if (!j.contains("dtypes")) return {DType::fp16};
  const json& list = j.at("dtypes");
  if (!list.is_array() || list.empty())
    fail(where + ".dtypes", "must be a non-empty list of dtype names (got " + list.dump() + ")");
  std::vector<DType> dtypes;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + ".dtypes[" + std::to_string(i) + "]";
    try {
      dtypes.push_back(parse_dtype(convert<std::string>(list[i], at)));
    } catch (const std::invalid_argument& e) {
      if (!list[i].is_string()) throw;
      fail(at, e.what());
    }
  }
  return dtypes;
}

}  // namespace

std::vector<WorkloadSpec> load_scenario(const std::string& path) {
  const json doc = read_json_file(path, "the scenario file");
  try {
    if (!doc.is_object()) fail("scenario", "must be an object with an array \"cases\"");
    for (const auto& item : doc.items())
      if (item.key() != "name" && item.key() != "description" && item.key() != "cases")
        fail("scenario", "unknown field '" + item.key() + "' (name, description, cases)");
    if (!doc.contains("cases")) fail("scenario", "missing field 'cases'");
    const json& cases = doc["cases"];
    if (!cases.is_array()) fail("cases", "must be a list of cases (got " + cases.dump() + ")");
    if (doc.contains("name")) convert<std::string>(doc["name"], "name");
    if (doc.contains("description")) convert<std::string>(doc["description"], "description");
    std::vector<WorkloadSpec> specs;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::string where = "cases[" + std::to_string(i) + "]";
      const WorkloadSpec base = parse_case(cases[i], where);
      const std::vector<DType> dtypes = parse_dtypes(cases[i], where);
      for (DType dtype : dtypes) {
        WorkloadSpec s = base;
        s.dtype = dtype;
        if (dtypes.size() > 1) s.name += "-" + std::string(to_string(dtype));
        specs.push_back(s);
      }
    }
    for (std::size_t i = 0; i < specs.size(); ++i)
      for (std::size_t k = 0; k < i; ++k)
        if (specs[i].name == specs[k].name) fail("cases", "two cases are named '" + specs[i].name + "'");
    return specs;
  } catch (const nlohmann::json::exception& e) {  // a check above missed a shape: still name the file
    throw std::runtime_error(path + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace kattn
