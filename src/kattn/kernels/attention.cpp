#include "kattn/attention.hpp"

#include "kattn/kernels/baseline_kernel.hpp"
#include "kattn/kernels/batch_metadata.hpp"
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

template <class Storage>
void validate_inputs(const AttentionInputs<Storage>& in, const AttentionOutput<Storage>& out, const Geometry& g) {
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
}

}  // namespace

template <class Storage>
LaunchPlan attention(const AttentionInputs<Storage>& in, const AttentionParams& params,
                     const AttentionOutput<Storage>& out, const AttentionOptions& options) {
  const Geometry g = in.geometry();
  validate_inputs(in, out, g);
  validate_params(g, params);

  // The index tensors are small; their host copies serve validation and the batch metadata.
  const auto block_table = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.block_table);
  const auto cu_seqlens_q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.cu_seqlens_q);
  const auto seq_lens = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in.seq_lens);
  const BatchIndexHost index{block_table.data(), cu_seqlens_q.data(), seq_lens.data()};
  validate_batch_index(g, index);
  if (const std::string missing = params.unsupported_features(); !missing.empty()) throw NotSupported(missing);

  const BatchMetadata batch = compute_batch_metadata(g, index);
  const LaunchPlan plan = plan_launch(batch, g, options);
  const auto args = make_kernel_args(in, params, out);
  switch (plan.variant) {
    case Variant::baseline: BaselineKernel<ExecutionSpace, Storage>::launch(args, g.num_tokens, plan); break;
  }
  return plan;
}

template LaunchPlan attention<float>(const AttentionInputs<float>&, const AttentionParams&,
                                     const AttentionOutput<float>&, const AttentionOptions&);
template LaunchPlan attention<fp16_t>(const AttentionInputs<fp16_t>&, const AttentionParams&,
                                      const AttentionOutput<fp16_t>&, const AttentionOptions&);
template LaunchPlan attention<bf16_t>(const AttentionInputs<bf16_t>&, const AttentionParams&,
                                      const AttentionOutput<bf16_t>&, const AttentionOptions&);

}  // namespace kattn
