// kattn's entry point: paged attention over a vLLM-layout KV cache on the default execution space.
//
//   problem (inputs + params) -> validation -> batch metadata -> launch plan -> kernels -> out
//
// Two ways in. attention() does it all in one call. plan_attention() + run() split it as serving
// engines do (FlashInfer's plan/run, vLLM's metadata builder): the plan takes what the caller
// knows of the batch on the host, chooses every launch and carves the call's arrays out of a
// workspace; run() then only launches kernels (no allocation, no device-to-host copy, no fence),
// so it can be replayed every layer of a step and captured in a graph.
//
// Throws InvalidProblem for bad input and NotSupported for features not implemented yet; in
// both cases nothing is written to `out`.
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/core/error.hpp"
#include "kattn/core/storage_types.hpp"
#include "kattn/problem/attention_inputs.hpp"
#include "kattn/problem/attention_params.hpp"
#include "kattn/tuning/launch_plan.hpp"
#include "kattn/workspace.hpp"

#include <Kokkos_Graph.hpp>

#include <memory>

namespace kattn {

// Q is float, fp16_t or bf16_t; Cache and Out are Q or fp8_e4m3_t. Inputs and output live in
// kattn::MemorySpace. Returns the plan that ran.
template <class Q, class Cache, class Out>
LaunchPlan attention(const AttentionInputs<Q, Cache>& inputs, const AttentionParams& params,
                     const AttentionOutput<Out>& out, const AttentionOptions& options = {});

// The launches of calls on one batch shape. Holds the geometry and parameters it was planned for,
// and points into the workspace it was given, which must outlive it and serve no other plan's
// runs while they may overlap (one workspace per stream or per plan). A later plan that grows the
// workspace moves it: plans made on it before are then stale and must be made again.
class AttentionPlan {
 public:
  struct Launches;  // the parts' launches and their arrays (detail/launch/entry_points.hpp)

  const CallPlan& call() const { return call_; }
  const Geometry& geometry() const { return geometry_; }
  const AttentionParams& params() const { return params_; }
  const std::shared_ptr<const Launches>& launches() const { return launches_; }

  AttentionPlan(const Geometry& g, const AttentionParams& params, const CallPlan& call,
                std::shared_ptr<const Launches> launches)
      : geometry_(g), params_(params), call_(call), launches_(std::move(launches)) {}

 private:
  Geometry geometry_;
  AttentionParams params_;
  CallPlan call_;
  std::shared_ptr<const Launches> launches_;
};

// Plans calls on `inputs`' shapes for a batch described by `batch` (host_batch_metadata from host
// copies of cu_seqlens_q and seq_lens, exact; or bounded_batch_metadata from the counts and maxima
// a server knows, an upper bound: then a mixed batch is not split). Checks shapes and parameters;
// index values are the caller's (as with check_values off). May grow `workspace`.
template <class Q, class Cache>
AttentionPlan plan_attention(const AttentionInputs<Q, Cache>& inputs, const AttentionParams& params,
                             const BatchMetadata& batch, Workspace& workspace, const AttentionOptions& options = {});

// Launches the plan's kernels on inputs of its geometry (any contents within the batch the plan
// was made for), on `space` (default: the default instance). Asynchronous: returns after the
// launches.
template <class Q, class Cache, class Out>
void run(const AttentionPlan& plan, const AttentionInputs<Q, Cache>& inputs, const AttentionOutput<Out>& out,
         const std::optional<ExecutionSpace>& space = std::nullopt);

// run() captured once as a Kokkos graph (a CUDA graph on CUDA; paper 6.2) over fixed inputs and
// output: each replay reads their current contents, so a server writes a step's q, block table,
// cu_seqlens_q and seq_lens into the same buffers (within the plan's batch) and replays — every
// variant, decode and mixed steps alike. Keeps the plan (and through it the launches' arrays); the
// plan's workspace must outlive it and must not grow.
class AttentionGraph {
 public:
  AttentionGraph(AttentionPlan plan, std::shared_ptr<const Kokkos::Experimental::Graph<ExecutionSpace>> graph,
                 PublishedMaps* published)
      : plan_(std::move(plan)), graph_(std::move(graph)), published_(published) {}
  // Asynchronous like run(). The graph's kernels may write any of the workspace's buffer: the next
  // eager call on it writes its tensor maps again.
  void replay() const {
    published_->forget();
    graph_->submit();
  }
  const AttentionPlan& plan() const { return plan_; }

 private:
  AttentionPlan plan_;
  std::shared_ptr<const Kokkos::Experimental::Graph<ExecutionSpace>> graph_;
  PublishedMaps* published_;  // the plan's workspace's
};

// Checks as run() does, then captures the plan's launches on these buffers.
template <class Q, class Cache, class Out>
AttentionGraph capture_run(const AttentionPlan& plan, const AttentionInputs<Q, Cache>& buffers,
                           const AttentionOutput<Out>& out, const std::optional<ExecutionSpace>& space = std::nullopt);

}  // namespace kattn
