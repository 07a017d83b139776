// Register-resident tiles of the tensor-core split-KV kernel, for a warp with few query rows
// (decode with grouped heads): keys run on the mma's 16-row side and up to 8 query heads of one KV
// head on its 8-column side — S^T = K · Q^T, then O^T = V^T · P^T. A GQA group of 4 then fills
// half of each mma instead of a quarter (warp_fragments.hpp puts 16 query rows on the 16-row
// side), and a lane keeps 4 output values per 16 head elements instead of 8: fewer instructions
// per key and fewer registers, so more warps per SM. CUDA sm_80+ (mma.sync m16n8k16, movmatrix),
// fp16 or bf16 in, fp32 accumulate; host compilation passes see empty bodies.
//
// Lane l (g = l / 4, t = l % 4) holds, of every 16 × 8 accumulator tile, rows g and g + 8 and
// columns 2t and 2t + 1: element i sits at row g + 8(i / 2), column 2t + i % 2. Rows are keys (of a
// score tile) or head elements (of an output tile); columns are query rows. A lane's softmax state
// is that of query rows 2t and 2t + 1, shared by the 8 lanes of equal t.
//
// Contract: every call is made by all 32 lanes of the warp (uniform control flow); K and V tiles
// are [kKeyRowTileKeys][fragment_tile_stride(head_size)] in scratch.
#pragma once

#include "kattn/detail/tiles/warp_fragments.hpp"

#include <cstdint>

namespace kattn {

struct WarpKeyRowFragments {
  std::uint32_t q[kFragmentMaxHead / 16][2];  // B operands of Q^T, one per 16 head elements
  float o[kFragmentMaxHead / 16][4] = {};     // O^T accumulator, one tile per 16 head elements
  SoftmaxState state[2];                      // query rows 2t and 2t + 1; sums are this lane's share
};

// Scores (S^T) of one K tile: one accumulator tile per 16 keys.
using WarpKeyScores = float[kKeyRowTileKeys / 16][4];

// Element i of the lane's tiles: its query row (column), and its key or head element (row) within the tile.
KOKKOS_INLINE_FUNCTION int key_row_query(int lane, int i) { return ((lane & 3) << 1) + (i & 1); }
KOKKOS_INLINE_FUNCTION int key_row_element(int lane, int i) { return (lane >> 2) + ((i >> 1) << 3); }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
namespace key_row_detail {
// The transpose of an 8 × 8 matrix of 16-bit pairs held in accumulator layout.
__device__ inline std::uint32_t transpose(std::uint32_t x) {
  std::uint32_t y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x));
  return y;
}
// Reduction over the 8 lanes that share a query row (equal t).
__device__ inline float column_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 4));
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 8));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 16));
}
__device__ inline float column_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 4);
  x += __shfl_xor_sync(0xffffffffu, x, 8);
  return x + __shfl_xor_sync(0xffffffffu, x, 16);
}
}  // namespace key_row_detail
#endif

// Loads Q^T's operands: q_at(row, d) gives the element (zero for padding rows).
template <class T, class QAt>
KOKKOS_INLINE_FUNCTION void load_key_row_q(WarpKeyRowFragments& f, int head_size, const QAt& q_at) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int g = warp_lane() >> 2, t2 = (warp_lane() & 3) * 2;
#pragma unroll
  for (int kk = 0; kk < kFragmentMaxHead / 16; ++kk) {
    if (16 * kk >= head_size) break;
    f.q[kk][0] = mma_detail::pair_bits(q_at(g, 16 * kk + t2), q_at(g, 16 * kk + t2 + 1));
    f.q[kk][1] = mma_detail::pair_bits(q_at(g, 16 * kk + t2 + 8), q_at(g, 16 * kk + t2 + 9));
  }
#else
  (void)f, (void)head_size, (void)q_at;
#endif
}

// s = K · Q^T for the tile's keys and the warp's query rows.
template <class T>
KOKKOS_INLINE_FUNCTION void warp_key_scores(const WarpKeyRowFragments& f, const T* k_tile, int head_size,
                                            WarpKeyScores& s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = warp_lane(), stride = fragment_tile_stride(head_size);
  // Matrix lane/8 of a 16 × 16 A operand: keys +8 for matrices 1 and 3, head elements +8 for 2 and 3.
  const T* lane_row = k_tile + (((lane >> 3) & 1) * 8 + (lane & 7)) * stride + ((lane >> 4) << 3);
  // Even and odd head chunks accumulate apart: two chains of dependent mma instead of one.
  float odd[kKeyRowTileKeys / 16][4];
#pragma unroll
  for (int m = 0; m < kKeyRowTileKeys / 16; ++m)
#pragma unroll
    for (int i = 0; i < 4; ++i) s[m][i] = odd[m][i] = 0.0f;
#pragma unroll
  for (int kk = 0; kk < kFragmentMaxHead / 16; ++kk) {
    if (16 * kk >= head_size) break;
#pragma unroll
    for (int m = 0; m < kKeyRowTileKeys / 16; ++m) {
      std::uint32_t a[4];
      fragment_detail::load_matrices(a, lane_row + 16 * m * stride + 16 * kk);
      mma_detail::mma<T>(kk % 2 ? odd[m] : s[m], a, f.q[kk]);
    }
  }
#pragma unroll
  for (int m = 0; m < kKeyRowTileKeys / 16; ++m)
#pragma unroll
    for (int i = 0; i < 4; ++i) s[m][i] += odd[m][i];
#else
  (void)f, (void)k_tile, (void)head_size, (void)s;
#endif
}

// Online-softmax step of the warp's query rows over a tile of logits (-inf where masked): moves
// each row's running max, rescales the accumulator (unless no row's max moved) and turns s into
// the weights.
KOKKOS_INLINE_FUNCTION void warp_key_softmax_step(WarpKeyRowFragments& f, WarpKeyScores& s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  fragment_detail::lane_rows_softmax_step<false>(
      f.state, s, f.o, [](int i) { return i & 1; }, [](float x) { return key_row_detail::column_max(x); });
#else
  (void)f, (void)s;
#endif
}

// o += V^T · P^T with the weights of warp_key_softmax_step rounded to T; v_tile as k_tile above.
template <class T>
KOKKOS_INLINE_FUNCTION void warp_key_accumulate(WarpKeyRowFragments& f, const WarpKeyScores& p, const T* v_tile,
                                                int head_size) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = warp_lane(), stride = fragment_tile_stride(head_size);
  // Transposed matrix lane/8 of a 16 × 16 A operand (V^T): head elements +8 for matrices 1 and 3,
  // keys +8 for 2 and 3.
  const T* lane_row = v_tile + (((lane >> 4) & 1) * 8 + (lane & 7)) * stride + ((lane >> 3) & 1) * 8;
#pragma unroll
  for (int m = 0; m < kKeyRowTileKeys / 16; ++m) {
    // A score tile's two 8 × 8 halves, transposed, are the B operand (keys × query rows) of its 16 keys.
    const std::uint32_t b[2] = {key_row_detail::transpose(mma_detail::round_pair<T>(p[m][0], p[m][1])),
                                key_row_detail::transpose(mma_detail::round_pair<T>(p[m][2], p[m][3]))};
#pragma unroll
    for (int n = 0; n < kFragmentMaxHead / 16; ++n) {
      if (16 * n >= head_size) break;
      std::uint32_t a[4];
      fragment_detail::load_matrices_transposed(a, lane_row + 16 * m * stride + 16 * n);
      mma_detail::mma<T>(f.o[n], a, b);
    }
  }
#else
  (void)f, (void)p, (void)v_tile, (void)head_size;
#endif
}

// Completes each query row's sum over the 8 lanes that share it (after the last tile).
KOKKOS_INLINE_FUNCTION void warp_key_finish_sums(WarpKeyRowFragments& f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  for (int h = 0; h < 2; ++h) f.state[h].sum = key_row_detail::column_sum(f.state[h].sum);
#else
  (void)f;
#endif
}

// The warps of a team that each folded other keys of the same query rows into their fragments
// (sums complete: after warp_key_finish_sums) merge through scratch: warp_key_store_state writes a
// warp's accumulator and softmax state as fp32 to its slice of `scratch`
// ([warps][kKeyRowQueries][head_size + 2]: a row's accumulator, then its max and sum), and after
// a team barrier warp_key_merge_states gives one warp the merge of every slice (each rescaled to
// the rows' common max; a slice that saw no key counts 0).
KOKKOS_INLINE_FUNCTION float* key_row_state_row(float* scratch, int warp, int row, int head_size) {
  return scratch + (std::size_t(warp) * kKeyRowQueries + row) * std::size_t(head_size + 2);
}
KOKKOS_INLINE_FUNCTION const float* key_row_state_row(const float* scratch, int warp, int row, int head_size) {
  return scratch + (std::size_t(warp) * kKeyRowQueries + row) * std::size_t(head_size + 2);
}

KOKKOS_INLINE_FUNCTION void warp_key_store_state(const WarpKeyRowFragments& f, float* scratch, int warp,
                                                 int head_size) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = warp_lane();
#pragma unroll
  for (int n = 0; n < kFragmentMaxHead / 16; ++n) {
    if (16 * n >= head_size) break;
#pragma unroll
    for (int i = 0; i < 4; ++i)
      key_row_state_row(scratch, warp, key_row_query(lane, i), head_size)[16 * n + key_row_element(lane, i)] =
          f.o[n][i];
  }
  if ((lane >> 2) == 0)
    for (int h = 0; h < 2; ++h) {
      float* row = key_row_state_row(scratch, warp, key_row_query(lane, h), head_size);
      row[head_size] = f.state[h].max;
      row[head_size + 1] = f.state[h].sum;
    }
#else
  (void)f, (void)scratch, (void)warp, (void)head_size;
#endif
}

KOKKOS_INLINE_FUNCTION void warp_key_merge_states(WarpKeyRowFragments& f, const float* scratch, int warps,
                                                  int head_size) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = warp_lane();
  float max[2], sum[2] = {0.0f, 0.0f};
  for (int h = 0; h < 2; ++h) {
    max[h] = -compat::infinity();
    for (int w = 0; w < warps; ++w)
      max[h] = fmaxf(max[h], key_row_state_row(scratch, w, key_row_query(lane, h), head_size)[head_size]);
  }
#pragma unroll
  for (int n = 0; n < kFragmentMaxHead / 16; ++n)
#pragma unroll
    for (int i = 0; i < 4; ++i) f.o[n][i] = 0.0f;
  for (int w = 0; w < warps; ++w) {
    float alpha[2];
    for (int h = 0; h < 2; ++h) {
      const float* row = key_row_state_row(scratch, w, key_row_query(lane, h), head_size);
      alpha[h] = row[head_size] == -compat::infinity() ? 0.0f : compat::exp(row[head_size] - max[h]);
      sum[h] += alpha[h] * row[head_size + 1];
    }
#pragma unroll
    for (int n = 0; n < kFragmentMaxHead / 16; ++n) {
      if (16 * n >= head_size) break;
#pragma unroll
      for (int i = 0; i < 4; ++i)
        f.o[n][i] += alpha[i & 1] * key_row_state_row(scratch, w, key_row_query(lane, i),
                                                      head_size)[16 * n + key_row_element(lane, i)];
    }
  }
  for (int h = 0; h < 2; ++h) {
    f.state[h].max = max[h];
    f.state[h].sum = sum[h];
  }
#else
  (void)f, (void)scratch, (void)warps, (void)head_size;
#endif
}

}  // namespace kattn
