// Warpgroup-scope tensor-core products on Hopper (sm_90a: wgmma.mma_async), the Q-block kernel's
// Hopper path: a team of 4 warps (one warpgroup, 64 query rows, each warp its 16 rows' Q operands
// and output accumulator in registers exactly as warp_fragments.hpp holds them) multiplies against
// K and V tiles that the tensor cores read from scratch themselves, by matrix descriptor: no
// ldmatrix and no B operands in registers, and one instruction per 16 keys or head elements for
// the whole team. Scores and output come back in the accumulator layout of warp_scores and
// warp_accumulate, so the softmax between them is the warps' own (warp_softmax_step).
//
// Tiles sit in scratch in wgmma's 128-byte swizzled layout (warpgroup_tile_offset), 1024-byte
// aligned: each key's first 64 head elements in a 128-byte row, its 16-byte chunks permuted by the
// key's index mod 8 (chunk c at c ^ (key % 8)), the tile's 64 rows together; then the next 64
// head elements likewise. A team's copy of 4 whole rows (TeamTileCopy::copy_swizzled) then reads
// whole 128-byte lines and writes every bank once, and the tensor cores read it conflict-free. K
// is read K-major (the head is the reduced dimension), V N-major (the head is the product's
// columns) from the same layout.
//
// Contract: all 128 threads of the warpgroup call together (warps 0–3 of the team, uniform control
// flow); a tile's writes are complete and visible to the tensor cores' reads before the call
// (warpgroup_tile_ready() after each writing thread's copies, then a team barrier); the call
// returns with the product complete. Needs an sm_90a build (KATTN_WARPGROUP_MMA, set by the h100
// preset's KATTN_CUDA_ARCH); elsewhere warpgroup_mma_available() is false, the planner never picks
// the path and the bodies are empty.
#pragma once

#include "kattn/detail/tiles/warp_fragments.hpp"

#include <cstdint>
#include <type_traits>

#if defined(KATTN_WARPGROUP_MMA) && defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "KATTN_WARPGROUP_MMA needs device code for sm_90a (KATTN_CUDA_ARCH=sm_90a)"
#endif

namespace kattn {

constexpr int kWarpgroupRowBytes = 128;                                      // a key's row of 64 elements
constexpr int kWarpgroupAtomBytes = kFragmentTileKeys * kWarpgroupRowBytes;  // the tile's rows of 64 elements

// Byte offset of 2-byte element (key, d) of a tile in the layout above.
KOKKOS_INLINE_FUNCTION constexpr int warpgroup_tile_offset(int key, int d) {
  return (d / 64) * kWarpgroupAtomBytes + key * kWarpgroupRowBytes + ((((d % 64) / 8) ^ (key % 8)) * 16) + (d % 8) * 2;
}

// Makes this thread's completed writes of a tile (stores, or cp.async copies it has waited for)
// visible to the tensor cores' reads, which go through the asynchronous proxy; a team barrier
// after it publishes every thread's.
KOKKOS_INLINE_FUNCTION void warpgroup_tile_ready() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
namespace warpgroup_detail {

// A shared-memory matrix descriptor of the 128-byte swizzle (bits 62–63: 1): start address, leading
// (LBO) and stride (SBO) byte offsets, each encoded >> 4 in bits 0–13, 16–29 and 32–45. SBO: from
// one 8 rows of the tile to the next (1024 bytes); LBO: K-major, unused (1); N-major, from one 64
// head elements to the next.
__device__ inline std::uint64_t descriptor(unsigned address, unsigned leading) {
  return std::uint64_t((address & 0x3FFFF) >> 4) | (std::uint64_t(leading >> 4) << 16) |
         (std::uint64_t(8 * kWarpgroupRowBytes >> 4) << 32) | (std::uint64_t(1) << 62);
}

#define KATTN_WG_D4(d, j) "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
#define KATTN_WG_D32(d, j)                                                                                       \
  KATTN_WG_D4(d, j), KATTN_WG_D4(d, j + 1), KATTN_WG_D4(d, j + 2), KATTN_WG_D4(d, j + 3), KATTN_WG_D4(d, j + 4), \
      KATTN_WG_D4(d, j + 5), KATTN_WG_D4(d, j + 6), KATTN_WG_D4(d, j + 7)
#define KATTN_WG_R32                                                                                           \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
  "%23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define KATTN_WG_R64                                                                                           \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
  "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "  \
  "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"

// s (+)= a · B, m64n64k16: the 16-element slice of 64 keys' K rows at descriptor b (K-major);
// accumulate false: s = a · B.
#define KATTN_WG_SCORES(TYPE)                                                      \
  asm volatile(                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                 \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE " " KATTN_WG_R32 \
      ", {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"                              \
      : KATTN_WG_D32(s, 0)                                                         \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(int(accumulate)))
template <class T>
__device__ inline void scores_64x64x16(WarpScores& s, const std::uint32_t (&a)[4], std::uint64_t b, bool accumulate) {
  if constexpr (std::is_same_v<T, bf16_t>)
    KATTN_WG_SCORES("bf16");
  else
    KATTN_WG_SCORES("f16");
}

// o += a · B, m64n128k16: 16 keys' V rows of 128 elements at descriptor b (N-major).
#define KATTN_WG_VALUES(TYPE)                                                                \
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " " KATTN_WG_R64 \
               ", {%64, %65, %66, %67}, %68, 1, 1, 1, 1;\n"                                  \
               : KATTN_WG_D32(o, 0), KATTN_WG_D32(o, 8)                                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b))
template <class T>
__device__ inline void values_64x128x16(float (&o)[kWarpgroupHead / 8][4], const std::uint32_t (&a)[4],
                                        std::uint64_t b) {
  if constexpr (std::is_same_v<T, bf16_t>)
    KATTN_WG_VALUES("bf16");
  else
    KATTN_WG_VALUES("f16");
}

#undef KATTN_WG_VALUES
#undef KATTN_WG_SCORES
#undef KATTN_WG_R64
#undef KATTN_WG_R32
#undef KATTN_WG_D32
#undef KATTN_WG_D4

// Orders this thread's register accesses before the products that follow (wgmma.fence), and
// waits for every product it issued.
__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void commit_and_wait() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

}  // namespace warpgroup_detail
#endif

// s = Q · Kᵀ for the warp's 16 rows of the warpgroup's 64 and the kFragmentTileKeys keys of k_tile
// (head kWarpgroupHead, the layout above).
template <class T>
KOKKOS_INLINE_FUNCTION void warpgroup_scores(const WarpRowFragments<kWarpgroupHead>& f, const T* k_tile,
                                             WarpScores& s) {
  static_assert(kFragmentTileKeys == 64, "one m64n64 product a 16-element slice");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const unsigned tile = unsigned(__cvta_generic_to_shared(k_tile));
  warpgroup_detail::fence();
#pragma unroll
  for (int kk = 0; kk < kWarpgroupHead / 16; ++kk)  // head elements 16kk..: 32 bytes into a row of 64
    warpgroup_detail::scores_64x64x16<T>(
        s, f.q[kk], warpgroup_detail::descriptor(tile + kk / 4 * kWarpgroupAtomBytes + kk % 4 * 32, 16), kk > 0);
  warpgroup_detail::commit_and_wait();
#else
  (void)f, (void)k_tile, (void)s;
#endif
}

// o += P · V with the weights of warp_softmax_step rounded to T; v_tile as k_tile above.
template <class T>
KOKKOS_INLINE_FUNCTION void warpgroup_accumulate(WarpRowFragments<kWarpgroupHead>& f, const WarpScores& p,
                                                 const T* v_tile) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const unsigned tile = unsigned(__cvta_generic_to_shared(v_tile));
  std::uint32_t a[kFragmentTileKeys / 16][4];
#pragma unroll
  for (int kk = 0; kk < kFragmentTileKeys / 16; ++kk) {  // two key tiles' accumulators: the A operand of their 16 keys
    a[kk][0] = mma_detail::round_pair<T>(p[2 * kk][0], p[2 * kk][1]);
    a[kk][1] = mma_detail::round_pair<T>(p[2 * kk][2], p[2 * kk][3]);
    a[kk][2] = mma_detail::round_pair<T>(p[2 * kk + 1][0], p[2 * kk + 1][1]);
    a[kk][3] = mma_detail::round_pair<T>(p[2 * kk + 1][2], p[2 * kk + 1][3]);
  }
  warpgroup_detail::fence();
#pragma unroll
  for (int kk = 0; kk < kFragmentTileKeys / 16; ++kk)  // keys 16kk..: rows 16kk..
    warpgroup_detail::values_64x128x16<T>(
        f.o, a[kk], warpgroup_detail::descriptor(tile + 16 * kk * kWarpgroupRowBytes, kWarpgroupAtomBytes));
  warpgroup_detail::commit_and_wait();
#else
  (void)f, (void)p, (void)v_tile;
#endif
}

}  // namespace kattn
