// A roofline model of kattn's launches (docs/hardware-model.md): per launch, the bytes it moves
// (K/V re-reads served by the last-level cache while the launch's K/V fits) and the FLOPs it does,
// its teams and work items from the launch plan, the teams a unit holds at once (threads,
// registers, scratch), waves = ceil(teams / (compute units x teams per unit)), and time = launch
// overhead (a reduction kernel queued behind the first) + the slower of the memory time (no faster
// than the longest team streams alone) and the compute time by waves + each unit's Q-block items x
// a latency per item (split-KV: per wave); a call adds its host overhead. The parameters of an
// architecture come from data/hardware/models/<arch>.json; the efficiencies and overheads are
// fitted on measurements (kattn model calibrate) or assumed where no device was measured.
#pragma once

#include "kattn/core/dtype.hpp"
#include "kattn/tuning/launch_plan.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kattn::model {

// Registers a thread of each of kattn's kernels takes on an architecture (0: not measured, so
// registers do not limit its teams in the model).
struct KernelRegisters {
  int split_kv = 0;                // SplitKvKernel (lanes over the head)
  int split_kv_register_rows = 0;  // SplitKvMmaKernel
  int qblock = 0;                  // QBlockKernel (rows in scratch)
  int qblock_register_rows = 0;    // QBlockMmaKernel on mma.sync
  int qblock_warpgroup = 0;        // QBlockMmaKernel on warpgroup products
  int qblock_two_warpgroups = 0;   // ... in teams of two warpgroups (8 warps, tiles of 128 keys)
  int qblock_producer = 0;         // ... with a producer warpgroup beside them (12 warps; at entry)
  int baseline = 0;                // BaselineKernel
};

struct HardwareModel {
  std::string arch;                      // "h100", "a100", "mi300", "mi250", "cpu"
  std::string device;                    // the part the datasheet numbers are for
  std::string tuning_table;              // built-in tuning table the model plans with ("h100", "cpu")
  std::string provenance;                // "calibrated ..." or "assumed ..." (the free parameters)
  bool gpu = true;                       // GPU-style planning (table team shape); false: plan on this host build
  double memory_gb_per_s = 0;            // datasheet peak memory bandwidth, GB/s
  double tensor_tflop_per_s = 0;         // dense fp16/bf16 matrix-unit peak (0 = none)
  double vector_tflop_per_s = 0;         // fp32 FMA peak of the vector (CUDA-core / SIMD) path
  int compute_units = 1;                 // SMs / CUs / cores
  int max_threads_per_unit = 1;          // resident threads per SM/CU (occupancy limit)
  int max_teams_per_unit = 1;            // resident teams (blocks / workgroups) per SM/CU
  int registers_per_unit = 0;            // 32-bit registers of an SM/CU, allocated per warp (0: not modelled)
  int register_granule = 1;              // registers a warp is given in multiples of
  double scratch_bytes_per_unit = 0;     // shared memory / LDS the resident teams share (0: not modelled)
  double scratch_reserved_per_team = 0;  // ... that each resident team takes besides its request
  double team_scratch_max = 0;           // the most team scratch kattn's kernels get (Kokkos' cap; 0: not modelled)
  double split_kv_scratch_max = 0;  // ... the tensor-core split-KV rings (split_kv_scratch_limit; 0: team_scratch_max)
  KernelRegisters kernel_registers;
  int warp_lanes = 32;              // lanes of a warp / wavefront (the tensor-core path needs teams of these)
  double cache_mb = 0;              // last-level cache (L2 / Infinity Cache) that K/V re-reads may hit
  bool register_rows = false;       // kattn's register-row Q-block kernel runs on this arch
  bool warpgroup_products = false;  // ... on warpgroup products (Hopper's wgmma) at head 128
  // Free parameters.
  double mem_efficiency = 1;     // achieved share of memory_gb_per_s
  double tensor_efficiency = 1;  // achieved share of tensor_tflop_per_s
  double vector_efficiency = 1;  // achieved share of vector_tflop_per_s
  double launch_us = 0;          // per launch: its first kernel
  double reduction_us = 0;       // per further kernel of a launch (a reduction), queued behind the first
  double item_us = 0;            // per Q-block work item a resident team takes, beyond its bytes and FLOPs
  double partition_us = 0;       // per wave of split-KV teams (a partition's first tiles and its store)
  double team_gb_per_s = 0;      // the rate one team streams its K/V at, however idle the memory (0: not modelled)
  double host_us = 0;            // per attention call (metadata, planning, host work)
  double parts_overlap = 0;      // share of a split mixed call's shorter part hidden behind the longer
};

// Reads a parameter file; throws FileFormatError naming the file and the missing or bad field.
HardwareModel load_hardware_model(const std::string& path);

// `arch_or_file`: a parameter file (*.json), or an arch whose data/hardware/models/<arch>.json is
// compiled in (builtin_data.hpp), found from any working directory.
HardwareModel hardware_model_for(const std::string& arch_or_file);

// The parameters of a parsed parameter file; `path` names it in errors.
HardwareModel parse_hardware_model(const nlohmann::json& j, const std::string& path);
// data/hardware/models/<arch>.json under `data_dir` (or `arch` itself if it names a .json file).
std::string hardware_model_path(const std::string& arch, const std::string& data_dir = "data");

// A call's batch as the model sees it.
struct BatchShape {
  std::vector<int> query_lens;  // per sequence, kattn's order (decodes first)
  std::vector<int> seq_lens;    // context + query, per sequence
  int num_q_heads = 32;
  int num_kv_heads = 8;
  int head_size = 128;
  int block_size = 16;
  int window_left = -1;       // sliding window, -1 = none
  DType dtype = DType::fp16;  // q, cache and output
};

// What one launch costs, before the hardware.
struct LaunchCost {
  double bytes = 0;            // global memory traffic besides K/V: q, out, partials
  double kv_bytes = 0;         // K/V reads of all teams (each team reads the keys it needs)
  double kv_unique_bytes = 0;  // K/V that some team reads: each key of each KV head once
  double kv_seq_bytes = 0;     // ... of one sequence, the largest: what its re-reads need cached
  double team_kv_bytes = 0;    // K/V of the team (work item) that reads the most
  double flops = 0;            // executed FLOPs (padded to whole Q blocks and tiles; causal tiles skipped)
  double teams = 0;            // teams of the grid
  double items = 0;            // work items the teams take (static grids: more than teams)
  int kernels = 1;             // kernel launches (segmented variants add a reduction)
  bool item_latency = true;    // an item's latency adds up per slot (Q blocks); false: per wave (split-KV partitions)
  bool tensor = false;         // the tile products run on the matrix units
  int team_threads = 1;        // threads x lanes of a team
  int registers = 0;           // per thread (0: not measured)
  double scratch_bytes = 0;    // per team
};

// The launches' costs of `plan` over sequences [first, last) of `batch` on `hw` (its kernels'
// registers and scratch cap).
LaunchCost launch_cost(const LaunchPlan& plan, const BatchShape& batch, int first, int last, const HardwareModel& hw);
// Teams of this launch resident on one unit at once (at least one): threads, registers, scratch.
int teams_per_unit(const LaunchCost& cost, const HardwareModel& hw);
// Microseconds of one launch (without the call's host overhead).
double launch_us(const LaunchCost& cost, const HardwareModel& hw);

// The plans kattn would pick for this batch on `hw`: plan_call with the architecture's tuning
// table, refitted to the target (team shape from the table, tensor-core and register-row paths
// by the target's rules, static grids from its compute units) when hw.gpu. `split_decodes`
// overrides the table's choice for a mixed batch (a run recorded apart or fused).
CallPlan target_call_plan(const BatchShape& batch, const HardwareModel& hw,
                          std::optional<bool> split_decodes = std::nullopt);

// The predicted time of a call with these plans (main over the sequences after the leading
// plan.main.decodes_apart decodes, decodes over those), host overhead included.
double predict_call_us(const CallPlan& plans, const BatchShape& batch, const HardwareModel& hw);
// target_call_plan then predict_call_us.
double predict_us(const BatchShape& batch, const HardwareModel& hw);

}  // namespace kattn::model
