#include "kattn/attention.hpp"

#include "kattn/kernels/baseline_kernel.hpp"
#include "kattn/kernels/batch_metadata.hpp"
#include "kattn/kernels/qblock_kernel.hpp"
#include "kattn/kernels/qblock_mma_kernel.hpp"
#include "kattn/kernels/split_kv_kernel.hpp"
#include "kattn/kernels/workspace.hpp"
#include "kattn/problem/validate.hpp"

#include <limits>
#include <optional>
#include <string>

namespace kattn {
namespace {

template <class View>
void require_extent(const View& view, int dim, std::int64_t expected, const char* name, const char* what) {
  if (std::int64_t(view.extent(dim)) != expected)
    throw InvalidProblem(name, "extent(" + std::to_string(dim) + ") is " + std::to_string(view.extent(dim)) +
                                   ", expected " + what + " = " + std::to_string(expected));
}

template <class Q, class Cache, class Out>
void validate_inputs(const AttentionInputs<Q, Cache>& in, const AttentionOutput<Out>& out, const Geometry& g,
                     bool check_values) {
  validate_geometry(g);
  for (int dim = 0; dim < 3; ++dim) require_extent(out, dim, std::int64_t(in.q.extent(dim)), "out", "the extent of q");
  require_extent(in.k_cache, 3, g.head_size, "k_cache", "head_size of q");
  for (int dim = 0; dim < 4; ++dim)
    require_extent(in.v_cache, dim, std::int64_t(in.k_cache.extent(dim)), "v_cache", "the extent of k_cache");
  require_extent(in.block_table, 0, g.num_seqs, "block_table", "num_seqs");
  require_extent(in.cu_seqlens_q, 0, std::int64_t(g.num_seqs) + 1, "cu_seqlens_q", "num_seqs + 1");
  const auto check_cache = [&g](const auto& cache, const char* name) {
    if (cache.stride_3() != 1)
      throw InvalidProblem(std::string(name) + ".stride_head_dim", "must be 1 (contiguous head dimension), got " +
                                                                       std::to_string(cache.stride_3()));
    validate_kv_cache(g, {std::int64_t(cache.stride_0()), std::int64_t(cache.stride_1()), std::int64_t(cache.stride_2())},
                      std::int64_t(cache.span()), name);
  };
  check_cache(in.k_cache, "k_cache");
  check_cache(in.v_cache, "v_cache");
  if (in.prefix_lens.extent(0)) require_extent(in.prefix_lens, 0, g.num_seqs, "prefix_lens", "num_seqs");
  if (in.qq_bias.extent(0) != in.qq_bias.extent(1))
    throw InvalidProblem("qq_bias", "must be square, got " + std::to_string(in.qq_bias.extent(0)) + " × " +
                                        std::to_string(in.qq_bias.extent(1)));
  for (const auto* values : {&in.alibi_slopes, &in.sinks}) {
    const char* name = values == &in.sinks ? "sinks" : "alibi_slopes";
    if (!check_values) {
      validate_head_values(g, nullptr, values->extent(0), name);
      continue;
    }
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), *values);
    validate_head_values(g, host.data(), host.extent(0), name);
  }
  if (check_values && in.qq_bias.span() > 0) {
    const auto qq_bias = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.qq_bias);
    validate_qq_bias_values(qq_bias.data(), qq_bias.span());
  }
}

// One launch of a call: its plan, the sequences and tokens it covers, and where its arrays sit in
// the workspace. Every launch of a call reserves its arrays before the call commits the buffer
// once, so launches of one call never share bytes.
struct PartLaunch {
  LaunchPlan plan;
  int first_seq = 0, first_token = 0, num_tokens = 0;
  std::size_t cu_q_blocks_at = 0, partials_out_at = 0, partials_max_at = 0, partials_sum_at = 0;

  PartLaunch(const LaunchPlan& part_plan, int first, int tokens_before, int tokens, const Geometry& g,
             Workspace::Layout& layout)
      : plan(part_plan), first_seq(first), first_token(tokens_before), num_tokens(tokens) {
    if (plan.variant != Variant::baseline && plan.variant != Variant::split_kv)
      cu_q_blocks_at = layout.reserve(std::size_t(g.num_seqs) + 1, sizeof(std::int32_t));
    // Partials are indexed by the call's token, as the kernels see the whole batch.
    const std::size_t rows = std::size_t(is_segmented(plan.variant) ? plan.num_segments : 0) * g.num_tokens * g.num_q_heads;
    partials_out_at = layout.reserve(rows * g.head_size, sizeof(float));
    partials_max_at = layout.reserve(rows, sizeof(float));
    partials_sum_at = layout.reserve(rows, sizeof(float));
  }

  SegmentPartials partials(char* base, const Geometry& g) const {
    SegmentPartials p;
    const int segments = plan.num_segments;
    p.out = decltype(p.out)(reinterpret_cast<float*>(base + partials_out_at), segments, g.num_tokens, g.num_q_heads,
                            g.head_size);
    p.max = decltype(p.max)(reinterpret_cast<float*>(base + partials_max_at), segments, g.num_tokens, g.num_q_heads);
    p.sum = decltype(p.sum)(reinterpret_cast<float*>(base + partials_sum_at), segments, g.num_tokens, g.num_q_heads);
    return p;
  }
};

// Whether every K and V row admits 16-byte lane loads (the kernels that stream them choose by it).
template <class Args>
bool kv_rows_aligned(const Args& args) {
  return lane_chunks_aligned(args.k) && lane_chunks_aligned(args.v);
}

template <class Args>
void launch_segment_reduce(const ExecutionSpace& space, const Args& args, const Geometry& g, const PartLaunch& part,
                           const SegmentPartials& partials) {
  using Reduce = SegmentReduceKernel<ExecutionSpace, Args>;
  const LaunchPlan& plan = part.plan;
  const bool static_grid = is_static_grid(plan.variant);
  TeamPolicy policy(space, static_grid ? plan.grid_teams : part.num_tokens * g.num_q_heads, plan.team_size,
                    plan.vector_length);
  policy.set_scratch_size(0, Kokkos::PerTeam(Reduce::scratch_bytes(plan.num_segments)));
  Kokkos::parallel_for("kattn::segment_reduce", light_weight(policy),
                       Reduce{args, partials, plan.num_segments, part.first_token, static_grid});
}

template <bool Segmented, class Args>
void launch_qblock(const ExecutionSpace& space, const Args& args, const Geometry& g, const PartLaunch& part,
                   char* base) {
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
    Kokkos::parallel_for(Segmented ? "kattn::segmented" : "kattn::qblock", light_weight(policy), kernel);
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
  if (Segmented) launch_segment_reduce(space, args, g, part, partials);
}

template <class Args>
void launch_split_kv(const ExecutionSpace& space, const Args& args, const Geometry& g, const PartLaunch& part,
                     char* base) {
  const LaunchPlan& plan = part.plan;
  const int row_groups = (g.queries_per_kv() + kSplitKvMaxRows - 1) / kSplitKvMaxRows;
  const std::int64_t items = std::int64_t(part.num_tokens) * g.num_kv_heads * row_groups * plan.num_segments;
  if (items == 0) return;
  if (items > std::numeric_limits<int>::max())
    throw NotSupported("split_kv variant: " + std::to_string(items) + " teams exceed a launch; use fewer tokens");
  const SegmentPartials partials = plan.num_segments > 1 ? part.partials(base, g) : SegmentPartials{};
  using Kernel = SplitKvKernel<ExecutionSpace, Args>;
  TeamPolicy policy(space, int(items), plan.team_size, plan.vector_length);
  policy.set_scratch_size(0, Kokkos::PerTeam(split_kv_scratch_bytes(plan.tile_size, g.head_size)));
  Kokkos::parallel_for("kattn::split_kv", light_weight(policy),
                       Kernel{args, partials, plan.tile_size, plan.num_segments, row_groups, part.first_token,
                              kv_rows_aligned(args)});
  if (plan.num_segments > 1) launch_segment_reduce(space, args, g, part, partials);
}

template <class Args>
void launch_part(const ExecutionSpace& space, const Args& args, const Geometry& g, const PartLaunch& part, char* base) {
  switch (part.plan.variant) {
    case Variant::baseline: BaselineKernel<ExecutionSpace, Args>::launch(space, args, g.num_tokens, part.plan); break;
    case Variant::qblock:
    case Variant::qblock_static: launch_qblock<false>(space, args, g, part, base); break;
    case Variant::segmented:
    case Variant::segmented_static: launch_qblock<true>(space, args, g, part, base); break;
    case Variant::split_kv: launch_split_kv(space, args, g, part, base); break;
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

  const ExecutionSpace space = options.space ? *options.space : ExecutionSpace();
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
  if (decode_part) launch_part(space, args, g, *decode_part, base);
  launch_part(space, args, g, main_part, base);
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
