// Register-resident tiles of the tensor-core Q-block kernel (FlashAttention-2's layout): a warp
// owns 16 query rows, and their Q operands, output accumulator and softmax state stay in its
// registers over the whole key loop. K and V tiles come from team scratch through ldmatrix, so
// scores and weights never touch scratch. CUDA sm_80 and later (mma.sync m16n8k16, fp16 or bf16
// in, fp32 accumulate); the planner launches this kernel only where register_rows_available(), and
// the other backends keep the portable Q-block kernel. Host compilation passes see empty bodies.
//
// Lane l of a warp holds, of every 16 × 8 accumulator tile, rows l/4 and l/4 + 8 and columns
// 2(l%4) and 2(l%4) + 1: element i of a tile sits at row l/4 + 8(i/2), column 2(l%4) + i%2.
#pragma once

#include "kattn/tiles/lane_chunk.hpp"
#include "kattn/tiles/online_softmax.hpp"
#include "kattn/tiles/paged_kv.hpp"
#include "kattn/tiles/tile_mma.hpp"

#include <cstdint>

namespace kattn {

constexpr int kFragmentRows = 16;       // query rows per warp
constexpr int kFragmentTileKeys = 32;   // keys per K/V tile: two K/V pairs of them fit in scratch
constexpr int kFragmentMaxHead = 128;   // head sizes up to this, in multiples of 16
constexpr int kFragmentTilePad = 8;     // elements after each scratch row: ldmatrix rows hit distinct banks

// Whether the register-row kernel runs here: its fragments follow CUDA's mma.sync layout.
constexpr bool register_rows_available() {
#if defined(KOKKOS_ENABLE_CUDA)
  return tensor_cores_available();
#else
  return false;
#endif
}

KOKKOS_INLINE_FUNCTION constexpr int fragment_tile_stride(int head_size) { return head_size + kFragmentTilePad; }

// What one lane keeps for its two rows.
struct WarpRowFragments {
  std::uint32_t q[kFragmentMaxHead / 16][4];  // A operands of Q, one per 16 head elements
  float o[kFragmentMaxHead / 8][4] = {};      // output accumulator, one tile per 8 head elements
  SoftmaxState state[2];                      // rows l/4 and l/4 + 8; sums are this lane's share
};

// Scores of the warp's rows against one K tile: one accumulator tile per 8 keys.
using WarpScores = float[kFragmentTileKeys / 8][4];

// The lane's row (0..15) and column offset within an accumulator tile, for element i.
KOKKOS_INLINE_FUNCTION int fragment_row(int lane, int i) { return (lane >> 2) + ((i >> 1) << 3); }
KOKKOS_INLINE_FUNCTION int fragment_column(int lane, int i) { return ((lane & 3) << 1) + (i & 1); }

// The lane index inside its warp (the Kokkos vector lane of a 32-lane thread).
KOKKOS_INLINE_FUNCTION int warp_lane() {
#if defined(__CUDA_ARCH__)
  return int(threadIdx.x);
#else
  return 0;
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
namespace fragment_detail {

// Four 8 × 8 matrices of 16-bit elements from scratch; lane l gives the address of row l % 8 of
// matrix l / 8. Plain: lane l receives (row l/4, columns 2(l%4), +1) of each; transposed:
// (rows 2(l%4), +1, column l/4).
__device__ inline void load_matrices(std::uint32_t (&r)[4], const void* row) {
  const unsigned address = unsigned(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ inline void load_matrices_transposed(std::uint32_t (&r)[4], const void* row) {
  const unsigned address = unsigned(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// e^x for x <= 0 (weights, rescale factors) by the hardware exp2 in two instructions; __expf adds
// a denormal guard of three more per call, and expf a dozen. Its error (2 ulp) lies far below the
// fp16/bf16 rounding the weights get next.
__device__ inline float exp_by_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
}

// Reduction over the four lanes that share a row.
__device__ inline float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ inline float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// The online-softmax step of a lane's two rows over a tile of logits (-inf where masked), for any
// accumulator layout: row_of(i) is the row (0 or 1) of element i of a score or output tile, and
// row_max reduces a row's max over the lanes that share the row. Moves each row's running max,
// rescales the output (skipped when no row's max moved: past the first tiles it rarely does) and
// turns s into the weights, with the hardware exp2 (weights are at most 1, where its error is far
// below the fp16/bf16 rounding they get next).
template <int ScoreTiles, int OutTiles, class RowOf, class RowMax>
__device__ inline void lane_rows_softmax_step(SoftmaxState (&state)[2], float (&s)[ScoreTiles][4],
                                              float (&o)[OutTiles][4], const RowOf& row_of, const RowMax& row_max) {
  float tile_max[2] = {-compat::infinity(), -compat::infinity()};
#pragma unroll
  for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) tile_max[row_of(i)] = fmaxf(tile_max[row_of(i)], s[j][i]);
  float alpha[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {  // SoftmaxState::rescale_to, with the hardware exp2
    const float new_max = fmaxf(state[h].max, row_max(tile_max[h]));
    alpha[h] = state[h].max == -compat::infinity() ? 0.0f : exp_by_exp2(state[h].max - new_max);
    state[h].sum *= alpha[h];
    state[h].max = new_max;
  }
  if (__any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f)) {
#pragma unroll
    for (int n = 0; n < OutTiles; ++n)
#pragma unroll
      for (int i = 0; i < 4; ++i) o[n][i] *= alpha[row_of(i)];
  }
  float tile_sum[2] = {0.0f, 0.0f};
#pragma unroll
  for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      s[j][i] = s[j][i] == -compat::infinity() ? 0.0f : exp_by_exp2(s[j][i] - state[row_of(i)].max);
      tile_sum[row_of(i)] += s[j][i];
    }
  state[0].sum += tile_sum[0];
  state[1].sum += tile_sum[1];
}

}  // namespace fragment_detail
#endif

// Loads the warp's Q operands: q_at(row, d) gives the element (zero for padding rows).
template <class T, class QAt>
KOKKOS_INLINE_FUNCTION void load_q_fragments(WarpRowFragments& f, int head_size, const QAt& q_at) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int g = warp_lane() >> 2, t2 = (warp_lane() & 3) * 2;
#pragma unroll
  for (int kk = 0; kk < kFragmentMaxHead / 16; ++kk) {
    if (16 * kk >= head_size) break;
    const int d = 16 * kk + t2;
    f.q[kk][0] = mma_detail::pair_bits(q_at(g, d), q_at(g, d + 1));
    f.q[kk][1] = mma_detail::pair_bits(q_at(g + 8, d), q_at(g + 8, d + 1));
    f.q[kk][2] = mma_detail::pair_bits(q_at(g, d + 8), q_at(g, d + 9));
    f.q[kk][3] = mma_detail::pair_bits(q_at(g + 8, d + 8), q_at(g + 8, d + 9));
  }
#else
  (void)f, (void)head_size, (void)q_at;
#endif
}

// s = Q · K^T for the warp's rows and the tile's kFragmentTileKeys keys; k_tile is
// [kFragmentTileKeys][fragment_tile_stride(head_size)] in T.
template <class T>
KOKKOS_INLINE_FUNCTION void warp_scores(const WarpRowFragments& f, const T* k_tile, int head_size, WarpScores& s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = warp_lane(), stride = fragment_tile_stride(head_size);
  // Matrix lane/8 of a pair of key tiles: keys +8 for matrices 2 and 3, head elements +8 for 1 and 3.
  const T* lane_row = k_tile + (((lane >> 4) << 3) + (lane & 7)) * stride + ((lane >> 3) & 1) * 8;
#pragma unroll
  for (int j = 0; j < kFragmentTileKeys / 8; ++j)
    for (int i = 0; i < 4; ++i) s[j][i] = 0.0f;
#pragma unroll
  for (int kk = 0; kk < kFragmentMaxHead / 16; ++kk) {
    if (16 * kk >= head_size) break;
#pragma unroll
    for (int j2 = 0; j2 < kFragmentTileKeys / 16; ++j2) {
      std::uint32_t b[4];
      fragment_detail::load_matrices(b, lane_row + 16 * j2 * stride + 16 * kk);
      const std::uint32_t first[2] = {b[0], b[1]}, second[2] = {b[2], b[3]};
      mma_detail::mma<T>(s[2 * j2], f.q[kk], first);
      mma_detail::mma<T>(s[2 * j2 + 1], f.q[kk], second);
    }
  }
#else
  (void)f, (void)k_tile, (void)head_size, (void)s;
#endif
}

// Online-softmax step of the warp's rows over a tile of logits (-inf where masked): moves each
// row's running max, rescales its accumulator, and turns s into the weights.
KOKKOS_INLINE_FUNCTION void warp_softmax_step(WarpRowFragments& f, WarpScores& s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  fragment_detail::lane_rows_softmax_step(
      f.state, s, f.o, [](int i) { return i >> 1; }, [](float x) { return fragment_detail::quad_max(x); });
#else
  (void)f, (void)s;
#endif
}

// o += P · V with the weights of warp_softmax_step rounded to T; v_tile as k_tile in warp_scores.
template <class T>
KOKKOS_INLINE_FUNCTION void warp_accumulate(WarpRowFragments& f, const WarpScores& p, const T* v_tile,
                                            int head_size) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = warp_lane(), stride = fragment_tile_stride(head_size);
  // Transposed matrix lane/8: keys +8 for matrices 1 and 3, head elements +8 for 2 and 3.
  const T* lane_row = v_tile + (((lane >> 3) & 1) * 8 + (lane & 7)) * stride + ((lane >> 4) << 3);
#pragma unroll
  for (int kk = 0; kk < kFragmentTileKeys / 16; ++kk) {
    // The accumulator layout of two key tiles is the A operand layout of their 16 keys.
    const std::uint32_t a[4] = {mma_detail::round_pair<T>(p[2 * kk][0], p[2 * kk][1]),
                                mma_detail::round_pair<T>(p[2 * kk][2], p[2 * kk][3]),
                                mma_detail::round_pair<T>(p[2 * kk + 1][0], p[2 * kk + 1][1]),
                                mma_detail::round_pair<T>(p[2 * kk + 1][2], p[2 * kk + 1][3])};
#pragma unroll
    for (int n2 = 0; n2 < kFragmentMaxHead / 16; ++n2) {
      if (16 * n2 >= head_size) break;
      std::uint32_t b[4];
      fragment_detail::load_matrices_transposed(b, lane_row + 16 * kk * stride + 16 * n2);
      const std::uint32_t first[2] = {b[0], b[1]}, second[2] = {b[2], b[3]};
      mma_detail::mma<T>(f.o[2 * n2], a, first);
      mma_detail::mma<T>(f.o[2 * n2 + 1], a, second);
    }
  }
#else
  (void)f, (void)p, (void)v_tile, (void)head_size;
#endif
}

// Completes each row's sum over the lanes that share it (after the last tile).
KOKKOS_INLINE_FUNCTION void warp_finish_sums(WarpRowFragments& f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  for (int h = 0; h < 2; ++h) f.state[h].sum = fragment_detail::quad_sum(f.state[h].sum);
#else
  (void)f;
#endif
}

}  // namespace kattn
