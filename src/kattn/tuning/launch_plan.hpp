// How one attention call is launched. Every launch decision is made in plan_launch, in one
// place: the tuning table of the architecture proposes, the caller may override, and the
// planner fits the result to the hardware (scratch size) and the batch.
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/core/arch.hpp"
#include "kattn/problem/geometry.hpp"
#include "kattn/workspace.hpp"

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace kattn {

class TuningTable;

enum class Variant {
  baseline,          // paper 4.3: a team per (query token, query head), tiles of block_size keys
  qblock,            // paper 4.4 + 4.6: a team per (Q block, KV head), tiles of any size
  segmented,         // paper 4.5: Q-block teams per segment of tiles + a reduction kernel
  qblock_static,     // paper 4.7: qblock on a fixed grid of teams looping over the work
  segmented_static,  // paper 4.7: segmented on a fixed grid of teams
  split_kv,          // paper 4.5 for decode: a team per (token, KV head, partition of tile_size keys)
};

std::string_view to_string(Variant variant);
Variant parse_variant(std::string_view name);  // throws std::invalid_argument naming the value
std::vector<Variant> all_variants();
inline void PrintTo(Variant variant, std::ostream* os) { *os << to_string(variant); }  // for GoogleTest

bool is_segmented(Variant variant);
bool is_static_grid(Variant variant);

struct LaunchPlan {
  Variant variant = Variant::qblock;
  int tile_size = 32;               // keys per tile (baseline: always block_size; split_kv: keys per partition)
  int block_m = 16;                 // Q-block rows requested; rounded to a multiple of queries_per_kv
  int num_segments = 1;             // segmented variants only (split_kv: partitions, from tile_size and the batch)
  int team_size = 1;                // Kokkos team size (threads)
  int vector_length = 1;            // Kokkos vector length (lanes per thread)
  int grid_teams = 0;               // static-grid variants: number of teams (0 = static_grid_teams)
  bool tensor_cores = false;        // Q-block tile products on tensor cores (CUDA, fp16/bf16, 32 lanes)
  bool register_rows = false;       // tensor-core Q blocks with rows in registers: 16 per warp (QBlockMmaKernel)
  bool warpgroup_products = false;  // register rows on Hopper's warpgroup products: teams of 4 or 8 warps, head 128
  bool deep_tiles = false;          // ... double-buffered K/V tiles where the team scratch takes them
  // A batch whose decodes lead runs them apart, on a plan of their own (plan_call); false: the
  // whole batch in one launch of this plan. A table leaf decides it by measurement (kattn tune).
  bool split_decodes = true;
  std::string source;     // where the plan came from: "table <arch>: <leaf>" or "defaults"
  int decodes_apart = 0;  // leading decode sequences the call ran apart, on a plan of their own (CallPlan)

  int block_q(int queries_per_kv) const { return block_m >= queries_per_kv ? block_m / queries_per_kv : 1; }
  // Warpgroups of Q rows of a team on the warpgroup products (1 or 2; 0 off them).
  int warpgroups() const;
  // Whether a producer warpgroup copies the tiles for two of rows (team_size 12 on the warpgroup products).
  bool producer_warpgroup() const;
};

// A static grid's teams where the plan leaves them to the device: one a compute unit (SM) for a
// producer team, resident for the whole launch, so that its producer streams the next items' tiles
// while the rows finish an item (its 210 KB of scratch and its launch bounds hold one an SM); else as
// many as the units' threads hold. The planner (the backend's units) and the hardware model (the
// target's) both ask it.
int static_grid_teams(const LaunchPlan& plan, int compute_units, int threads_per_unit);

// The register-row team shape (plan.register_rows, plan.warpgroup_products set): two warpgroups
// where the plan asks for 8 warps or more and `two_warpgroups_fit` (their 210 KB of tiles in the
// team scratch), with a producer warpgroup beside them where it asks for 12 and
// `producer_fits`, else one, or warps up to kFragmentMaxWarps off the warpgroup products; tiles
// of 64 keys a warpgroup of rows, 16 rows a warp. plan_launch and the hardware model's refit
// both apply it.
void fit_register_rows_team(LaunchPlan& plan, int queries_per_kv, bool two_warpgroups_fit, bool producer_fits);

// Caller overrides of the plan; unset fields come from the tuning table.
struct AttentionOptions {
  std::optional<Variant> variant;
  std::optional<int> tile_size;
  std::optional<int> block_m;
  std::optional<int> num_segments;
  std::optional<int> team_size;
  std::optional<int> vector_length;
  std::optional<int> grid_teams;
  std::optional<bool> split_decodes;
  const TuningTable* tuning_table = nullptr;  // default: the built-in table of this build's arch
  // Plan from the untuned defaults, ignoring every table: the baseline a tuned table is judged
  // against (`kattn bench --untuned`, `kattn tune`).
  bool untuned = false;
  // Copy block_table, cu_seqlens_q, seq_lens, prefix_lens, alibi_slopes, sinks and qq_bias to the
  // host and validate their values (shapes and strides are always checked). A caller that built them
  // itself, such as an inference server's scheduler, may turn this off to save the device round
  // trips of a call; invalid values are then undefined behaviour, as in vLLM's kernels.
  bool check_values = true;
  // The execution-space instance the call's kernels, reductions and copies run on (on CUDA, its
  // stream; see core/stream_instance.hpp); empty = the default instance. Optional, so that
  // options can be built before Kokkos is initialised. (This and `workspace` are the default
  // space's: a call on another backend names its instance and workspace itself, attention_on.hpp.)
  std::optional<ExecutionSpace> space;
  // The workspace attention() plans in (kattn/workspace.hpp); null = the shared
  // Workspace::instance(). Calls whose kernels may overlap (other streams) need workspaces of their own.
  Workspace* workspace = nullptr;
};

// element_bytes: size of the cache's storage type (the K/V tiles in scratch are stored in it);
// tensor_core_operands: whether q and the cache types suit the tensor-core tile products. Space is
// the backend the plan is fitted to (its tuning table, team sizes, scratch and which kernels it
// has; built for every backend: core/backends.hpp).
template <class Space = ExecutionSpace>
LaunchPlan plan_launch(const BatchMetadata& batch, const Geometry& g, std::size_t element_bytes,
                       bool tensor_core_operands, const AttentionOptions& options);

// The tensor-core split-KV plan (register rows) fitted to `scratch_limit` bytes of team scratch:
// at most a warp a 16-key tile, then fewer warps, then shorter partitions until every warp's ring
// fits. False where none does. plan_launch and the hardware model (for its target) both ask it.
bool fit_split_kv_rings(LaunchPlan& plan, const Geometry& g, int max_keys, std::size_t element_bytes,
                        std::size_t scratch_limit);

// The launches of one call. A mixed batch whose decodes come first (vLLM's order) runs them apart,
// as the decode batch they would be alone, and the other sequences as theirs: each part gets its
// own plan, so neither slows the other, where the whole batch's plan says so (split_decodes: the
// table's leaf for the whole batch, or the caller). Forced variants and other orders run as one batch.
struct CallPlan {
  LaunchPlan main;                    // the whole batch, or the sequences after the leading decodes
  std::optional<LaunchPlan> decodes;  // the leading decodes' plan, when split
};

template <class Space = ExecutionSpace>
CallPlan plan_call(const BatchMetadata& batch, const Geometry& g, std::size_t element_bytes, bool tensor_core_operands,
                   const AttentionOptions& options);

}  // namespace kattn
