#include "kattn/attention.hpp"

#include "kattn/kernels/baseline_kernel.hpp"
#include "kattn/kernels/batch_metadata.hpp"
#include "kattn/kernels/input_checks.hpp"
#include "kattn/kernels/part_launch.hpp"
#include "kattn/kernels/qblock_kernel.hpp"
#include "kattn/kernels/qblock_mma_kernel.hpp"

#include <optional>

namespace kattn {
namespace {

template <bool Segmented, class Args>
void launch_qblock(EagerLaunches& launches, const Args& args, const Geometry& g, const PartLaunch& part, char* base) {
  const ExecutionSpace& space = launches.space;
  const LaunchPlan& plan = part.plan;
  const int block_q = plan.block_q(g.queries_per_kv());
  const bool static_grid = is_static_grid(plan.variant);
  const Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace, Kokkos::MemoryUnmanaged> cu_q_blocks(
      reinterpret_cast<std::int32_t*>(base + part.cu_q_blocks_at), g.num_seqs + 1);
  const int total_q_blocks = build_q_block_offsets(space, args.cu_seqlens_q, block_q, part.first_seq, cu_q_blocks);
  const int items = total_q_blocks * g.num_kv_heads * plan.num_segments;
  if (items == 0) return;

  const SegmentPartials partials = Segmented ? part.partials(base, g) : SegmentPartials{};
  const auto run = [&](const auto& kernel, std::size_t scratch_bytes) {
    TeamPolicy policy(space, static_grid ? plan.grid_teams : items, plan.team_size, plan.vector_length);
    policy.set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
    launches(Segmented ? "kattn::segmented" : "kattn::qblock", policy, kernel);
  };
  using Cache = typename Args::cache_type;
  bool launched = false;
  if constexpr (tensor_core_operands<typename Args::q_type, Cache>() && register_rows_available()) {
    if (plan.register_rows) {
      using Kernel = QBlockMmaKernel<ExecutionSpace, Args, Segmented>;
      run(Kernel{args, cu_q_blocks, partials, block_q, plan.num_segments, static_grid, kv_rows_aligned(args)},
          Kernel::scratch_bytes(g.head_size));
      launched = true;
    }
  }
  if (!launched)
    run(QBlockKernel<ExecutionSpace, Args, Segmented>{args, cu_q_blocks, partials, block_q, plan.block_m,
                                                      plan.tile_size, plan.num_segments, static_grid,
                                                      plan.tensor_cores},
        qblock_scratch_bytes(plan.block_m, plan.tile_size, g.head_size, sizeof(Cache)));
  if (Segmented) launch_segment_reduce(launches, args, g, part, partials);
}

// The Q-block launches read the Q-block count back to size their grid, so they run eagerly only.
template <class Args>
void launch_part(EagerLaunches& launches, const Args& args, const Geometry& g, const PartLaunch& part, char* base) {
  switch (part.plan.variant) {
    case Variant::baseline:
      BaselineKernel<ExecutionSpace, Args>::launch(launches.space, args, g.num_tokens, part.plan);
      break;
    case Variant::qblock:
    case Variant::qblock_static: launch_qblock<false>(launches, args, g, part, base); break;
    case Variant::segmented:
    case Variant::segmented_static: launch_qblock<true>(launches, args, g, part, base); break;
    case Variant::split_kv: launch_split_kv(launches, args, g, part, base); break;
  }
}

}  // namespace

template <class Q, class Cache, class Out>
LaunchPlan attention(const AttentionInputs<Q, Cache>& in, const AttentionParams& params,
                     const AttentionOutput<Out>& out, const AttentionOptions& options) {
  const Geometry g = in.geometry();
  validate_inputs(in, out, g, options.check_values);
  validate_params(params);

  if (options.check_values) {  // the index tensors are small; their host copies serve validation
    const auto block_table = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.block_table);
    const auto cu_seqlens_q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.cu_seqlens_q);
    const auto seq_lens = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.seq_lens);
    const auto prefix_lens = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.prefix_lens);
    validate_batch_index(g, {block_table.data(), cu_seqlens_q.data(), seq_lens.data(),
                             prefix_lens.extent(0) ? prefix_lens.data() : nullptr,
                             in.qq_bias.extent(0) ? int(in.qq_bias.extent(0)) : -1});
  }

  const ExecutionSpace space = options.space.value_or(ExecutionSpace());
  const BatchMetadata batch =
      call_batch_metadata(space, in.cu_seqlens_q, in.seq_lens, params, in.prefix_lens.extent(0) > 0);
  const CallPlan call = plan_call(batch, g, sizeof(Cache), tensor_core_operands<Q, Cache>(), options);
  const auto args = make_kernel_args(in, params, out);
  // The leading decodes (sequences = tokens [0, decodes)) and the rest, or the whole batch.
  const int decodes = call.main.decodes_apart;
  Workspace::Layout layout;
  std::optional<PartLaunch> decode_part;
  if (call.decodes) decode_part.emplace(*call.decodes, 0, 0, decodes, g, layout);
  const PartLaunch main_part(call.main, decodes, decodes, g.num_tokens - decodes, g, layout);
  char* base = Workspace::instance().commit(layout);
  EagerLaunches launches{space};
  if (decode_part) launch_part(launches, args, g, *decode_part, base);
  launch_part(launches, args, g, main_part, base);
  return call.main;
}

// The storage combinations kattn is built for (see dispatch_storage): q fp32, fp16 or bf16; the
// cache and out each q's type or fp8.
#define KATTN_INSTANTIATE(Q, Cache, Out)                                                                \
  template LaunchPlan attention<Q, Cache, Out>(const AttentionInputs<Q, Cache>&, const AttentionParams&, \
                                               const AttentionOutput<Out>&, const AttentionOptions&);
#define KATTN_INSTANTIATE_Q(Q)          \
  KATTN_INSTANTIATE(Q, Q, Q)            \
  KATTN_INSTANTIATE(Q, Q, fp8_e4m3_t)   \
  KATTN_INSTANTIATE(Q, fp8_e4m3_t, Q)   \
  KATTN_INSTANTIATE(Q, fp8_e4m3_t, fp8_e4m3_t)
KATTN_INSTANTIATE_Q(float)
KATTN_INSTANTIATE_Q(fp16_t)
KATTN_INSTANTIATE_Q(bf16_t)

}  // namespace kattn
