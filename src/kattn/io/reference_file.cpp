#include "kattn/io/reference_file.hpp"

#include "kattn/core/error.hpp"
#include "kattn/io/hdf5_file.hpp"
#include "kattn/problem/validate.hpp"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace kattn {
namespace {

constexpr const char* kSchemaName = "kattn-problems";
constexpr const char* kAlibiOrigins[] = {"query_position", "context_length"};  // AlibiOrigin's order

// Writes through `write` into a temporary file next to `path` and renames it into place.
template <class Write>
void write_atomically(const std::string& path, Write&& write) {
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  try {
    h5::File file = h5::File::create(temporary);
    write(file);
    file.close();
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::remove(temporary.c_str());
    throw FileFormatError(path, "cannot move the finished file into place: " + error.message());
  }
}

h5::Dims dims(std::initializer_list<int> extents) {
  h5::Dims d;
  for (int e : extents) d.push_back(std::uint64_t(e));
  return d;
}

void write_case(const h5::Group& cases, const ProblemCase& c) {
  const HostProblem& p = c.problem;
  const Geometry& g = p.geometry;
  const h5::Group group = cases.create_group(c.name);
  group.write_attribute("description", c.description);
  group.write_attribute("dtype", std::string(to_string(p.dtype)));
  group.write_attribute("seed", std::int64_t(c.seed));
  group.write_attribute("softmax_scale", p.params.softmax_scale);
  group.write_attribute("causal", std::int64_t(p.params.causal));
  group.write_attribute("window_left", std::int64_t(p.params.window_left));
  group.write_attribute("softcap", double(p.params.softcap));
  group.write_attribute("alibi_origin", std::string(kAlibiOrigins[int(p.params.alibi_origin)]));
  group.write_attribute("kv_dtype", std::string(to_string(p.kv_dtype())));
  group.write_attribute("out_dtype", std::string(to_string(p.out_dtype())));
  group.write_attribute("k_scale", double(p.params.k_scale));
  group.write_attribute("v_scale", double(p.params.v_scale));
  group.write_attribute("out_scale", double(p.params.out_scale));
  group.write("q", p.q, dims({g.num_tokens, g.num_q_heads, g.head_size}));
  const h5::Dims cache = dims({g.num_blocks, g.block_size, g.num_kv_heads, g.head_size});
  group.write("k_cache", p.k_cache, cache);
  group.write("v_cache", p.v_cache, cache);
  group.write("block_table", p.block_table, dims({g.num_seqs, g.max_blocks_per_seq}));
  group.write("cu_seqlens_q", p.cu_seqlens_q, dims({g.num_seqs + 1}));
  group.write("seq_lens", p.seq_lens, dims({g.num_seqs}));
  if (!p.alibi_slopes.empty()) group.write("alibi_slopes", p.alibi_slopes, dims({g.num_q_heads}));
  if (!p.sinks.empty()) group.write("sinks", p.sinks, dims({g.num_q_heads}));
  if (!p.prefix_lens.empty()) group.write("prefix_lens", p.prefix_lens, dims({g.num_seqs}));
  if (!p.qq_bias.empty()) group.write("qq_bias", p.qq_bias, dims({p.qq_bias_size, p.qq_bias_size}));
  if (!c.expected.empty()) group.write("out_ref", c.expected, dims({g.num_tokens, g.num_q_heads, g.head_size}));
}

template <class T>
h5::Dataset<T> read_shaped(const h5::Group& group, const char* name, std::size_t rank) {
  h5::Dataset<T> d = group.read<T>(name);
  if (d.dims.size() != rank)
    throw FileFormatError(group.where(), "dataset '" + std::string(name) + "' has rank " +
                                             std::to_string(d.dims.size()) + ", expected " + std::to_string(rank));
  for (std::uint64_t extent : d.dims)
    if (extent > std::uint64_t(INT32_MAX))
      throw FileFormatError(group.where(), "dataset '" + std::string(name) + "' has an extent beyond int32");
  return d;
}

ProblemCase read_case(const h5::Group& cases, const std::string& name) {
  const h5::Group group = cases.open_group(name);
  ProblemCase c;
  c.name = name;
  c.description = group.has_attribute("description") ? group.read_string("description") : "";
  c.seed = group.has_attribute("seed") ? std::uint64_t(group.read_int("seed")) : 0;
  HostProblem& p = c.problem;
  try {
    p.dtype = parse_dtype(group.read_string("dtype"));
    if (p.dtype == DType::fp8_e4m3) throw std::invalid_argument("dtype of q cannot be fp8_e4m3");
  } catch (const std::invalid_argument& e) {
    throw FileFormatError(group.where(), e.what());
  }
  p.params.softmax_scale = group.read_double("softmax_scale");
  p.params.causal = group.has_attribute("causal") ? group.read_int("causal") != 0 : true;
  p.params.window_left = group.has_attribute("window_left") ? int(group.read_int("window_left")) : -1;
  p.params.softcap = group.has_attribute("softcap") ? float(group.read_double("softcap")) : 0.0f;
  if (group.has_attribute("alibi_origin")) {
    const std::string origin = group.read_string("alibi_origin");
    if (origin == kAlibiOrigins[1])
      p.params.alibi_origin = AlibiOrigin::context_length;
    else if (origin != kAlibiOrigins[0])
      throw FileFormatError(group.where(), "alibi_origin '" + origin + "' must be query_position or context_length");
  }
  p.params.k_scale = group.has_attribute("k_scale") ? float(group.read_double("k_scale")) : 1.0f;
  p.params.v_scale = group.has_attribute("v_scale") ? float(group.read_double("v_scale")) : 1.0f;
  p.params.out_scale = group.has_attribute("out_scale") ? float(group.read_double("out_scale")) : 1.0f;
  for (const char* name : {"kv_dtype", "out_dtype"}) {
    if (!group.has_attribute(name)) continue;
    const std::string value = group.read_string(name);
    if (value != to_string(p.dtype) && value != to_string(DType::fp8_e4m3))
      throw FileFormatError(group.where(), std::string(name) + " '" + value + "' must equal dtype or be fp8_e4m3");
    (std::string(name) == "kv_dtype" ? p.fp8_kv_cache : p.fp8_out) = value == to_string(DType::fp8_e4m3);
  }

  auto q = read_shaped<float>(group, "q", 3);
  auto k = read_shaped<float>(group, "k_cache", 4);
  auto v = read_shaped<float>(group, "v_cache", 4);
  auto block_table = read_shaped<std::int32_t>(group, "block_table", 2);
  auto cu_seqlens_q = read_shaped<std::int32_t>(group, "cu_seqlens_q", 1);
  auto seq_lens = read_shaped<std::int32_t>(group, "seq_lens", 1);
  if (k.dims != v.dims) throw FileFormatError(group.where(), "k_cache and v_cache have different shapes");

  Geometry& g = p.geometry;
  g.num_tokens = int(q.dims[0]);
  g.num_q_heads = int(q.dims[1]);
  g.head_size = int(q.dims[2]);
  g.num_blocks = int(k.dims[0]);
  g.block_size = int(k.dims[1]);
  g.num_kv_heads = int(k.dims[2]);
  g.num_seqs = int(seq_lens.dims[0]);
  g.max_blocks_per_seq = int(block_table.dims[1]);
  if (k.dims[3] != q.dims[2]) throw FileFormatError(group.where(), "k_cache head size differs from q's");
  if (block_table.dims[0] != seq_lens.dims[0] || cu_seqlens_q.dims[0] != seq_lens.dims[0] + 1)
    throw FileFormatError(group.where(), "block_table, cu_seqlens_q and seq_lens disagree on the number of sequences");

  p.q = std::move(q.values);
  p.k_cache = std::move(k.values);
  p.v_cache = std::move(v.values);
  p.block_table = std::move(block_table.values);
  p.cu_seqlens_q = std::move(cu_seqlens_q.values);
  p.seq_lens = std::move(seq_lens.values);
  if (group.contains("alibi_slopes")) p.alibi_slopes = read_shaped<float>(group, "alibi_slopes", 1).values;
  if (group.contains("sinks")) p.sinks = read_shaped<float>(group, "sinks", 1).values;
  if (group.contains("prefix_lens")) p.prefix_lens = read_shaped<std::int32_t>(group, "prefix_lens", 1).values;
  if (group.contains("qq_bias")) {
    auto bias = read_shaped<float>(group, "qq_bias", 2);
    if (bias.dims[0] != bias.dims[1]) throw FileFormatError(group.where(), "qq_bias must be square");
    p.qq_bias_size = int(bias.dims[0]);
    p.qq_bias = std::move(bias.values);
  }

  try {
    validate(p);
  } catch (const InvalidProblem& e) {
    throw FileFormatError(group.where(), e.what());
  }
  const auto require_representable = [&](const std::vector<float>& values, const char* field, DType dtype) {
    for (float x : values)
      if (!std::isfinite(x) || round_to_dtype(x, dtype) != x)
        throw FileFormatError(group.where(), std::string(field) + " holds " + std::to_string(x) +
                                                 ", which is not a finite " + std::string(to_string(dtype)) + " value");
  };
  require_representable(p.q, "q", p.dtype);
  require_representable(p.k_cache, "k_cache", p.kv_dtype());
  require_representable(p.v_cache, "v_cache", p.kv_dtype());
  if (group.contains("out_ref")) {
    auto expected = read_shaped<double>(group, "out_ref", 3);
    if (expected.dims != q.dims) throw FileFormatError(group.where(), "out_ref shape differs from q's");
    c.expected = std::move(expected.values);
  }
  return c;
}

}  // namespace

void write_problem_file(const std::string& path, const std::vector<ProblemCase>& cases) {
  write_atomically(path, [&](const h5::File& file) {
    file.write_attribute("schema", std::string(kSchemaName));
    file.write_attribute("schema_version", kSchemaVersion);
    const h5::Group group = file.create_group("cases");
    for (const ProblemCase& c : cases) write_case(group, c);
  });
}

namespace {

h5::File open_problem_file(const std::string& path) {
  h5::File file = h5::File::open(path);
  if (!file.has_attribute("schema") || file.read_string("schema") != kSchemaName)
    throw FileFormatError(path,
                          std::string("is not a kattn problem file (root attribute schema != '") + kSchemaName + "')");
  if (file.read_int("schema_version") != kSchemaVersion)
    throw FileFormatError(path, "has schema_version " + std::to_string(file.read_int("schema_version")) +
                                    ", this kattn reads " + std::to_string(kSchemaVersion));
  return file;
}

}  // namespace

std::vector<std::string> problem_case_names(const std::string& path) {
  const h5::File file = open_problem_file(path);
  std::vector<std::string> names = file.open_group("cases").children();
  if (names.empty()) throw FileFormatError(path, "holds no cases");
  return names;
}

std::vector<ProblemCase> read_problem_file(const std::string& path) { return read_problem_file(path, {}); }

std::vector<ProblemCase> read_problem_file(const std::string& path, const std::vector<std::string>& only) {
  const h5::File file = open_problem_file(path);
  const h5::Group cases = file.open_group("cases");
  const std::vector<std::string> names = cases.children();
  if (names.empty()) throw FileFormatError(path, "holds no cases");
  for (const std::string& name : only)
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw FileFormatError(path, "has no case named '" + name + "'");
  std::vector<ProblemCase> result;
  for (const std::string& name : only.empty() ? names : only) result.push_back(read_case(cases, name));
  return result;
}

void write_output_file(const std::string& path, const ProblemCase& source, const std::vector<float>& out,
                       const std::string& variant) {
  const Geometry& g = source.problem.geometry;
  write_atomically(path, [&](const h5::File& file) {
    file.write_attribute("schema", std::string("kattn-output"));
    file.write_attribute("schema_version", kSchemaVersion);
    file.write_attribute("case", source.name);
    file.write_attribute("dtype", std::string(to_string(source.problem.out_dtype())));
    file.write_attribute("variant", variant);
    file.write("out", out, dims({g.num_tokens, g.num_q_heads, g.head_size}));
  });
}

}  // namespace kattn
