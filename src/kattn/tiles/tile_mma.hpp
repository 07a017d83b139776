// Tensor-core tile products of the Q-block kernels: CUDA mma.sync m16n8k16 (sm_80 and later)
// with fp16 or bf16 operands and fp32 accumulation, behind the portable products of
// qblock_tile_ops.hpp (the kernels call these where the launch plan says tensor_cores).
// Layout: a Kokkos thread is one warp (vector_length 32), so threadIdx.x is the lane and
// threadIdx.y the warp. Operands come from team scratch: fp32 rows (q, the softmax weights) are
// rounded to the operand type as their fragments load; K and V tiles are already in it. Rows,
// keys and head elements past the ends load as zeros, so any block_m, tile and head size work.
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/core/storage_types.hpp"

#include <cstdint>
#include <type_traits>

namespace kattn {

// Storage types the tensor-core products take: fp16 or bf16 for both q and the cache.
template <class Q, class Cache>
constexpr bool tensor_core_operands() {
  return (std::is_same<Q, fp16_t>::value || std::is_same<Q, bf16_t>::value) && std::is_same<Q, Cache>::value;
}

// Whether kattn's execution space runs the products on tensor cores (teams of 32-lane threads).
constexpr bool tensor_cores_available() {
#if defined(KOKKOS_ENABLE_CUDA) && (defined(KOKKOS_ARCH_AMPERE) || defined(KOKKOS_ARCH_HOPPER))
  return std::is_same<ExecutionSpace, Kokkos::Cuda>::value;
#else
  return false;
#endif
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
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
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

// The A fragment of rows [m0, m0+16) × columns [k0, k0+16) of an fp32 row-major matrix.
template <class T, class Element>
__device__ inline void load_a(const Element& element, int m0, int k0, std::uint32_t (&a)[4]) {
  const int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  a[0] = round_pair<T>(element(m0 + g, k0 + 2 * t), element(m0 + g, k0 + 2 * t + 1));
  a[1] = round_pair<T>(element(m0 + g + 8, k0 + 2 * t), element(m0 + g + 8, k0 + 2 * t + 1));
  a[2] = round_pair<T>(element(m0 + g, k0 + 2 * t + 8), element(m0 + g, k0 + 2 * t + 9));
  a[3] = round_pair<T>(element(m0 + g + 8, k0 + 2 * t + 8), element(m0 + g + 8, k0 + 2 * t + 9));
}

// Calls store(row, column, value) for the accumulator elements of tile (m0, n0) this lane holds.
template <class Store>
__device__ inline void for_each_c(int m0, int n0, float (&c)[4], const Store& store) {
  const int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  for (int i = 0; i < 4; ++i) store(m0 + g + (i >= 2 ? 8 : 0), n0 + 2 * t + (i & 1), c[i]);
}

}  // namespace mma_detail
#endif

// raw[r * count + j] = q[r] · k[j] for r < block_m, j < count: q fp32 [block_m × head_size],
// k [tile × head_size] in T; no scale, no mask.
template <class T, class QView, class TileView, class ScoreView>
KOKKOS_INLINE_FUNCTION void tile_dot_products_mma(int block_m, const QView& q, const TileView& k, int count,
                                                  int head_size, const ScoreView& raw) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace mma_detail;
  const int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  const int m_tiles = (block_m + 15) / 16;
  const int n_groups = (count + 8 * kTilesPerWarp - 1) / (8 * kTilesPerWarp);
  const auto q_element = [&](int r, int d) { return r < block_m && d < head_size ? q(r * head_size + d) : 0.0f; };
  const auto k_element = [&](int j, int d) { return j < count && d < head_size ? k(j * head_size + d) : T{0}; };
  for (int unit = threadIdx.y; unit < m_tiles * n_groups; unit += blockDim.y) {
    const int m0 = unit / n_groups * 16;
    const int n0 = unit % n_groups * 8 * kTilesPerWarp;
    float c[kTilesPerWarp][4] = {};
    for (int k0 = 0; k0 < head_size; k0 += 16) {
      std::uint32_t a[4];
      load_a<T>(q_element, m0, k0, a);
#pragma unroll
      for (int n = 0; n < kTilesPerWarp; ++n) {
        if (n0 + 8 * n >= count) break;
        const int key = n0 + 8 * n + g;
        const std::uint32_t b[2] = {pair_bits(k_element(key, k0 + 2 * t), k_element(key, k0 + 2 * t + 1)),
                                    pair_bits(k_element(key, k0 + 2 * t + 8), k_element(key, k0 + 2 * t + 9))};
        mma<T>(c[n], a, b);
      }
    }
#pragma unroll
    for (int n = 0; n < kTilesPerWarp; ++n) {
      if (n0 + 8 * n >= count) break;
      for_each_c(m0, n0 + 8 * n, c[n], [&](int r, int j, float value) {
        if (r < block_m && j < count) raw(r * count + j) = value;
      });
    }
  }
#else
  (void)block_m, (void)q, (void)k, (void)count, (void)head_size, (void)raw;
#endif
}

// acc[r][d] = alpha[r] * acc[r][d] + sum_j weights[r][j] * v[j][d]: acc and weights fp32 in
// scratch, v [tile × head_size] in T.
template <class T, class AccView, class RowView, class ScoreView, class TileView>
KOKKOS_INLINE_FUNCTION void tile_accumulate_mma(int block_m, int count, int head_size, const AccView& acc,
                                                const RowView& row_alpha, const ScoreView& weights,
                                                const TileView& v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace mma_detail;
  const int g = threadIdx.x >> 2, t = threadIdx.x & 3;
  const int m_tiles = (block_m + 15) / 16;
  const int n_groups = (head_size + 8 * kTilesPerWarp - 1) / (8 * kTilesPerWarp);
  const auto weight = [&](int r, int j) { return r < block_m && j < count ? weights(r * count + j) : 0.0f; };
  const auto v_element = [&](int j, int d) { return j < count && d < head_size ? v(j * head_size + d) : T{0}; };
  for (int unit = threadIdx.y; unit < m_tiles * n_groups; unit += blockDim.y) {
    const int m0 = unit / n_groups * 16;
    const int n0 = unit % n_groups * 8 * kTilesPerWarp;
    float c[kTilesPerWarp][4];
#pragma unroll
    for (int n = 0; n < kTilesPerWarp; ++n)
      for (int i = 0; i < 4; ++i) {
        const int r = m0 + g + (i >= 2 ? 8 : 0), d = n0 + 8 * n + 2 * t + (i & 1);
        c[n][i] = r < block_m && d < head_size ? acc(r * head_size + d) * row_alpha(r) : 0.0f;
      }
    for (int k0 = 0; k0 < count; k0 += 16) {
      std::uint32_t a[4];
      load_a<T>(weight, m0, k0, a);
#pragma unroll
      for (int n = 0; n < kTilesPerWarp; ++n) {
        if (n0 + 8 * n >= head_size) break;
        const int d = n0 + 8 * n + g;
        const std::uint32_t b[2] = {pair_bits(v_element(k0 + 2 * t, d), v_element(k0 + 2 * t + 1, d)),
                                    pair_bits(v_element(k0 + 2 * t + 8, d), v_element(k0 + 2 * t + 9, d))};
        mma<T>(c[n], a, b);
      }
    }
#pragma unroll
    for (int n = 0; n < kTilesPerWarp; ++n) {
      if (n0 + 8 * n >= head_size) break;
      for_each_c(m0, n0 + 8 * n, c[n], [&](int r, int d, float value) {
        if (r < block_m && d < head_size) acc(r * head_size + d) = value;
      });
    }
  }
#else
  (void)block_m, (void)count, (void)head_size, (void)acc, (void)row_alpha, (void)weights, (void)v;
#endif
}

}  // namespace kattn
