// What every attention kernel reads: device views, KV accessors and scalars, copied by value
// into the functor.
#pragma once

#include "kattn/core/storage_types.hpp"
#include "kattn/detail/tiles/fast_divisor.hpp"
#include "kattn/detail/tiles/paged_kv.hpp"
#include "kattn/detail/tiles/score_rules.hpp"
#include "kattn/problem/attention_inputs.hpp"
#include "kattn/problem/attention_params.hpp"

#include <type_traits>

namespace kattn {

// The largest s in [0, count) with offsets(s) <= value, by binary search: the sequence that owns
// a token (offsets = cu_seqlens_q) or a Q block (offsets = cumulative Q-block counts).
template <class Offsets>
KOKKOS_INLINE_FUNCTION int find_owner(const Offsets& offsets, int count, int value) {
  int low = 0, high = count - 1;
  while (low < high) {
    const int mid = (low + high + 1) / 2;
    if (offsets(mid) <= value)
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

template <class Q, class Cache, class Out, class Memory>
struct KernelArgs {
  using q_type = Q;
  using cache_type = Cache;
  using out_type = Out;
  using memory_space = Memory;
  // Unmanaged: a launch copies its functor several times on the host, and a managed view's copy
  // counts a reference (an atomic) each time. The caller's views own the memory.
  template <class T>
  using Vector = Kokkos::View<T, Kokkos::LayoutRight, Memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Vector<const Q***> q;
  Vector<Out***> out;
  PagedKvAccessor<Cache> k;
  PagedKvAccessor<Cache> v;
  Vector<const std::int32_t**> block_table;
  Vector<const std::int32_t*> cu_seqlens_q;
  Vector<const std::int32_t*> seq_lens;
  int num_seqs = 0;
  int num_q_heads = 0;
  FastDivisor queries_per_kv;  // query heads per KV head (.divisor); rows find their token and head by it
  FastDivisor num_kv_heads;    // work items find their KV head and Q block by it
  int head_size = 0;
  int block_size = 0;
  ScoreRules<> rules;           // points into the feature views of the inputs
  float out_multiplier = 1.0f;  // v_scale, divided by out_scale for an fp8 output

  // Writes a normalised output element: dequantised by v_scale, quantised for fp8.
  KOKKOS_INLINE_FUNCTION void store_out(int token, int head, int d, float value) const {
    out(token, head, d) = from_float<Out>(value * out_multiplier);
  }

  // Sequence of a query token (sequences with no query tokens are skipped correctly).
  KOKKOS_INLINE_FUNCTION int find_seq(int token) const { return find_owner(cu_seqlens_q, num_seqs, token); }
};

template <class Q, class Cache, class Out, class Memory>
KernelArgs<Q, Cache, Out, Memory> make_kernel_args(const AttentionInputs<Q, Cache, Memory>& in,
                                                   const AttentionParams& params,
                                                   const AttentionOutput<Out, Memory>& out) {
  KernelArgs<Q, Cache, Out, Memory> a;
  const Geometry g = in.geometry();
  a.q = in.q;
  a.out = out;
  a.k = {in.k_cache.data(), std::int64_t(in.k_cache.stride_0()), std::int64_t(in.k_cache.stride_1()),
         std::int64_t(in.k_cache.stride_2())};
  a.v = {in.v_cache.data(), std::int64_t(in.v_cache.stride_0()), std::int64_t(in.v_cache.stride_1()),
         std::int64_t(in.v_cache.stride_2())};
  a.block_table = in.block_table;
  a.cu_seqlens_q = in.cu_seqlens_q;
  a.seq_lens = in.seq_lens;
  a.num_seqs = g.num_seqs;
  a.num_q_heads = g.num_q_heads;
  a.queries_per_kv = FastDivisor(g.queries_per_kv());
  a.num_kv_heads = FastDivisor(g.num_kv_heads);
  a.head_size = g.head_size;
  a.block_size = g.block_size;
  a.rules.scale = float(params.softmax_scale) * params.k_scale;  // q·(k_scale k) = k_scale (q·k)
  a.out_multiplier = params.v_scale / (std::is_same<Out, fp8_e4m3_t>::value ? params.out_scale : 1.0f);
  a.rules.causal = params.causal;
  a.rules.window_left = params.window_left;
  a.rules.softcap = params.softcap;
  a.rules.alibi_slopes = in.alibi_slopes.extent(0) ? in.alibi_slopes.data() : nullptr;
  a.rules.alibi_origin = params.alibi_origin;
  a.rules.sinks = in.sinks.extent(0) ? in.sinks.data() : nullptr;
  a.rules.prefix_lens = in.prefix_lens.extent(0) ? in.prefix_lens.data() : nullptr;
  a.rules.qq_bias = in.qq_bias.extent(0) ? in.qq_bias.data() : nullptr;
  a.rules.qq_bias_size = int(in.qq_bias.extent(0));
  return a;
}

}  // namespace kattn
