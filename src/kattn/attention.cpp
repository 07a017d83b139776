#include "kattn/attention.hpp"

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/detail/launch/input_checks.hpp"
#include "kattn/detail/launch/part_launch.hpp"

#include <optional>

namespace kattn {

// The parts' launches of a plan and where their arrays sit in its workspace.
struct AttentionPlan::Launches {
  std::optional<PartLaunch> decodes;  // the leading decodes, run apart
  std::optional<PartLaunch> main;     // the whole batch, or the sequences after the leading decodes
  Workspace::Buffers buffers;
  const SideInstance* side = nullptr;  // the workspace's, where the decodes run beside the rest
};

namespace {

bool operator==(const Geometry& a, const Geometry& b) {
  return a.num_tokens == b.num_tokens && a.num_q_heads == b.num_q_heads && a.num_kv_heads == b.num_kv_heads &&
         a.head_size == b.head_size && a.num_blocks == b.num_blocks && a.block_size == b.block_size &&
         a.num_seqs == b.num_seqs && a.max_blocks_per_seq == b.max_blocks_per_seq;
}

// The plan's launches on these inputs, to a launch target (run: eagerly; capture_run: a graph),
// after the checks that let nothing be half-written.
template <class Launches, class Q, class Cache, class Out>
void launch_plan(Launches& launches, const AttentionPlan& plan, const AttentionInputs<Q, Cache>& in,
                 const AttentionOutput<Out>& out) {
  const Geometry g = in.geometry();
  if (!(g == plan.geometry()))
    throw InvalidProblem("inputs", "their geometry differs from the one the plan was made for");
  validate_inputs(in, out, g, false);
  const AttentionPlan::Launches& parts = *plan.launches();
  const auto args = make_kernel_args(in, plan.params(), out);
  if (!parts.decodes) return launch_part(launches, args, g, *parts.main, parts.buffers);
  // The two parts write other rows and other workspace arrays: the decodes (memory-bound) go
  // first, beside the rest (compute-bound), whose teams fill the SMs around them.
  auto decodes = launches.branch(*parts.side);
  launch_part(decodes, args, g, *parts.decodes, parts.buffers);
  launch_part(launches, args, g, *parts.main, parts.buffers);
  launches.join(decodes, *parts.side);
}

}  // namespace

template <class Q, class Cache>
AttentionPlan plan_attention(const AttentionInputs<Q, Cache>& in, const AttentionParams& params,
                             const BatchMetadata& batch, Workspace& workspace, const AttentionOptions& options) {
  const Geometry g = in.geometry();
  validate_geometry(g);
  validate_params(params);
  if (batch.num_seqs != g.num_seqs || batch.num_tokens != g.num_tokens)
    throw InvalidProblem("batch", "describes " + std::to_string(batch.num_seqs) + " sequences of " +
                                      std::to_string(batch.num_tokens) + " tokens; the inputs hold " +
                                      std::to_string(g.num_seqs) + " and " + std::to_string(g.num_tokens));
  BatchMetadata windowed = batch;
  windowed.apply_call_window(params, in.prefix_lens.extent(0) > 0);
  const CallPlan call = plan_call(windowed, g, sizeof(Cache), tensor_core_operands<Q, Cache>(), options);
  // The leading decodes (sequences = tokens [0, decodes)) and the rest, or the whole batch.
  const int decodes = call.main.decodes_apart;
  auto launches = std::make_shared<AttentionPlan::Launches>();
  Workspace::Layout layout;
  if (call.decodes)
    launches->decodes.emplace(*call.decodes, windowed.leading_decode_part(), 0, decodes, 0, decodes, g, layout);
  launches->main.emplace(call.main, call.decodes ? windowed.after_leading_decodes() : windowed, decodes, g.num_seqs,
                         decodes, g.num_tokens - decodes, g, layout);
  launches->buffers = workspace.commit(layout);
  if (launches->decodes) launches->side = &workspace.side();
  return AttentionPlan(g, params, call, std::move(launches));
}

template <class Q, class Cache, class Out>
void run(const AttentionPlan& plan, const AttentionInputs<Q, Cache>& in, const AttentionOutput<Out>& out,
         const std::optional<ExecutionSpace>& space) {
  EagerLaunches launches{space.value_or(ExecutionSpace())};
  launch_plan(launches, plan, in, out);
}

template <class Q, class Cache, class Out>
AttentionGraph capture_run(const AttentionPlan& plan, const AttentionInputs<Q, Cache>& in,
                           const AttentionOutput<Out>& out, const std::optional<ExecutionSpace>& space) {
  const ExecutionSpace exec = space.value_or(ExecutionSpace());
  auto graph = Kokkos::Experimental::create_graph(exec, [&](const auto& root) {
    GraphLaunches launches{exec, root};
    launch_plan(launches, plan, in, out);
  });
  return AttentionGraph(plan, std::make_shared<const Kokkos::Experimental::Graph<ExecutionSpace>>(std::move(graph)));
}

template <class Q, class Cache, class Out>
LaunchPlan attention(const AttentionInputs<Q, Cache>& in, const AttentionParams& params,
                     const AttentionOutput<Out>& out, const AttentionOptions& options) {
  const Geometry g = in.geometry();
  validate_inputs(in, out, g, options.check_values);
  validate_params(params);

  const ExecutionSpace space = options.space.value_or(ExecutionSpace());
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
  const AttentionPlan plan =
      plan_attention(in, params, batch, options.workspace ? *options.workspace : Workspace::instance(), options);
  run(plan, in, out, space);
  return plan.call().main;
}

// The storage combinations kattn is built for (see dispatch_storage): q fp32, fp16 or bf16; the
// cache and out each q's type or fp8.
#define KATTN_INSTANTIATE(Q, Cache, Out)                                                                     \
  template LaunchPlan attention<Q, Cache, Out>(const AttentionInputs<Q, Cache>&, const AttentionParams&,     \
                                               const AttentionOutput<Out>&, const AttentionOptions&);        \
  template void run<Q, Cache, Out>(const AttentionPlan&, const AttentionInputs<Q, Cache>&,                   \
                                   const AttentionOutput<Out>&, const std::optional<ExecutionSpace>&);       \
  template AttentionGraph capture_run<Q, Cache, Out>(const AttentionPlan&, const AttentionInputs<Q, Cache>&, \
                                                     const AttentionOutput<Out>&,                            \
                                                     const std::optional<ExecutionSpace>&);
#define KATTN_INSTANTIATE_Q(Q)                                                                                        \
  template AttentionPlan plan_attention<Q, Q>(const AttentionInputs<Q, Q>&, const AttentionParams&,                   \
                                              const BatchMetadata&, Workspace&, const AttentionOptions&);             \
  template AttentionPlan plan_attention<Q, fp8_e4m3_t>(const AttentionInputs<Q, fp8_e4m3_t>&, const AttentionParams&, \
                                                       const BatchMetadata&, Workspace&, const AttentionOptions&);    \
  KATTN_INSTANTIATE(Q, Q, Q)                                                                                          \
  KATTN_INSTANTIATE(Q, Q, fp8_e4m3_t)                                                                                 \
  KATTN_INSTANTIATE(Q, fp8_e4m3_t, Q)                                                                                 \
  KATTN_INSTANTIATE(Q, fp8_e4m3_t, fp8_e4m3_t)
KATTN_INSTANTIATE_Q(float)
KATTN_INSTANTIATE_Q(fp16_t)
KATTN_INSTANTIATE_Q(bf16_t)

}  // namespace kattn
