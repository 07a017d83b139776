// The templates of kattn's entry points (attention.hpp: attention, plan_attention, run,
// capture_run; detail/launch/attention_on.hpp: attention_on), kept out of the public headers.
// The build instantiates them once per storage combination, each in a translation unit of its
// own that src/CMakeLists.txt generates from kattn/attention_instances.cpp.in, so that the
// kernels of the combinations compile in parallel and a build can take one combination alone
// (perf/probes/prefill_probe.cpp).
#pragma once

#include "kattn/attention.hpp"
#include "kattn/batch/batch_metadata.hpp"
#include "kattn/core/backends.hpp"
#include "kattn/detail/launch/attention_on.hpp"
#include "kattn/detail/launch/input_checks.hpp"
#include "kattn/detail/launch/part_launch.hpp"

#include <optional>

namespace kattn {

// The parts' launches of a call on Space and where their arrays sit in its workspace.
template <class Space>
struct PlannedParts {
  std::optional<PartLaunch> decodes;  // the leading decodes, run apart
  std::optional<PartLaunch> main;     // the whole batch, or the sequences after the leading decodes
  WorkspaceBuffers buffers;
  const SideInstance<Space>* side = nullptr;  // the workspace's, where the decodes run beside the rest
};

struct AttentionPlan::Launches : PlannedParts<ExecutionSpace> {};

namespace entry_points_detail {

inline bool operator==(const Geometry& a, const Geometry& b) {
  return a.num_tokens == b.num_tokens && a.num_q_heads == b.num_q_heads && a.num_kv_heads == b.num_kv_heads &&
         a.head_size == b.head_size && a.num_blocks == b.num_blocks && a.block_size == b.block_size &&
         a.num_seqs == b.num_seqs && a.max_blocks_per_seq == b.max_blocks_per_seq;
}

// Plans the call on Space (shapes and parameters checked) and carves its parts' arrays out of
// `workspace`.
template <class Space, class Q, class Cache, class Memory>
CallPlan plan_parts(PlannedParts<Space>& parts, const AttentionInputs<Q, Cache, Memory>& in,
                    const AttentionParams& params, const BatchMetadata& batch, BasicWorkspace<Space>& workspace,
                    const AttentionOptions& options) {
  const Geometry g = in.geometry();
  validate_geometry(g);
  validate_params(params);
  if (batch.num_seqs != g.num_seqs || batch.num_tokens != g.num_tokens)
    throw InvalidProblem("batch", "describes " + std::to_string(batch.num_seqs) + " sequences of " +
                                      std::to_string(batch.num_tokens) + " tokens; the inputs hold " +
                                      std::to_string(g.num_seqs) + " and " + std::to_string(g.num_tokens));
  BatchMetadata windowed = batch;
  windowed.apply_call_window(params, in.prefix_lens.extent(0) > 0);
  const CallPlan call = plan_call<Space>(windowed, g, sizeof(Cache), tensor_core_operands<Q, Cache>(), options);
  // The leading decodes (sequences = tokens [0, decodes)) and the rest, or the whole batch.
  const int decodes = call.main.decodes_apart;
  WorkspaceLayout layout;
  if (call.decodes)
    parts.decodes.emplace(*call.decodes, windowed.leading_decode_part(), 0, decodes, 0, decodes, g, layout);
  parts.main.emplace(call.main, call.decodes ? windowed.after_leading_decodes() : windowed, decodes, g.num_seqs,
                     decodes, g.num_tokens - decodes, g, layout);
  parts.buffers = workspace.commit(layout);
  if (parts.decodes) parts.side = &workspace.side();
  return call;
}

// The parts' launches on checked inputs, to a launch target (run: eagerly; capture_run: a graph).
template <class Launches, class Q, class Cache, class Out, class Memory>
void launch_parts(Launches& launches, const PlannedParts<typename Launches::execution_space>& parts,
                  const AttentionParams& params, const AttentionInputs<Q, Cache, Memory>& in,
                  const AttentionOutput<Out, Memory>& out) {
  const Geometry g = in.geometry();
  const auto args = make_kernel_args(in, params, out);
  if constexpr (Launches::kEager) parts.buffers.published->begin_call();
  if (!parts.decodes) return launch_part(launches, args, g, *parts.main, parts.buffers);
  // The two parts write other rows and other workspace arrays: the decodes (memory-bound) go
  // first, on the caller's instance, and the rest (compute-bound) beside them on the side one,
  // behind the fork's wait, so that its teams fill the SMs around the decodes' (launched first,
  // its resident teams took every SM and the decodes ran after them).
  auto rest = launches.branch(*parts.side);
  launch_part(launches, args, g, *parts.decodes, parts.buffers);
  launch_part(rest, args, g, *parts.main, parts.buffers);
  launches.join(rest, *parts.side);
}

// A plan's launches on these inputs, after the checks that let nothing be half-written.
template <class Launches, class Q, class Cache, class Out>
void launch_plan(Launches& launches, const AttentionPlan& plan, const AttentionInputs<Q, Cache>& in,
                 const AttentionOutput<Out>& out) {
  const Geometry g = in.geometry();
  if (!(g == plan.geometry()))
    throw InvalidProblem("inputs", "their geometry differs from the one the plan was made for");
  validate_inputs(in, out, g, false);
  launch_parts(launches, *plan.launches(), plan.params(), in, out);
}

}  // namespace entry_points_detail

template <class Q, class Cache>
AttentionPlan plan_attention(const AttentionInputs<Q, Cache>& in, const AttentionParams& params,
                             const BatchMetadata& batch, Workspace& workspace, const AttentionOptions& options) {
  auto launches = std::make_shared<AttentionPlan::Launches>();
  const CallPlan call = entry_points_detail::plan_parts(*launches, in, params, batch, workspace, options);
  return AttentionPlan(in.geometry(), params, call, std::move(launches));
}

template <class Q, class Cache, class Out>
void run(const AttentionPlan& plan, const AttentionInputs<Q, Cache>& in, const AttentionOutput<Out>& out,
         const std::optional<ExecutionSpace>& space) {
  EagerLaunches<ExecutionSpace> launches{space.value_or(ExecutionSpace())};
  entry_points_detail::launch_plan(launches, plan, in, out);
}

template <class Q, class Cache, class Out>
AttentionGraph capture_run(const AttentionPlan& plan, const AttentionInputs<Q, Cache>& in,
                           const AttentionOutput<Out>& out, const std::optional<ExecutionSpace>& space) {
  const ExecutionSpace exec = space.value_or(ExecutionSpace());
  auto graph = Kokkos::Experimental::create_graph(exec, [&](const auto& root) {
    GraphLaunches<ExecutionSpace> launches{exec, root};
    entry_points_detail::launch_plan(launches, plan, in, out);
  });
  return AttentionGraph(plan, std::make_shared<const Kokkos::Experimental::Graph<ExecutionSpace>>(std::move(graph)),
                        plan.launches()->buffers.published);
}

template <class Space, class Q, class Cache, class Out>
LaunchPlan attention_on(const Space& space, const AttentionInputs<Q, Cache, typename Space::memory_space>& in,
                        const AttentionParams& params, const AttentionOutput<Out, typename Space::memory_space>& out,
                        BasicWorkspace<Space>& workspace, const AttentionOptions& options) {
  const Geometry g = in.geometry();
  validate_inputs(in, out, g, options.check_values);
  validate_params(params);

  BatchMetadata batch;
  if (options.check_values) {  // the index tensors are small; their host copies serve validation and planning
    const auto block_table = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.block_table);
    const auto cu_seqlens_q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.cu_seqlens_q);
    const auto seq_lens = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.seq_lens);
    const auto prefix_lens = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.prefix_lens);
    validate_batch_index(g, {block_table.data(), cu_seqlens_q.data(), seq_lens.data(),
                             prefix_lens.extent(0) ? prefix_lens.data() : nullptr,
                             in.qq_bias.extent(0) ? int(in.qq_bias.extent(0)) : -1});
    batch = host_batch_metadata(cu_seqlens_q.data(), seq_lens.data(), g.num_seqs);
  } else {
    batch = compute_batch_metadata(space, in.cu_seqlens_q, in.seq_lens);
  }
  PlannedParts<Space> parts;
  const CallPlan call = entry_points_detail::plan_parts(parts, in, params, batch, workspace, options);
  EagerLaunches<Space> launches{space};
  entry_points_detail::launch_parts(launches, parts, params, in, out);
  return call.main;
}

template <class Q, class Cache, class Out>
LaunchPlan attention(const AttentionInputs<Q, Cache>& in, const AttentionParams& params,
                     const AttentionOutput<Out>& out, const AttentionOptions& options) {
  return attention_on(options.space.value_or(ExecutionSpace()), in, params, out,
                      options.workspace ? *options.workspace : Workspace::instance(), options);
}

}  // namespace kattn
