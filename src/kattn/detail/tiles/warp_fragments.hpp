// Register-resident tiles of the tensor-core Q-block kernel (FlashAttention-2's layout): a warp
// owns 16 query rows, and their Q operands, output accumulator and softmax state stay in its
// registers over the whole key loop. Q, K and V tiles come from team scratch through ldmatrix, so
// scores and weights never touch scratch. CUDA sm_80 and later (mma.sync m16n8k16, fp16 or bf16
// in, fp32 accumulate); the planner launches this kernel only where register_rows_available(), and
// the other backends keep the portable Q-block kernel. Host compilation passes see empty bodies.
//
// MaxHead (a multiple of 16, at most kFragmentMaxHead) sizes a warp's registers: the kernel fixes
// it at compile time to the head size where it can (head 128: every loop bound and offset folds),
// and loops stop at the run-time head_size below it.
//
// Lane l of a warp holds, of every 16 × 8 accumulator tile, rows l/4 and l/4 + 8 and columns
// 2(l%4) and 2(l%4) + 1: element i of a tile sits at row l/4 + 8(i/2), column 2(l%4) + i%2.
//
// Contract: every call is made by all 32 lanes of the warp (uniform control flow); tiles in
// scratch are rows of `stride` elements (fragment_tile_stride), 16-byte aligned.
#pragma once

#include "kattn/core/arch.hpp"
#include "kattn/detail/shapes/tile_shapes.hpp"
#include "kattn/detail/tiles/lane_chunk.hpp"
#include "kattn/detail/tiles/online_softmax.hpp"
#include "kattn/detail/tiles/paged_kv.hpp"
#include "kattn/detail/tiles/tile_mma.hpp"

#include <cfloat>
#include <cstdint>

namespace kattn {

// log2 e: the register rows keep their running maxima in the exponent's units, max · log2 e.
constexpr float kLog2e = 1.4426950408889634f;

// What one lane keeps for its two rows.
template <int MaxHead = kFragmentMaxHead>
struct WarpRowFragments {
  static_assert(MaxHead % 16 == 0 && MaxHead <= kFragmentMaxHead, "head sizes in multiples of 16");
  std::uint32_t q[MaxHead / 16][4];  // A operands of Q, one per 16 head elements
  float o[MaxHead / 8][4];           // output accumulator, one tile per 8 head elements
  SoftmaxState state[2];             // rows l/4 and l/4 + 8; sums are this lane's share, maxima · log2 e

  // A state enters the rows' log2 units (the softmax steps' own: no conversion a tile) and leaves
  // them for logits (a segment's partial max) by these; -inf stays -inf.
  KOKKOS_INLINE_FUNCTION static SoftmaxState in_log2_units(SoftmaxState state) {
    state.max *= kLog2e;
    return state;
  }
  KOKKOS_INLINE_FUNCTION static SoftmaxState in_logits(SoftmaxState state) {
    state.max *= 1.0f / kLog2e;
    return state;
  }

  // The accumulator starts at zeros, or (OutputSetByFirstProduct) unset, for a kernel whose first
  // product sets it (warpgroup_accumulate_issue's accumulate false): no zeroing an item.
  struct OutputSetByFirstProduct {};
  KOKKOS_INLINE_FUNCTION WarpRowFragments() : o{} {}
  KOKKOS_INLINE_FUNCTION explicit WarpRowFragments(OutputSetByFirstProduct) {}
};

// Scores of the warp's rows against one K tile of Keys keys: one accumulator tile per 8 keys.
template <int Keys>
using WarpScoresOf = float[Keys / 8][4];
using WarpScores = WarpScoresOf<kFragmentTileKeys>;

// The lane's row (0..15) and column offset within an accumulator tile, for element i.
KOKKOS_INLINE_FUNCTION int fragment_row(int lane, int i) { return (lane >> 2) + ((i >> 1) << 3); }
KOKKOS_INLINE_FUNCTION int fragment_column(int lane, int i) { return ((lane & 3) << 1) + (i & 1); }

// How far (in log2) a row's running max may lag the largest logit it has seen (FlashAttention-4's
// rescale threshold): the max moves only where a tile's exceeds it by more, so that most steps past
// an item's first skip the accumulator's rescale. Weights then reach 2^kSoftmaxMaxLag, which fp16,
// bf16 and the fp32 sums hold at their full relative precision; the result is the same softmax, as
// each row's output and sum are taken at one max, whichever it is.
constexpr float kSoftmaxMaxLag = 8.0f;

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

// 2^x by the hardware instruction (2 ulp; 2^-inf = 0).
__device__ inline float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

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
#if __CUDA_ARCH__ >= 900
// The reverse of load_matrices (sm_90): lane l's r[m] goes to (row l/4, columns 2(l%4), +1) of matrix m.
__device__ inline void store_matrices(const std::uint32_t (&r)[4], void* row) {
  const unsigned address = unsigned(__cvta_generic_to_shared(row));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(address), "r"(r[0]), "r"(r[1]),
               "r"(r[2]), "r"(r[3])
               : "memory");
}
#endif

// Reduction over the four lanes that share a row.
__device__ inline float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ inline float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// The online-softmax step of a lane's two rows over a tile of scores, for any accumulator layout:
// a score s stands for the logit s · score_scale (score_scale > 0: the softmax scale where s is a
// raw dot product, 1 where s is already a logit), -inf where masked; row_of(i) is the row (0 or 1)
// of element i of a score or output tile, and row_max reduces a row's max over the lanes that
// share the row. Moves each row's running max (kept in logits, or with MaxInLog2 as max · log2 e,
// the exponent's own units), gives in alpha the factor that takes the output accumulated so far to
// the new max (lane_rows_rescale applies it; 1 where the max stays or moves off -inf), and turns s
// into the weights exp(s · score_scale - max) = 2^(s · c - max · log2 e), c = score_scale · log2 e:
// one FFMA and the hardware exp2 a score, the scale folded in (exp2's relative error is far below
// the fp16/bf16 rounding the weights get next). A masked score gives 2^-inf = 0.
// A row's max moves only where a tile's exceeds it by more than kSoftmaxMaxLag (in log2).
template <bool MaxInLog2, int ScoreTiles, class RowOf, class RowMax>
__device__ __forceinline__ void lane_rows_softmax_weights(SoftmaxState (&state)[2], float (&s)[ScoreTiles][4],
                                                          const RowOf& row_of, const RowMax& row_max, float score_scale,
                                                          float (&alpha)[2]) {
  // Maxima and sums in kChains independent chains a row (score tile j in chain j % kChains), so
  // that their latencies overlap instead of adding up over the tile. A chain starts at its first
  // score, not at -inf or 0 (IEEE rules keep the compiler from dropping that first max or add:
  // 16 instructions a tile of 64 keys).
  constexpr int kChains = ScoreTiles < 4 ? ScoreTiles : 4;
  const auto chain_start = [&](int j, int i) {  // whether score (j, i) is its row's first in its chain
    for (int earlier = 0; earlier < i; ++earlier)
      if (row_of(earlier) == row_of(i)) return false;
    return j < kChains;
  };
  float chain_max[2][kChains];
#pragma unroll
  for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float& m = chain_max[row_of(i)][j % kChains];
      m = chain_start(j, i) ? s[j][i] : fmaxf(m, s[j][i]);
    }
  float tile_max[2] = {chain_max[0][0], chain_max[1][0]};
#pragma unroll
  for (int c = 1; c < kChains; ++c)
#pragma unroll
    for (int h = 0; h < 2; ++h) tile_max[h] = fmaxf(tile_max[h], chain_max[h][c]);
  const float c = score_scale * kLog2e;
  float offset[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {  // SoftmaxState::rescale_to with the hardware exp2, and alpha 1 off -inf
    if constexpr (MaxInLog2) {
      // In the exponent's units a row takes a tile in one multiply (its max), the lag's add and
      // compare (-inf + lag stays -inf, below any max seen), and the exp2 of its rescale: the
      // logits' form below converts to and from them on each tile (6 instructions a row more).
      const float kept = state[h].max, seen = row_max(tile_max[h]) * c;
      const float new_max = seen > kept + kSoftmaxMaxLag ? seen : kept;
      alpha[h] = kept == -compat::infinity() ? 1.0f : exp2_approx(kept - new_max);
      state[h].sum *= alpha[h];
      state[h].max = new_max;
      offset[h] = fmaxf(new_max, -FLT_MAX);  // a row that saw only -inf: its weights stay 2^-inf = 0
    } else {
      const float seen = row_max(tile_max[h]) * score_scale;
      const bool moves = state[h].max == -compat::infinity() || (seen - state[h].max) * kLog2e > kSoftmaxMaxLag;
      const float new_max = moves ? fmaxf(state[h].max, seen) : state[h].max;
      // A row whose max is still -inf has only weights 0 in its sum and output: they stay as they are
      // (alpha 1), so that the first tile's rescale is skipped with the others'.
      alpha[h] = state[h].max == -compat::infinity() ? 1.0f : exp2_approx((state[h].max - new_max) * kLog2e);
      state[h].sum *= alpha[h];
      state[h].max = new_max;
      offset[h] = new_max == -compat::infinity() ? 0.0f : new_max * kLog2e;  // a row that saw only -inf
    }
  }
  float chain_sum[2][kChains];
#pragma unroll
  for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      s[j][i] = exp2_approx(fmaf(s[j][i], c, -offset[row_of(i)]));
      float& sum = chain_sum[row_of(i)][j % kChains];
      sum = chain_start(j, i) ? s[j][i] : sum + s[j][i];
    }
#pragma unroll
  for (int ch = 0; ch < kChains; ++ch) {
    state[0].sum += chain_sum[0][ch];
    state[1].sum += chain_sum[1][ch];
  }
}

// The softmax step of a tile that no row's kept max is expected to miss (a step past an item's
// first tile where every row sees every key): the weights 2^(s · c - max) against each row's max as
// it stands, with no maxima of the tile (their 30 FMNMX and quad shuffles were a fifth of a step's
// instructions). A row's max moves only where a lane's share of its tile sum passes 2^15, and then
// by a whole power of two (an exact rescale, alpha = 2^-shift) that leaves its largest weight at
// 2^kSoftmaxMaxLag; weights up to 2^15 are in fp16's and bf16's range at full precision. Returns
// false (the same in every lane of the warp) where some lane's row cannot take the tile so: its max
// still -inf, or a weight or sum past FLT_MAX (a score more than 127 above the max, in log2). The
// state is then unchanged and s lost: the caller takes the tile's scores again through
// lane_rows_softmax_weights, whose alpha then applies.
template <int ScoreTiles, class RowOf, class RowMax>
__device__ __forceinline__ bool lane_rows_softmax_weights_at_kept_max(SoftmaxState (&state)[2],
                                                                      float (&s)[ScoreTiles][4], const RowOf& row_of,
                                                                      const RowMax& row_max, float score_scale,
                                                                      float (&alpha)[2]) {
  constexpr int kChains = ScoreTiles < 4 ? ScoreTiles : 4;  // as lane_rows_softmax_weights' sums
  const auto chain_start = [&](int j, int i) {
    for (int earlier = 0; earlier < i; ++earlier)
      if (row_of(earlier) == row_of(i)) return false;
    return j < kChains;
  };
  const float c = score_scale * kLog2e;
  float chain_sum[2][kChains];
#pragma unroll
  for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      s[j][i] = exp2_approx(fmaf(s[j][i], c, -state[row_of(i)].max));
      float& sum = chain_sum[row_of(i)][j % kChains];
      sum = chain_start(j, i) ? s[j][i] : sum + s[j][i];
    }
  float tile_sum[2] = {chain_sum[0][0], chain_sum[1][0]};
#pragma unroll
  for (int ch = 1; ch < kChains; ++ch)
#pragma unroll
    for (int h = 0; h < 2; ++h) tile_sum[h] += chain_sum[h][ch];
  alpha[0] = alpha[1] = 1.0f;
  // Not finite (NaN included): the max was -inf (its weights +inf) or a weight overflowed.
  if (__any_sync(0xffffffffu, !(tile_sum[0] <= FLT_MAX) || !(tile_sum[1] <= FLT_MAX))) return false;
  constexpr float kLaneSumLimit = 32768.0f;
  if (__any_sync(0xffffffffu, tile_sum[0] > kLaneSumLimit || tile_sum[1] > kLaneSumLimit)) {
    float weight_max[2] = {0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) weight_max[row_of(i)] = fmaxf(weight_max[row_of(i)], s[j][i]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // shift 0 for a row whose weights stay under 2^lag (log2 0 = -inf)
      const float shift = fmaxf(ceilf(__log2f(row_max(weight_max[h]))) - kSoftmaxMaxLag, 0.0f);
      alpha[h] = exp2_approx(-shift);
      tile_sum[h] *= alpha[h];
      state[h].sum *= alpha[h];
      state[h].max += shift;
    }
#pragma unroll
    for (int j = 0; j < ScoreTiles; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) s[j][i] *= alpha[row_of(i)];
  }
  state[0].sum += tile_sum[0];
  state[1].sum += tile_sum[1];
  return true;
}

// o *= alpha of its row (skipped when no row's max moved in the warp: past an item's first tile it
// rarely does, by kSoftmaxMaxLag).
template <int OutTiles, class RowOf>
__device__ __forceinline__ void lane_rows_rescale(float (&o)[OutTiles][4], const float (&alpha)[2],
                                                  const RowOf& row_of) {
  if (__any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f)) {
#pragma unroll
    for (int n = 0; n < OutTiles; ++n)
#pragma unroll
      for (int i = 0; i < 4; ++i) o[n][i] *= alpha[row_of(i)];
  }
}

// Both: the softmax step of the output accumulated so far in o.
template <bool MaxInLog2, int ScoreTiles, int OutTiles, class RowOf, class RowMax>
__device__ inline void lane_rows_softmax_step(SoftmaxState (&state)[2], float (&s)[ScoreTiles][4],
                                              float (&o)[OutTiles][4], const RowOf& row_of, const RowMax& row_max,
                                              float score_scale = 1.0f) {
  float alpha[2];
  lane_rows_softmax_weights<MaxInLog2>(state, s, row_of, row_max, score_scale, alpha);
  lane_rows_rescale(o, alpha, row_of);
}

}  // namespace fragment_detail
#endif

// Loads the warp's Q operands from its 16 rows in scratch (row r at q_rows + r · stride).
template <class T, int MaxHead>
KOKKOS_INLINE_FUNCTION void warp_load_q(WarpRowFragments<MaxHead>& f, const T* q_rows, int stride, int head_size) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Matrix lane/8 of the A operand: rows +8 for matrices 1 and 3, head elements +8 for 2 and 3.
  const int lane = warp_lane();
  const T* lane_row = q_rows + (((lane >> 3) & 1) * 8 + (lane & 7)) * stride + ((lane >> 4) << 3);
#pragma unroll
  for (int kk = 0; kk < MaxHead / 16; ++kk) {
    if (16 * kk >= head_size) break;
    fragment_detail::load_matrices(f.q[kk], lane_row + 16 * kk);
  }
#else
  (void)f, (void)q_rows, (void)stride, (void)head_size;
#endif
}

// s = Q · K^T for the warp's rows and the tile's kFragmentTileKeys keys (k_tile: a row a key).
template <class T, int MaxHead>
KOKKOS_INLINE_FUNCTION void warp_scores(const WarpRowFragments<MaxHead>& f, const T* k_tile, int stride, int head_size,
                                        WarpScores& s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = warp_lane();
  // Matrix lane/8 of a pair of key tiles: keys +8 for matrices 2 and 3, head elements +8 for 1 and 3.
  const T* lane_row = k_tile + (((lane >> 4) << 3) + (lane & 7)) * stride + ((lane >> 3) & 1) * 8;
#pragma unroll
  for (int j = 0; j < kFragmentTileKeys / 8; ++j)
    for (int i = 0; i < 4; ++i) s[j][i] = 0.0f;
#pragma unroll
  for (int kk = 0; kk < MaxHead / 16; ++kk) {
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
  (void)f, (void)k_tile, (void)stride, (void)head_size, (void)s;
#endif
}

// Online-softmax step of the warp's rows over a tile of scores standing for the logits
// s · score_scale (-inf where masked): moves each row's running max, rescales its accumulator, and
// turns s into the weights (fragment_detail::lane_rows_softmax_step).
template <int MaxHead>
KOKKOS_INLINE_FUNCTION void warp_softmax_step(WarpRowFragments<MaxHead>& f, WarpScores& s, float score_scale) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  fragment_detail::lane_rows_softmax_step<true>(
      f.state, s, f.o, [](int i) { return i >> 1; }, [](float x) { return fragment_detail::quad_max(x); }, score_scale);
#else
  (void)f, (void)s, (void)score_scale;
#endif
}

// The same step in two parts, for a caller whose accumulator is still being written (an
// asynchronous P · V in flight): warp_softmax_weights moves the maxima and sums and turns s into
// the weights, giving each row's rescale factor; warp_rescale_output applies it to the accumulator
// afterwards.
template <int MaxHead, int ScoreTiles>
KOKKOS_FORCEINLINE_FUNCTION void warp_softmax_weights(WarpRowFragments<MaxHead>& f, float (&s)[ScoreTiles][4],
                                                      float score_scale, float (&alpha)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  fragment_detail::lane_rows_softmax_weights<true>(
      f.state, s, [](int i) { return i >> 1; }, [](float x) { return fragment_detail::quad_max(x); }, score_scale,
      alpha);
#else
  (void)f, (void)s, (void)score_scale, alpha[0] = alpha[1] = 1.0f;
#endif
}
// warp_softmax_weights at the rows' kept maxima, for a tile every row sees whole
// (fragment_detail::lane_rows_softmax_weights_at_kept_max): false, the same in every lane, where
// the warp's state is unchanged and the tile's scores must go through warp_softmax_weights again.
template <int MaxHead, int ScoreTiles>
KOKKOS_FORCEINLINE_FUNCTION bool warp_softmax_weights_at_kept_max(WarpRowFragments<MaxHead>& f,
                                                                  float (&s)[ScoreTiles][4], float score_scale,
                                                                  float (&alpha)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return fragment_detail::lane_rows_softmax_weights_at_kept_max(
      f.state, s, [](int i) { return i >> 1; }, [](float x) { return fragment_detail::quad_max(x); }, score_scale,
      alpha);
#else
  (void)f, (void)s, (void)score_scale, alpha[0] = alpha[1] = 1.0f;
  return true;
#endif
}
template <int MaxHead>
KOKKOS_FORCEINLINE_FUNCTION void warp_rescale_output(WarpRowFragments<MaxHead>& f, const float (&alpha)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  fragment_detail::lane_rows_rescale(f.o, alpha, [](int i) { return i >> 1; });
#else
  (void)f, (void)alpha;
#endif
}

// o += P · V with the weights of warp_softmax_step rounded to T; v_tile as k_tile in warp_scores.
template <class T, int MaxHead>
KOKKOS_INLINE_FUNCTION void warp_accumulate(WarpRowFragments<MaxHead>& f, const WarpScores& p, const T* v_tile,
                                            int stride, int head_size) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = warp_lane();
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
    for (int n2 = 0; n2 < MaxHead / 16; ++n2) {
      if (16 * n2 >= head_size) break;
      std::uint32_t b[4];
      fragment_detail::load_matrices_transposed(b, lane_row + 16 * kk * stride + 16 * n2);
      const std::uint32_t first[2] = {b[0], b[1]}, second[2] = {b[2], b[3]};
      mma_detail::mma<T>(f.o[2 * n2], a, first);
      mma_detail::mma<T>(f.o[2 * n2 + 1], a, second);
    }
  }
#else
  (void)f, (void)p, (void)v_tile, (void)stride, (void)head_size;
#endif
}

// Completes each row's sum over the lanes that share it (after the last tile).
template <int MaxHead>
KOKKOS_INLINE_FUNCTION void warp_finish_sums(WarpRowFragments<MaxHead>& f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  for (int h = 0; h < 2; ++h) f.state[h].sum = fragment_detail::quad_sum(f.state[h].sum);
#else
  (void)f;
#endif
}

// Writes the warp's output rows, o · row_scale[h] rounded to Out, into its 16 scratch rows (row r
// at rows + r · stride), after the warp's own reads of them: the accumulator's layout becomes whole
// rows that lanes then store with 16-byte writes (warp_store_rows). Conflict-free for strides of
// 8 (mod 64) elements. Other warps' reads of the rows are the caller's to order. fp16/bf16 rows go
// as a lane's two adjacent columns at once (one conversion and one 4-byte store a pair).
template <class Out, int MaxHead>
KOKKOS_INLINE_FUNCTION void warp_write_rows(const WarpRowFragments<MaxHead>& f, const float (&row_scale)[2], Out* rows,
                                            int stride, int head_size) {
#if defined(__CUDA_ARCH__)
  __syncwarp();  // the warp's reads of these rows (ldmatrix) come first
#endif
  const int lane = warp_lane();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same<Out, fp16_t>::value || std::is_same<Out, bf16_t>::value) {
#pragma unroll
    for (int n = 0; n < MaxHead / 8; ++n) {
      if (8 * n >= head_size) break;
#pragma unroll
      for (int i = 0; i < 4; i += 2)
        *reinterpret_cast<std::uint32_t*>(rows + fragment_row(lane, i) * stride + 8 * n + fragment_column(lane, i)) =
            mma_detail::round_pair<Out>(f.o[n][i] * row_scale[i >> 1], f.o[n][i + 1] * row_scale[i >> 1]);
    }
  } else
#endif
  {
#pragma unroll
    for (int n = 0; n < MaxHead / 8; ++n) {
      if (8 * n >= head_size) break;
#pragma unroll
      for (int i = 0; i < 4; ++i)
        rows[fragment_row(lane, i) * stride + 8 * n + fragment_column(lane, i)] =
            from_float<Out>(f.o[n][i] * row_scale[i >> 1]);
    }
  }
}

// Stores the first `count` of the warp's 16 scratch rows that warp_write_rows wrote to the output:
// row_at(r) is row r's first element there, 16-byte aligned; head_size a multiple of 8.
template <class Out, class RowAt>
KOKKOS_INLINE_FUNCTION void warp_store_rows(const Out* rows, int stride, int head_size, int count,
                                            const RowAt& row_at) {
#if defined(__CUDA_ARCH__)
  __syncwarp();  // every lane's writes of the rows come first
#endif
  const int lane = warp_lane(), chunks = head_size / kLaneElements;
  for (int c = lane; c < kFragmentRows * chunks; c += 32) {
    const int r = c / chunks, e = (c - r * chunks) * kLaneElements;
    if (r < count)
      *reinterpret_cast<LaneChunk<Out>*>(row_at(r) + e) =
          *reinterpret_cast<const LaneChunk<Out>*>(rows + r * stride + e);
  }
}

}  // namespace kattn
