#include "kattn/kernels/run_problem.hpp"

#include "kattn/attention.hpp"
#include "kattn/problem/validate.hpp"

namespace kattn {
namespace {

// Fills a freshly allocated contiguous device view from host values, converting each element.
template <class DeviceView, class T>
DeviceView upload(DeviceView device, const std::vector<T>& values) {
  using Element = typename DeviceView::non_const_value_type;
  auto host = Kokkos::create_mirror_view(device);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_same<T, float>::value) host.data()[i] = from_float<Element>(values[i]);
    else host.data()[i] = values[i];
  }
  Kokkos::deep_copy(device, host);
  return device;
}

template <class Storage>
ProblemRun run_typed(const HostProblem& p, const AttentionOptions& options) {
  const Geometry& g = p.geometry;
  using Cache = Kokkos::View<Storage****, Kokkos::LayoutRight, MemorySpace>;
  AttentionInputs<Storage> in;
  in.q = upload(Kokkos::View<Storage***, Kokkos::LayoutRight, MemorySpace>("q", g.num_tokens, g.num_q_heads, g.head_size), p.q);
  in.k_cache = upload(Cache("k_cache", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size), p.k_cache);
  in.v_cache = upload(Cache("v_cache", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size), p.v_cache);
  in.block_table = upload(Kokkos::View<std::int32_t**, Kokkos::LayoutRight, MemorySpace>("block_table", g.num_seqs,
                                                                                     g.max_blocks_per_seq),
                          p.block_table);
  in.cu_seqlens_q = upload(Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace>("cu_seqlens_q", g.num_seqs + 1),
                           p.cu_seqlens_q);
  in.seq_lens = upload(Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace>("seq_lens", g.num_seqs), p.seq_lens);

  AttentionOutput<Storage> out("out", g.num_tokens, g.num_q_heads, g.head_size);
  ProblemRun run;
  run.plan = attention(in, p.params, out, options);
  const auto host_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  run.out.resize(std::size_t(g.q_elements()));
  for (std::size_t i = 0; i < run.out.size(); ++i) run.out[i] = to_float(host_out.data()[i]);
  return run;
}

}  // namespace

ProblemRun run_problem(const HostProblem& problem, const AttentionOptions& options) {
  validate(problem);  // before any allocation, so bad sizes cannot overrun an upload
  return dispatch_dtype(problem.dtype, [&](auto tag) { return run_typed<decltype(tag)>(problem, options); });
}

}  // namespace kattn
