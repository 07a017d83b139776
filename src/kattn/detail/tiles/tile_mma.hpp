// Tensor-core tile products of the Q-block kernels: CUDA mma.sync m16n8k16 (sm_80 and later) or
// AMD MFMA 16x16x16 (tile_mfma.hpp) with fp16 or bf16 operands and fp32 accumulation, behind the
// portable products of qblock_tile_ops.hpp (on host backends built with Kokkos Kernels, its
// batched team products: team_gemm.hpp): qblock_tile_scores and qblock_tile_accumulate pick one
// per call. Layout: a Kokkos thread is one warp (vector_length 32; a 64-lane wavefront on
// AMD), so threadIdx.x is the lane and threadIdx.y the warp. Operands come from team scratch: fp32 rows (q, the softmax weights) are
// rounded to the operand type as their fragments load; K and V tiles are already in it. Rows,
// keys and head elements past the ends load as zeros, so any block_m, tile and head size work.
#pragma once

#include "kattn/core/arch.hpp"
#include "kattn/core/execution_space.hpp"
#include "kattn/core/storage_types.hpp"
#include "kattn/detail/tiles/qblock_tile_ops.hpp"
#include "kattn/detail/tiles/team_gemm.hpp"
#include "kattn/detail/tiles/tile_mfma.hpp"

#include <cstdint>
#include <type_traits>

namespace kattn {

// Storage types the tensor-core products take: fp16 or bf16 for both q and the cache.
template <class Q, class Cache>
KOKKOS_INLINE_FUNCTION constexpr bool tensor_core_operands() {
  return (std::is_same<Q, fp16_t>::value || std::is_same<Q, bf16_t>::value) && std::is_same<Q, Cache>::value;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
namespace mma_detail {

constexpr int kTilesPerWarp = 8;  // n8 tiles a warp keeps in registers per unit of work

template <class T>
__device__ inline std::uint32_t round_pair(float lo, float hi);
template <>
__device__ inline std::uint32_t round_pair<fp16_t>(float lo, float hi) {
  std::uint32_t packed;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}
template <>
__device__ inline std::uint32_t round_pair<bf16_t>(float lo, float hi) {
  std::uint32_t packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

template <class T>
__device__ inline std::uint32_t pair_bits(T lo, T hi) {
  return std::uint32_t(lo.bits) | (std::uint32_t(hi.bits) << 16);
}

// d += a · b for one 16×8×16 tile; a row-major 16×16, b column-major 16×8.
template <class T>
__device__ inline void mma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]);
template <>
__device__ inline void mma<fp16_t>(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <>
__device__ inline void mma<bf16_t>(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// C[m × n] = C0 + A[m × k] · B[k × n], spread over the team's warps: a warp takes 16 rows ×
// 8·kTilesPerWarp columns at a time and keeps them in registers over the whole k loop.
// a(r, i) gives fp32 (rounded to T here), b(i, c) gives T; both are called only inside the
// matrix, and the fragments are zero outside it. c_init(r, c) gives C0, store(r, c, value) takes
// the result, both only inside.
template <class T, class A, class B, class Init, class Store>
__device__ inline void warp_tile_product(int m, int n, int k, const A& a, const B& b, const Init& c_init,
                                         const Store& store) {
  const int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  const auto a_at = [&](int r, int i) { return r < m && i < k ? a(r, i) : 0.0f; };
  const auto b_at = [&](int i, int c) { return i < k && c < n ? b(i, c) : T{0}; };
  const int m_tiles = (m + 15) / 16;
  const int n_groups = (n + 8 * kTilesPerWarp - 1) / (8 * kTilesPerWarp);
  for (int unit = threadIdx.y; unit < m_tiles * n_groups; unit += blockDim.y) {
    const int m0 = unit / n_groups * 16;
    const int n0 = unit % n_groups * 8 * kTilesPerWarp;
    // This lane's accumulator element i of n-tile j sits at row m0 + g (+8 for i >= 2) and column
    // n0 + 8j + 2t (+1 for odd i).
    const auto row = [&](int i) { return m0 + g + (i >= 2 ? 8 : 0); };
    const auto column = [&](int j, int i) { return n0 + 8 * j + 2 * t + (i & 1); };
    float c[kTilesPerWarp][4];
#pragma unroll
    for (int j = 0; j < kTilesPerWarp; ++j)
      for (int i = 0; i < 4; ++i) c[j][i] = row(i) < m && column(j, i) < n ? c_init(row(i), column(j, i)) : 0.0f;
    for (int k0 = 0; k0 < k; k0 += 16) {
      const std::uint32_t a_fragment[4] = {
          round_pair<T>(a_at(m0 + g, k0 + 2 * t), a_at(m0 + g, k0 + 2 * t + 1)),
          round_pair<T>(a_at(m0 + g + 8, k0 + 2 * t), a_at(m0 + g + 8, k0 + 2 * t + 1)),
          round_pair<T>(a_at(m0 + g, k0 + 2 * t + 8), a_at(m0 + g, k0 + 2 * t + 9)),
          round_pair<T>(a_at(m0 + g + 8, k0 + 2 * t + 8), a_at(m0 + g + 8, k0 + 2 * t + 9))};
#pragma unroll
      for (int j = 0; j < kTilesPerWarp; ++j) {
        if (n0 + 8 * j >= n) break;
        const int col = n0 + 8 * j + g;
        const std::uint32_t b_fragment[2] = {pair_bits(b_at(k0 + 2 * t, col), b_at(k0 + 2 * t + 1, col)),
                                             pair_bits(b_at(k0 + 2 * t + 8, col), b_at(k0 + 2 * t + 9, col))};
        mma<T>(c[j], a_fragment, b_fragment);
      }
    }
#pragma unroll
    for (int j = 0; j < kTilesPerWarp; ++j)
      for (int i = 0; i < 4; ++i)
        if (row(i) < m && column(j, i) < n) store(row(i), column(j, i), c[j][i]);
  }
}

}  // namespace mma_detail
#endif

// The product on whichever matrix unit the device compilation has; nothing in host passes.
template <class T, class A, class B, class Init, class Store>
KOKKOS_INLINE_FUNCTION void device_tile_product(int m, int n, int k, const A& a, const B& b, const Init& c_init,
                                                const Store& store) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  mma_detail::warp_tile_product<T>(m, n, k, a, b, c_init, store);
#elif defined(KATTN_MFMA_DEVICE)
  mfma_detail::warp_tile_product<T>(m, n, k, a, b, c_init, store);
#else
  (void)m, (void)n, (void)k, (void)a, (void)b, (void)c_init, (void)store;
#endif
}

// raw[r * count + j] = q[r] · k[j] for r < block_m, j < count: q fp32 [block_m × head_size],
// k [tile × head_size] in T; no scale, no mask.
template <class T, class QView, class TileView, class ScoreView>
KOKKOS_INLINE_FUNCTION void tile_dot_products_mma(int block_m, const QView& q, const TileView& k, int count,
                                                  int head_size, const ScoreView& raw) {
  device_tile_product<T>(
      block_m, count, head_size, [&](int r, int d) { return q(r * head_size + d); },
      [&](int d, int j) { return k(j * head_size + d); }, [](int, int) { return 0.0f; },
      [&](int r, int j, float value) { raw(r * count + j) = value; });
}

// acc[r][d] = alpha[r] * acc[r][d] + sum_j weights[r][j] * v[j][d]: acc and weights fp32 in
// scratch, v [tile × head_size] in T.
template <class T, class AccView, class RowView, class ScoreView, class TileView>
KOKKOS_INLINE_FUNCTION void tile_accumulate_mma(int block_m, int count, int head_size, const AccView& acc,
                                                const RowView& row_alpha, const ScoreView& weights, const TileView& v) {
  device_tile_product<T>(
      block_m, head_size, count, [&](int r, int j) { return weights(r * count + j); },
      [&](int j, int d) { return v(j * head_size + d); },
      [&](int r, int d) { return acc(r * head_size + d) * row_alpha(r); },
      [&](int r, int d, float value) { acc(r * head_size + d) = value; });
}

// The two products of a Q-block tile step, on tensor cores where the launch plan says so and the
// storage types allow it, else the portable products of qblock_tile_ops.hpp.
template <class Q, class Member, class QView, class TileView, class ScoreView>
KOKKOS_INLINE_FUNCTION void qblock_tile_scores(const Member& team, bool tensor_cores, const QBlockRows& rows,
                                               int block_m, const QView& q, const TileView& k, int first, int count,
                                               int head_size, const ScoreRules<>& rules, const ScoreView& scores) {
  using Cache = typename TileView::non_const_value_type;
  if constexpr (tensor_core_operands<Q, Cache>()) {
    if (tensor_cores) {
      tile_dot_products_mma<Cache>(block_m, q, k, count, head_size, scores);
      team.team_barrier();
      return qblock_apply_rules(team, rows, block_m, first, count, rules, scores);
    }
  }
#if defined(KATTN_KOKKOS_KERNELS)
  if constexpr (team_gemm_available<typename Member::execution_space>() && std::is_same<Cache, float>::value) {
    team_gemm_scores(team, block_m, count, head_size, q.data(), k.data(), scores.data());
    team.team_barrier();
    return qblock_apply_rules(team, rows, block_m, first, count, rules, scores);
  }
#endif
  qblock_scores(team, rows, block_m, q, k, first, count, head_size, rules, scores);
}

template <class Q, class Member, class AccView, class RowView, class ScoreView, class TileView>
KOKKOS_INLINE_FUNCTION void qblock_tile_accumulate(const Member& team, bool tensor_cores, int block_m, int count,
                                                   int head_size, const AccView& acc, const RowView& row_alpha,
                                                   const ScoreView& weights, const TileView& v) {
  using Cache = typename TileView::non_const_value_type;
  if constexpr (tensor_core_operands<Q, Cache>()) {
    if (tensor_cores) return tile_accumulate_mma<Cache>(block_m, count, head_size, acc, row_alpha, weights, v);
  }
#if defined(KATTN_KOKKOS_KERNELS)
  if constexpr (team_gemm_available<typename Member::execution_space>() && std::is_same<Cache, float>::value)
    return team_gemm_accumulate(team, block_m, count, head_size, acc.data(), row_alpha.data(), weights.data(),
                                v.data());
#endif
  qblock_accumulate(team, block_m, count, head_size, acc, row_alpha, weights, v);
}

}  // namespace kattn
