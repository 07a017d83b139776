#include "kattn/simulation/hardware_model.hpp"

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/core/error.hpp"
#include "kattn/detail/shapes/scratch_layout.hpp"
#include "kattn/detail/shapes/tile_shapes.hpp"
#include "kattn/io/builtin_data.hpp"
#include "kattn/io/json_file.hpp"
#include "kattn/tuning/tuning_table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kattn::model {
namespace {

double element_bytes(DType d) {
  switch (d) {
    case DType::fp32:
      return 4;
    case DType::fp16:
    case DType::bf16:
      return 2;
    case DType::fp8_e4m3:
      return 1;
  }
  return 2;
}

// {"value": x, "source": "..."} or a bare number.
double number_field(const nlohmann::json& j, const std::string& path, const char* name, bool positive) {
  if (!j.contains(name)) throw FileFormatError(path, std::string("missing field '") + name + "'");
  const nlohmann::json& f = j.at(name);
  const nlohmann::json& v = f.is_object() ? (f.contains("value") ? f.at("value") : nlohmann::json()) : f;
  if (!v.is_number()) throw FileFormatError(path, std::string("field '") + name + "' needs a number (\"value\")");
  const double x = v.get<double>();
  if (!(x >= 0.0) || (positive && !(x > 0.0)) || !std::isfinite(x))
    throw FileFormatError(path, std::string("field '") + name + "' is out of range: " + v.dump());
  return x;
}

// An optional number: `fallback` where the file does not name it.
double optional_number(const nlohmann::json& j, const std::string& path, const char* name, double fallback) {
  return j.contains(name) ? number_field(j, path, name, false) : fallback;
}

KernelRegisters kernel_registers(const nlohmann::json& j, const std::string& path) {
  KernelRegisters r;
  if (!j.contains("kernel_registers")) return r;
  const nlohmann::json& f = j.at("kernel_registers");
  const nlohmann::json& v = f.is_object() && f.contains("value") ? f.at("value") : f;
  if (!v.is_object()) throw FileFormatError(path, "field 'kernel_registers' needs an object of kernels (\"value\")");
  const std::pair<const char*, int*> kernels[] = {{"split_kv", &r.split_kv},
                                                  {"split_kv_register_rows", &r.split_kv_register_rows},
                                                  {"qblock", &r.qblock},
                                                  {"qblock_register_rows", &r.qblock_register_rows},
                                                  {"qblock_warpgroup", &r.qblock_warpgroup},
                                                  {"qblock_two_warpgroups", &r.qblock_two_warpgroups},
                                                  {"qblock_producer", &r.qblock_producer},
                                                  {"baseline", &r.baseline}};
  for (const auto& entry : v.items()) {
    const std::string name = entry.key();
    const nlohmann::json& value = entry.value();
    const auto* k =
        std::find_if(std::begin(kernels), std::end(kernels), [&](const auto& e) { return name == e.first; });
    if (k == std::end(kernels))
      throw FileFormatError(path, "field 'kernel_registers' names an unknown kernel '" + name + "'");
    if (!value.is_number_integer() || value.get<int>() < 0 || value.get<int>() > 255)
      throw FileFormatError(path, "field 'kernel_registers." + name + "' needs registers per thread, 0 to 255");
    *k->second = value.get<int>();
  }
  return r;
}

// Registers a thread of the kernel `plan` launches takes on `hw` (0: not measured).
int registers_of(const LaunchPlan& plan, const HardwareModel& hw) {
  const KernelRegisters& r = hw.kernel_registers;
  switch (plan.variant) {
    case Variant::split_kv:
      return plan.register_rows ? r.split_kv_register_rows : r.split_kv;
    case Variant::baseline:
      return r.baseline;
    default:
      if (!plan.register_rows) return r.qblock;
      if (!plan.warpgroup_products) return r.qblock_register_rows;
      if (plan.producer_warpgroup()) return r.qblock_producer;
      return plan.warpgroups() == 2 ? r.qblock_two_warpgroups : r.qblock_warpgroup;
  }
}

// The cap a kernel's scratch is fitted to there (0: not modelled, no cap).
std::size_t scratch_cap(double limit) { return limit > 0 ? std::size_t(limit) : std::size_t(1) << 30; }

// Team scratch of the kernel `plan` launches, as part_launch.hpp requests it, under the caps of `hw`.
double scratch_of(const LaunchPlan& plan, const BatchShape& b, double element_bytes, const HardwareModel& hw) {
  const std::size_t eb = std::size_t(element_bytes);
  const std::size_t cap = scratch_cap(hw.team_scratch_max);
  const int partitions = std::max(plan.num_segments, 1);
  switch (plan.variant) {
    case Variant::split_kv:
      if (plan.register_rows) {
        const int stages = std::max(2, split_kv_mma_stages(plan.team_size, plan.tile_size, b.block_size, b.head_size,
                                                           partitions, eb, scratch_cap(hw.split_kv_scratch_max)));
        return double(split_kv_mma_scratch_bytes(plan.team_size, stages, plan.tile_size, b.block_size, b.head_size,
                                                 partitions, eb));
      } else {
        const auto shape =
            split_kv_shape(plan.team_size, plan.tile_size, b.block_size, b.head_size, partitions, eb, cap);
        return shape ? double(split_kv_scratch_bytes(*shape, plan.tile_size, b.block_size, b.head_size, partitions, eb))
                     : 0.0;
      }
    case Variant::baseline:
      return double(baseline_scratch_bytes(plan.tile_size, b.head_size));
    default:
      if (plan.register_rows && plan.producer_warpgroup())
        return double(producer_rows_scratch_bytes(b.head_size, eb, kWarpgroupTileAlign));
      if (plan.register_rows)
        return double(register_rows_scratch_bytes(b.head_size, eb, plan.warpgroup_products ? kWarpgroupTileAlign : 16,
                                                  plan.deep_tiles, std::max(plan.warpgroups(), 1)));
      return double(qblock_scratch_bytes(plan.block_m, plan.tile_size, b.head_size, eb));
  }
}

}  // namespace

int teams_per_unit(const LaunchCost& c, const HardwareModel& hw) {
  const int threads = std::max(c.team_threads, 1);
  int teams = std::min(hw.max_teams_per_unit, hw.max_threads_per_unit / threads);
  if (hw.registers_per_unit > 0 && c.registers > 0) {
    const int granule = std::max(hw.register_granule, 1);
    const int per_warp = (c.registers * hw.warp_lanes + granule - 1) / granule * granule;
    const int warps = (threads + hw.warp_lanes - 1) / hw.warp_lanes;
    teams = std::min(teams, hw.registers_per_unit / (per_warp * warps));
  }
  if (hw.scratch_bytes_per_unit > 0 && c.scratch_bytes > 0)
    teams = std::min(teams, int(hw.scratch_bytes_per_unit / (c.scratch_bytes + hw.scratch_reserved_per_team)));
  return std::max(1, teams);
}

HardwareModel load_hardware_model(const std::string& path) {
  return parse_hardware_model(read_json_file(path, "the hardware model file"), path);
}

HardwareModel hardware_model_for(const std::string& arch) {
  if (arch.size() > 5 && arch.compare(arch.size() - 5, 5, ".json") == 0) return load_hardware_model(arch);
  const std::string path = hardware_model_path(arch);
  const char* text = builtin_data(path);
  if (!text) {
    std::string known;
    for (const std::string& name : builtin_data_names("data/hardware/models"))
      known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("no hardware model for '" + arch + "' (built in: " + known +
                                "; or give a parameter file, *.json)");
  }
  return parse_hardware_model(parse_json_text(text, path + " (built in)"), path + " (built in)");
}

HardwareModel parse_hardware_model(const nlohmann::json& j, const std::string& path) {
  HardwareModel hw;
  auto text = [&](const char* name) {
    if (!j.contains(name) || !j.at(name).is_string())
      throw FileFormatError(path, std::string("field '") + name + "' needs a string");
    return j.at(name).get<std::string>();
  };
  hw.arch = text("arch");
  hw.device = text("device");
  hw.tuning_table = text("tuning_table");
  hw.provenance = text("free_parameters");
  if (!j.contains("gpu") || !j.at("gpu").is_boolean()) throw FileFormatError(path, "field 'gpu' needs true or false");
  hw.gpu = j.at("gpu").get<bool>();
  hw.register_rows = j.value("register_rows", false);
  hw.warpgroup_products = j.value("warpgroup_products", false);
  hw.memory_gb_per_s = number_field(j, path, "memory_gb_per_s", true);
  hw.tensor_tflop_per_s = number_field(j, path, "tensor_tflop_per_s", false);
  hw.vector_tflop_per_s = number_field(j, path, "vector_tflop_per_s", true);
  hw.compute_units = int(number_field(j, path, "compute_units", true));
  hw.max_threads_per_unit = int(number_field(j, path, "max_threads_per_unit", true));
  hw.max_teams_per_unit = int(number_field(j, path, "max_teams_per_unit", true));
  hw.registers_per_unit = int(optional_number(j, path, "registers_per_unit", 0));
  hw.register_granule = std::max(1, int(optional_number(j, path, "register_granule", 1)));
  hw.scratch_bytes_per_unit = optional_number(j, path, "scratch_bytes_per_unit", 0);
  hw.scratch_reserved_per_team = optional_number(j, path, "scratch_reserved_per_team", 0);
  hw.team_scratch_max = optional_number(j, path, "team_scratch_max", 0);
  hw.split_kv_scratch_max = optional_number(j, path, "split_kv_scratch_max", hw.team_scratch_max);
  hw.kernel_registers = kernel_registers(j, path);
  hw.warp_lanes = int(number_field(j, path, "warp_lanes", true));
  hw.cache_mb = number_field(j, path, "cache_mb", false);
  hw.mem_efficiency = number_field(j, path, "mem_efficiency", true);
  hw.tensor_efficiency = number_field(j, path, "tensor_efficiency", true);
  hw.vector_efficiency = number_field(j, path, "vector_efficiency", true);
  hw.launch_us = number_field(j, path, "launch_us", false);
  hw.reduction_us = optional_number(j, path, "reduction_us", hw.launch_us);
  hw.item_us = optional_number(j, path, "item_us", 0);
  hw.team_gb_per_s = optional_number(j, path, "team_gb_per_s", 0);
  hw.partition_us = optional_number(j, path, "partition_us", 0);
  hw.host_us = number_field(j, path, "host_us", false);
  hw.parts_overlap = number_field(j, path, "parts_overlap", false);
  for (const char* e : {"mem_efficiency", "tensor_efficiency", "vector_efficiency"})
    if (number_field(j, path, e, true) > 1.0) throw FileFormatError(path, std::string("field '") + e + "' exceeds 1");
  if (hw.parts_overlap > 1.0) throw FileFormatError(path, "field 'parts_overlap' exceeds 1");
  return hw;
}

std::string hardware_model_path(const std::string& arch, const std::string& data_dir) {
  if (arch.size() > 5 && arch.compare(arch.size() - 5, 5, ".json") == 0) return arch;
  return data_dir + "/hardware/models/" + arch + ".json";
}

LaunchCost launch_cost(const LaunchPlan& plan, const BatchShape& b, int first, int last, const HardwareModel& hw) {
  const double D = b.head_size, hq = b.num_q_heads, hkv = b.num_kv_heads, eb = element_bytes(b.dtype);
  const int qpk = b.num_q_heads / b.num_kv_heads;
  LaunchCost c;
  c.tensor = plan.tensor_cores;
  c.team_threads = std::max(1, plan.team_size * plan.vector_length);
  c.registers = registers_of(plan, hw);
  c.scratch_bytes = scratch_of(plan, b, eb, hw);
  const int tile = std::max(plan.tile_size, 1);
  // Keys token i (0-based in the query) of a sequence sees: causal, within the window.
  auto visible = [&](int seq_len, int query_len, int i) {
    const int v = seq_len - query_len + i + 1;
    return b.window_left >= 0 ? std::min(v, b.window_left + 1) : v;
  };
  double partial_rows = 0;  // (row, segment) partial results written and read back by a reduction
  for (int s = first; s < last; ++s) {
    const int q = b.query_lens[std::size_t(s)], L = b.seq_lens[std::size_t(s)];
    c.bytes += 2.0 * q * hq * D * eb;                                                 // q read, out written
    const double keys_any = b.window_left >= 0 ? std::min(L, b.window_left + q) : L;  // keys some query sees
    const double kv_seq_bytes = hkv * keys_any * D * 2 * eb;
    c.kv_unique_bytes += kv_seq_bytes;
    c.kv_seq_bytes = std::max(c.kv_seq_bytes, kv_seq_bytes);
    if (plan.variant == Variant::split_kv) {
      const int rows = std::max(1, std::min(plan.block_m, qpk));
      const double groups = std::ceil(double(qpk) / rows);  // teams per (token, KV head, partition)
      for (int i = 0; i < q; ++i) {
        const double v = visible(L, q, i), parts = std::ceil(v / tile);
        c.teams += hkv * groups * parts;
        c.kv_bytes += hkv * groups * v * D * 2 * eb;
        c.team_kv_bytes = std::max(c.team_kv_bytes, std::min(v, double(tile)) * D * 2 * eb);
        c.flops += 4.0 * D * hq * v;
        if (parts > 1) partial_rows += hq * parts;
      }
    } else if (plan.variant == Variant::baseline) {
      for (int i = 0; i < q; ++i) {
        const double v = visible(L, q, i);
        c.teams += hq;
        c.kv_bytes += hq * v * D * 2 * eb;  // every query head reads its keys
        c.team_kv_bytes = std::max(c.team_kv_bytes, v * D * 2 * eb);
        c.flops += 4.0 * D * hq * v;
      }
    } else {  // Q-block variants: a team per (Q block, KV head, segment)
      const int bq = plan.block_q(qpk);
      const int segments = std::max(plan.num_segments, 1);
      for (int i0 = 0; i0 < q; i0 += bq) {
        const int i1 = std::min(q, i0 + bq);
        // Keys from the first visible one of the block's first row to the last row's last.
        const double lo = b.window_left >= 0 ? std::max(0, L - q + i0 - b.window_left) : 0;
        const double keys = (L - q + i1) - lo;
        const double tiles = std::ceil(keys / tile);
        c.teams += hkv * segments;
        c.kv_bytes += hkv * keys * D * 2 * eb;
        c.team_kv_bytes = std::max(c.team_kv_bytes, keys / segments * D * 2 * eb);
        c.flops += 4.0 * D * hkv * double(plan.block_m) * tiles * tile;  // whole blocks and tiles execute
        if (segments > 1) partial_rows += double(bq) * hq * segments;
      }
    }
  }
  if (partial_rows > 0) {
    c.kernels = 2;                                // the reduction kernel
    c.bytes += partial_rows * (D + 2) * 4 * 2.0;  // fp32 partial row + max + sum, written then read
  }
  c.items = c.teams;
  // A Q block's chain of tiles and its stores add up item by item on a team; a split-KV team takes
  // one partition, beside the other teams resident on its unit: its latency shows once a wave.
  c.item_latency = plan.variant != Variant::split_kv;
  if (is_static_grid(plan.variant) && plan.grid_teams > 0) c.teams = std::min(c.teams, double(plan.grid_teams));
  return c;
}

double launch_us(const LaunchCost& c, const HardwareModel& hw) {
  const double overhead = hw.launch_us + (c.kernels - 1) * hw.reduction_us;
  if (c.teams <= 0) return overhead;
  const double slots = double(hw.compute_units) * teams_per_unit(c, hw);
  const double waves = std::ceil(c.teams / slots);
  // Units with a team: a unit streams at its share of the memory's rate with one team resident,
  // and a later wave's teams take over the bandwidth the earlier ones leave.
  const double units_busy = std::min(1.0, c.teams / hw.compute_units);
  // Share of the matrix/vector units the waves keep busy: the last wave's empty slots idle.
  const double compute_fill = waves > 1 ? c.teams / (waves * slots) : units_busy;
  // K/V reads beyond the first of each key hit the last-level cache while a sequence's K/V fits in
  // it: every grid takes its items sequence by sequence, so a key's re-reads come while its
  // sequence's items run, not after the launch's other sequences.
  const double rereads = std::max(0.0, c.kv_bytes - c.kv_unique_bytes);
  const double miss = c.kv_seq_bytes > 0 ? std::clamp(1.0 - hw.cache_mb * 1e6 / c.kv_seq_bytes, 0.0, 1.0) : 0.0;
  const double dram = c.bytes + std::min(c.kv_bytes, c.kv_unique_bytes) + rereads * miss;
  const double mem_s = dram / (hw.memory_gb_per_s * 1e9 * hw.mem_efficiency);
  const double peak = c.tensor && hw.tensor_tflop_per_s > 0 ? hw.tensor_tflop_per_s * hw.tensor_efficiency
                                                            : hw.vector_tflop_per_s * hw.vector_efficiency;
  const double compute_s = c.flops / (peak * 1e12);
  // The memory's rate for the launch's bytes, and no faster than its longest team streams its K/V
  // alone (a team in flight holds few bytes: a long one alone, or the last of unequal ones, runs
  // at its own rate); a file without that rate prices a unit's share of the memory's per unit busy.
  const double stream_s =
      hw.team_gb_per_s > 0 ? std::max(mem_s, c.team_kv_bytes / (hw.team_gb_per_s * 1e9)) : mem_s / units_busy;
  // Each resident team takes its items one after the other, each with its latency (a Q block's
  // first tiles and its stores); split-KV teams take one partition each and pay theirs a wave.
  const double latency_us =
      c.item_latency ? hw.item_us * std::ceil(std::max(c.items, c.teams) / slots) : hw.partition_us * waves;
  return overhead + 1e6 * std::max(stream_s, compute_s / compute_fill) + latency_us;
}

namespace {

BatchMetadata metadata_of(const BatchShape& b, int first, int last) {
  SequenceTotals decodes, others;
  int leading = 0;
  bool leading_run = true;
  for (int s = first; s < last; ++s) {
    SequenceTotals one;
    one.num_seqs = 1;
    one.num_tokens = one.max_query_len = b.query_lens[std::size_t(s)];
    one.total_seq_len = one.max_seq_len = b.seq_lens[std::size_t(s)];
    if (one.num_tokens == 1) {
      decodes.add(one);
      if (leading_run) ++leading;
    } else {
      others.add(one);
      leading_run = false;
    }
  }
  BatchMetadata m(decodes, others, leading);
  m.window_left = b.window_left;
  return m;
}

Geometry geometry_of(const BatchShape& b) {
  Geometry g;
  g.num_q_heads = b.num_q_heads;
  g.num_kv_heads = b.num_kv_heads;
  g.head_size = b.head_size;
  g.block_size = b.block_size;
  g.num_seqs = int(b.query_lens.size());
  int max_len = 1;
  for (std::size_t s = 0; s < b.query_lens.size(); ++s) {
    g.num_tokens += b.query_lens[s];
    max_len = std::max(max_len, b.seq_lens[s]);
  }
  g.max_blocks_per_seq = (max_len + b.block_size - 1) / b.block_size;
  g.num_blocks = g.max_blocks_per_seq * std::max(g.num_seqs, 1);
  return g;
}

// The plan's team shape and paths as the target's build would fit them (launch_plan.cpp's rules;
// of its scratch fitting only the tensor-core split-KV rings', under the target's split_kv_scratch_max).
void refit_for_target(LaunchPlan& plan, const LaunchPlan& leaf, const BatchMetadata& part, const BatchShape& b,
                      const HardwareModel& hw) {
  const int qpk = b.num_q_heads / b.num_kv_heads;
  const bool tc_operands = b.dtype == DType::fp16 || b.dtype == DType::bf16;
  plan.team_size = std::max(leaf.team_size, 1);
  plan.vector_length = std::max(leaf.vector_length, 1);
  plan.register_rows = false;
  plan.deep_tiles = false;
  plan.warpgroup_products = false;
  if (plan.variant == Variant::split_kv) {
    plan.tile_size = std::max(leaf.tile_size, 1);
    plan.num_segments = (std::max(part.max_visible_keys(), 1) + plan.tile_size - 1) / plan.tile_size;
    // launch_plan.cpp's rules: register rows in teams of warps where they take the head, else lanes
    // that cover a row.
    plan.register_rows = hw.register_rows && tc_operands && b.head_size % 16 == 0 && b.head_size <= kFragmentMaxHead;
    plan.tensor_cores = plan.register_rows;
    if (plan.register_rows &&
        fit_split_kv_rings(plan, geometry_of(b), std::max(part.max_visible_keys(), 1),
                           std::size_t(element_bytes(b.dtype)), scratch_cap(hw.split_kv_scratch_max))) {
      plan.vector_length = hw.warp_lanes;  // team_size: warps, fitted to the target's scratch cap
      plan.block_m = std::min(qpk, kSplitKvMmaRows);
      return;
    }
    plan.register_rows = plan.tensor_cores = false;
    plan.team_size = std::max(leaf.team_size, 1);
    int lanes = 1;
    while (lanes < lanes_for(b.head_size)) lanes *= 2;
    plan.vector_length = lanes;
    plan.block_m = std::min(qpk, kSplitKvMaxRows);
    return;
  }
  plan.tensor_cores = hw.tensor_tflop_per_s > 0 && tc_operands && plan.vector_length == hw.warp_lanes &&
                      plan.variant != Variant::baseline;
  if (plan.variant == Variant::baseline) return;
  plan.tile_size = std::max(leaf.tile_size, 1);
  plan.block_m = leaf.block_q(qpk) * qpk;
  if (plan.tensor_cores && hw.register_rows && b.head_size % 16 == 0 && b.head_size <= kFragmentMaxHead &&
      qpk <= kFragmentRows * std::min(plan.team_size, kFragmentMaxWarps)) {
    plan.register_rows = true;
    plan.warpgroup_products = hw.warpgroup_products && b.head_size == kWarpgroupHead;
    plan.deep_tiles = plan.warpgroup_products;
    // Two warpgroups where the leaf asks for 8 warps (a producer beside them: 12, where the cache's
    // blocks make boxes for its copies) and an SM's scratch takes their tiles.
    const auto fits = [&](std::size_t bytes) {
      return double(bytes) + hw.scratch_reserved_per_team <= hw.scratch_bytes_per_unit;
    };
    const std::size_t eb = std::size_t(element_bytes(b.dtype));
    fit_register_rows_team(plan, qpk, fits(register_rows_scratch_bytes(b.head_size, eb, kWarpgroupTileAlign, true, 2)),
                           fits(producer_rows_scratch_bytes(b.head_size, eb, kWarpgroupTileAlign)) &&
                               cache_tile_box_rows(b.block_size, 2 * kFragmentTileKeys) > 0);
  }
  if (is_static_grid(plan.variant)) {
    plan.grid_teams =
        leaf.grid_teams > 0 ? leaf.grid_teams : static_grid_teams(plan, hw.compute_units, hw.max_threads_per_unit);
  }
}

void check_shape(const BatchShape& b) {
  if (b.query_lens.empty() || b.query_lens.size() != b.seq_lens.size())
    throw std::invalid_argument("hardware model: needs as many query lengths as sequence lengths, at least one");
  if (b.num_kv_heads < 1 || b.num_q_heads % b.num_kv_heads != 0 || b.head_size < 1 || b.block_size < 1)
    throw std::invalid_argument("hardware model: bad geometry");
  for (std::size_t s = 0; s < b.query_lens.size(); ++s)
    if (b.query_lens[s] < 1 || b.seq_lens[s] < b.query_lens[s])
      throw std::invalid_argument("hardware model: sequence " + std::to_string(s) +
                                  " needs 1 <= query length <= sequence length");
}

}  // namespace

CallPlan target_call_plan(const BatchShape& b, const HardwareModel& hw, std::optional<bool> split_decodes) {
  check_shape(b);
  const TuningTable* table = TuningTable::builtin(hw.tuning_table);
  if (!table)
    throw std::invalid_argument("hardware model " + hw.arch + ": no built-in tuning table '" + hw.tuning_table + "'");
  AttentionOptions options;
  options.tuning_table = table;
  options.check_values = false;
  options.split_decodes = split_decodes;
  const int n = int(b.query_lens.size());
  const BatchMetadata all = metadata_of(b, 0, n);
  const Geometry g = geometry_of(b);
  const bool tc_operands = b.dtype == DType::fp16 || b.dtype == DType::bf16;
  CallPlan plans = plan_call(all, g, std::size_t(element_bytes(b.dtype)), tc_operands, options);
  if (hw.gpu) {
    const int apart = plans.main.decodes_apart;
    const BatchMetadata main_part = plans.decodes ? metadata_of(b, apart, n) : all;
    refit_for_target(plans.main, table->evaluate(main_part, g), main_part, b, hw);
    if (plans.decodes) {
      const BatchMetadata decode_part = metadata_of(b, 0, apart);
      refit_for_target(*plans.decodes, table->evaluate(decode_part, g), decode_part, b, hw);
    }
  }
  return plans;
}

double predict_call_us(const CallPlan& plans, const BatchShape& b, const HardwareModel& hw) {
  check_shape(b);
  const int n = int(b.query_lens.size());
  const int apart = plans.decodes ? std::clamp(plans.main.decodes_apart, 0, n) : 0;
  const double main = launch_us(launch_cost(plans.main, b, apart, n, hw), hw);
  if (!plans.decodes || apart == 0) return hw.host_us + main;
  // The leading decodes run beside the rest (entry_points.hpp): part of the shorter one hides.
  const double decodes = launch_us(launch_cost(*plans.decodes, b, 0, apart, hw), hw);
  return hw.host_us + main + decodes - hw.parts_overlap * std::min(main, decodes);
}

double predict_us(const BatchShape& b, const HardwareModel& hw) {
  return predict_call_us(target_call_plan(b, hw), b, hw);
}

}  // namespace kattn::model
