#include "kattn/attention.hpp"

#include "kattn/kernels/baseline_kernel.hpp"
#include "kattn/kernels/batch_metadata.hpp"
#include "kattn/kernels/qblock_kernel.hpp"
#include "kattn/problem/validate.hpp"

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
void validate_inputs(const AttentionInputs<Q, Cache>& in, const AttentionOutput<Out>& out, const Geometry& g) {
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
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), *values);
    validate_head_values(g, host.data(), host.extent(0), values == &in.sinks ? "sinks" : "alibi_slopes");
  }
}

template <bool Segmented, class Args>
void launch_qblock(const Args& args, const Geometry& g, const LaunchPlan& plan) {
  const int q_per_kv = g.queries_per_kv();
  const int block_q = plan.block_q(q_per_kv);
  const bool static_grid = is_static_grid(plan.variant);
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace> cu_q_blocks("kattn::cu_q_blocks", g.num_seqs + 1);
  const int total_q_blocks = build_q_block_offsets(args.cu_seqlens_q, block_q, cu_q_blocks);
  const int items = total_q_blocks * g.num_kv_heads * plan.num_segments;
  if (items == 0) return;

  SegmentPartials partials;
  if (Segmented) {
    partials.out = decltype(partials.out)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kattn::partial_out")),
                                          plan.num_segments, g.num_tokens, g.num_q_heads, g.head_size);
    partials.max = decltype(partials.max)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kattn::partial_max")),
                                          plan.num_segments, g.num_tokens, g.num_q_heads);
    partials.sum = decltype(partials.sum)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kattn::partial_sum")),
                                          plan.num_segments, g.num_tokens, g.num_q_heads);
  }
  using Kernel = QBlockKernel<ExecutionSpace, Args, Segmented>;
  const Kernel kernel{args, cu_q_blocks, partials, block_q, plan.block_m, plan.tile_size, plan.num_segments, static_grid};
  typename Kernel::Policy policy(static_grid ? plan.grid_teams : items, plan.team_size, plan.vector_length);
  policy.set_scratch_size(
      0, Kokkos::PerTeam(qblock_scratch_bytes(plan.block_m, plan.tile_size, g.head_size, sizeof(typename Args::cache_type))));
  Kokkos::parallel_for(Segmented ? "kattn::segmented" : "kattn::qblock", policy, kernel);

  if (Segmented) {
    using Reduce = SegmentReduceKernel<ExecutionSpace, Args>;
    const Reduce reduce{args, partials, plan.num_segments, static_grid};
    const int rows = g.num_tokens * g.num_q_heads;
    Kokkos::parallel_for("kattn::segment_reduce",
                         typename Reduce::Policy(static_grid ? plan.grid_teams : rows, plan.team_size, plan.vector_length),
                         reduce);
  }
}

}  // namespace

template <class Q, class Cache, class Out>
LaunchPlan attention(const AttentionInputs<Q, Cache>& in, const AttentionParams& params,
                     const AttentionOutput<Out>& out, const AttentionOptions& options) {
  const Geometry g = in.geometry();
  validate_inputs(in, out, g);
  validate_params(g, params);

  // The index tensors are small; their host copies serve validation.
  const auto block_table = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.block_table);
  const auto cu_seqlens_q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.cu_seqlens_q);
  const auto seq_lens = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.seq_lens);
  const auto prefix_lens = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.prefix_lens);
  validate_batch_index(g, {block_table.data(), cu_seqlens_q.data(), seq_lens.data(),
                           prefix_lens.extent(0) ? prefix_lens.data() : nullptr,
                           in.qq_bias.extent(0) ? int(in.qq_bias.extent(0)) : -1});

  BatchMetadata batch = compute_batch_metadata(in.cu_seqlens_q, in.seq_lens);
  batch.window_left = params.window_left;
  const LaunchPlan plan = plan_launch(batch, g, sizeof(Cache), options);
  const auto args = make_kernel_args(in, params, out);
  using Args = decltype(args);
  switch (plan.variant) {
    case Variant::baseline: BaselineKernel<ExecutionSpace, Args>::launch(args, g.num_tokens, plan); break;
    case Variant::qblock:
    case Variant::qblock_static: launch_qblock<false>(args, g, plan); break;
    case Variant::segmented:
    case Variant::segmented_static: launch_qblock<true>(args, g, plan); break;
  }
  return plan;
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
