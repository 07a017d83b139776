// The AMD form of the tensor-core tile product (tile_mma.hpp): MFMA v_mfma_f32_16x16x16 with
// fp16 or bf16 operands and fp32 accumulation, on CDNA2/3 (gfx90a, gfx940–942). A Kokkos thread
// of 64 vector lanes is one wavefront: threadIdx.x is the lane, threadIdx.y the wavefront.
// Operand layout of the 16 × 16 × 16 instruction, lane l = 16q + c (q < 4, c < 16):
//   A[c][4q .. 4q+3], B[4q .. 4q+3][c], and the accumulator D[4q .. 4q+3][c].
// Compiled in the mi300 and mi250 presets; not run here (no AMD GPU), checked by the HIP build.
#pragma once

#include "kattn/core/storage_types.hpp"

#include <cstdint>
#include <type_traits>

#if defined(__HIP_DEVICE_COMPILE__) && \
    (defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__))
#define KATTN_MFMA_DEVICE 1

namespace kattn::mfma_detail {

typedef short Bits4 __attribute__((ext_vector_type(4)));
typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
typedef float Float4 __attribute__((ext_vector_type(4)));

template <class T>
__device__ inline Float4 mfma(const Bits4& a, const Bits4& b, const Float4& c) {
  if constexpr (std::is_same<T, fp16_t>::value)
    return __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(Half4, a), __builtin_bit_cast(Half4, b), c, 0, 0,
                                                 0);
  else
    return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
}

// The same contract as mma_detail::warp_tile_product: C[m × n] = C0 + A[m × k] · B[k × n], a
// wavefront per 16 × 16 output tile; a(r, i) gives fp32 (rounded to T here), b(i, c) gives T.
template <class T, class A, class B, class Init, class Store>
__device__ inline void warp_tile_product(int m, int n, int k, const A& a, const B& b, const Init& c_init,
                                         const Store& store) {
  const int c = int(threadIdx.x) & 15, q = int(threadIdx.x) >> 4;
  const int m_tiles = (m + 15) / 16, n_tiles = (n + 15) / 16;
  for (int unit = int(threadIdx.y); unit < m_tiles * n_tiles; unit += int(blockDim.y)) {
    const int m0 = unit / n_tiles * 16, n0 = unit % n_tiles * 16;
    Float4 d;
    for (int i = 0; i < 4; ++i) {
      const int row = m0 + 4 * q + i;
      d[i] = row < m && n0 + c < n ? c_init(row, n0 + c) : 0.0f;
    }
    for (int k0 = 0; k0 < k; k0 += 16) {
      Bits4 a_operand, b_operand;
      for (int i = 0; i < 4; ++i) {
        const int inner = k0 + 4 * q + i;
        const bool a_inside = m0 + c < m && inner < k, b_inside = inner < k && n0 + c < n;
        a_operand[i] = short(a_inside ? from_float<T>(a(m0 + c, inner)).bits : 0);
        b_operand[i] = short(b_inside ? b(inner, n0 + c).bits : 0);
      }
      d = mfma<T>(a_operand, b_operand, d);
    }
    for (int i = 0; i < 4; ++i) {
      const int row = m0 + 4 * q + i;
      if (row < m && n0 + c < n) store(row, n0 + c, d[i]);
    }
  }
}

}  // namespace kattn::mfma_detail
#endif
