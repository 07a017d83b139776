#include "kattn/harness/device_problem.hpp"

#include "kattn/core/backends.hpp"

namespace kattn {
namespace detail {  // named, not anonymous: CUDA extended lambdas need an externally visible parent

// Fills a contiguous device view from host values, converting each element.
template <class DeviceView, class T>
DeviceView upload(DeviceView device, const std::vector<T>& values) {
  using Element = typename DeviceView::non_const_value_type;
  auto host = Kokkos::create_mirror_view(device);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_same<T, float>::value)
      host.data()[i] = from_float<Element>(values[i]);
    else
      host.data()[i] = values[i];
  }
  Kokkos::deep_copy(device, host);
  return device;
}

// Value i of a stream: a 64-bit mix (splitmix64) of (seed, i) mapped to [-1, 1).
KOKKOS_INLINE_FUNCTION float hashed_value(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return float(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <class DeviceView>
DeviceView fill_hashed(DeviceView device, std::uint64_t seed) {
  using Element = typename DeviceView::non_const_value_type;
  Element* data = device.data();
  Kokkos::parallel_for(
      "kattn::fill_hashed", Kokkos::RangePolicy<ExecutionSpace, std::int64_t>(0, std::int64_t(device.span())),
      KOKKOS_LAMBDA(std::int64_t i) { data[i] = from_float<Element>(hashed_value(seed, std::uint64_t(i))); });
  return device;
}

// The index tensors and parameters of `p`, and out unless the caller allocates it.
template <class Q, class Cache, class Out, class Memory = MemorySpace>
DeviceProblem<Q, Cache, Out, Memory> allocate_with_index(const HostProblem& p, bool with_out = true) {
  const Geometry& g = p.geometry;
  DeviceProblem<Q, Cache, Out, Memory> d;
  d.params = p.params;
  d.inputs.block_table = upload(
      Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Memory>("kattn::block_table", g.num_seqs, g.max_blocks_per_seq),
      p.block_table);
  d.inputs.cu_seqlens_q = upload(
      Kokkos::View<std::int32_t*, Kokkos::LayoutRight, Memory>("kattn::cu_seqlens_q", g.num_seqs + 1), p.cu_seqlens_q);
  d.inputs.seq_lens =
      upload(Kokkos::View<std::int32_t*, Kokkos::LayoutRight, Memory>("kattn::seq_lens", g.num_seqs), p.seq_lens);
  if (with_out) d.out = AttentionOutput<Out, Memory>("kattn::out", g.num_tokens, g.num_q_heads, g.head_size);
  using Floats = Kokkos::View<float*, Kokkos::LayoutRight, Memory>;
  if (!p.alibi_slopes.empty())
    d.inputs.alibi_slopes = upload(Floats("kattn::alibi_slopes", g.num_q_heads), p.alibi_slopes);
  if (!p.sinks.empty()) d.inputs.sinks = upload(Floats("kattn::sinks", g.num_q_heads), p.sinks);
  if (!p.prefix_lens.empty())
    d.inputs.prefix_lens = upload(
        Kokkos::View<std::int32_t*, Kokkos::LayoutRight, Memory>("kattn::prefix_lens", g.num_seqs), p.prefix_lens);
  if (!p.qq_bias.empty())
    d.inputs.qq_bias =
        upload(Kokkos::View<float**, Kokkos::LayoutRight, Memory>("kattn::qq_bias", p.qq_bias_size, p.qq_bias_size),
               p.qq_bias);
  return d;
}

template <class Storage, class Memory = MemorySpace>
using Tokens = Kokkos::View<Storage***, Kokkos::LayoutRight, Memory>;
template <class Storage, class Memory = MemorySpace>
using CacheView = Kokkos::View<Storage****, Kokkos::LayoutRight, Memory>;

}  // namespace detail

using namespace detail;

BatchMetadata problem_batch_metadata(const HostProblem& p) {
  using Index = Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace>;
  const Index cu_seqlens_q = detail::upload(Index("kattn::cu_seqlens_q", p.cu_seqlens_q.size()), p.cu_seqlens_q);
  const Index seq_lens = detail::upload(Index("kattn::seq_lens", p.seq_lens.size()), p.seq_lens);
  return call_batch_metadata(ExecutionSpace(), cu_seqlens_q, seq_lens, p.params, !p.prefix_lens.empty());
}

template <class Q, class Cache, class Out, class Space>
DeviceProblem<Q, Cache, Out, typename Space::memory_space> upload_problem(const HostProblem& p) {
  using Memory = typename Space::memory_space;
  const Geometry& g = p.geometry;
  DeviceProblem<Q, Cache, Out, Memory> d = allocate_with_index<Q, Cache, Out, Memory>(p);
  d.inputs.q = upload(Tokens<Q, Memory>("kattn::q", g.num_tokens, g.num_q_heads, g.head_size), p.q);
  d.inputs.k_cache = upload(
      CacheView<Cache, Memory>("kattn::k_cache", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size), p.k_cache);
  d.inputs.v_cache = upload(
      CacheView<Cache, Memory>("kattn::v_cache", g.num_blocks, g.block_size, g.num_kv_heads, g.head_size), p.v_cache);
  return d;
}

// q and out of a synthesized problem, aligned as a torch caller's.
template <class Q, class Cache, class Out>
void synthesize_tokens(DeviceProblem<Q, Cache, Out>& d, const Geometry& g, std::uint64_t seed) {
  d.inputs.q =
      fill_hashed(aligned_view<Tokens<Q>>(d.storage, "kattn::q", g.num_tokens, g.num_q_heads, g.head_size), seed);
  d.out = aligned_view<AttentionOutput<Out>>(d.storage, "kattn::out", g.num_tokens, g.num_q_heads, g.head_size);
}

template <class Q, class Cache, class Out>
DeviceProblem<Q, Cache, Out> synthesize_problem(const HostProblem& layout, std::uint64_t seed) {
  const Geometry& g = layout.geometry;
  DeviceProblem<Q, Cache, Out> d = allocate_with_index<Q, Cache, Out>(layout, false);
  synthesize_tokens(d, g, seed);
  const auto cache = [&](const char* label, std::uint64_t cache_seed) {
    return fill_hashed(
        aligned_view<CacheView<Cache>>(d.storage, label, g.num_blocks, g.block_size, g.num_kv_heads, g.head_size),
        cache_seed);
  };
  d.inputs.k_cache = cache("kattn::k_cache", seed + 1);
  d.inputs.v_cache = cache("kattn::v_cache", seed + 2);
  return d;
}

template <class Q, class Cache, class Out>
DeviceProblem<Q, Cache, Out> synthesize_queries(const HostProblem& layout, const DeviceProblem<Q, Cache, Out>& caches,
                                                std::uint64_t seed) {
  const Geometry& g = layout.geometry;
  DeviceProblem<Q, Cache, Out> d = allocate_with_index<Q, Cache, Out>(layout, false);
  synthesize_tokens(d, g, seed);
  d.inputs.k_cache = caches.inputs.k_cache;
  d.inputs.v_cache = caches.inputs.v_cache;
  d.storage.insert(d.storage.end(), caches.storage.begin(), caches.storage.end());
  return d;
}

#define KATTN_INSTANTIATE_UPLOAD(Space, Q, Cache, Out) \
  template DeviceProblem<Q, Cache, Out, Space::memory_space> upload_problem<Q, Cache, Out, Space>(const HostProblem&);
#define KATTN_INSTANTIATE(Q, Cache, Out)                                                                      \
  template DeviceProblem<Q, Cache, Out> synthesize_problem<Q, Cache, Out>(const HostProblem&, std::uint64_t); \
  template DeviceProblem<Q, Cache, Out> synthesize_queries<Q, Cache, Out>(                                    \
      const HostProblem&, const DeviceProblem<Q, Cache, Out>&, std::uint64_t);
#define KATTN_INSTANTIATE_Q(Q)        \
  KATTN_INSTANTIATE(Q, Q, Q)          \
  KATTN_INSTANTIATE(Q, Q, fp8_e4m3_t) \
  KATTN_INSTANTIATE(Q, fp8_e4m3_t, Q) \
  KATTN_INSTANTIATE(Q, fp8_e4m3_t, fp8_e4m3_t)
KATTN_INSTANTIATE_Q(float)
KATTN_INSTANTIATE_Q(fp16_t)
KATTN_INSTANTIATE_Q(bf16_t)

#define KATTN_INSTANTIATE_UPLOAD_SPACE(Space) KATTN_FOR_EACH_STORAGE_ON(KATTN_INSTANTIATE_UPLOAD, Space)
KATTN_FOR_EACH_BACKEND(KATTN_INSTANTIATE_UPLOAD_SPACE)

}  // namespace kattn
