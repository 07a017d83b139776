// Warpgroup-scope tensor-core products on Hopper (sm_90a: wgmma.mma_async), the Q-block kernel's
// Hopper path: a warpgroup of 4 warps (64 query rows, a team one or two of them; each warp its 16
// rows' Q operands and output accumulator in registers exactly as warp_fragments.hpp holds them)
// multiplies against K and V tiles that the tensor cores read from scratch themselves, by matrix
// descriptor: no ldmatrix and no B operands in registers, and one instruction per 16 keys or head
// elements for the whole warpgroup. Scores and output come back in the accumulator layout of warp_scores and
// warp_accumulate, so the softmax between them is the warps' own (warp_softmax_step).
//
// Tiles sit in scratch in wgmma's 128-byte swizzled layout (warpgroup_tile_offset), 1024-byte
// aligned: each key's first 64 head elements in a 128-byte row, its 16-byte chunks permuted by the
// key's index mod 8 (chunk c at c ^ (key % 8)), the tile's rows (64 keys, or 128 for the wide
// steps of two warpgroups, or a warpgroup's 64 Q rows) together; then the next 64 head elements
// likewise. A team's copy of 4 whole rows (TeamTileCopy::copy_swizzled) then reads
// whole 128-byte lines and writes every bank once, and the tensor cores read it conflict-free. K
// is read K-major (the head is the reduced dimension), V N-major (the head is the product's
// columns) from the same layout.
//
// Contract: all 128 threads of the warpgroup call together (warps 0–3 of the team, or 4–7 for a
// team's second warpgroup; uniform control flow); a tile's writes are complete and visible to the tensor cores' reads before the call
// (warpgroup_tile_ready() after each writing thread's copies, then a team barrier);
// warpgroup_scores and warpgroup_accumulate return with the product complete, the asynchronous
// forms (…_issue, then warpgroup_wait) with it in flight. Q comes from the warps' registers
// (warp_load_q) or, for the asynchronous scores, from scratch in the tiles' layout. Needs an sm_90a
// build (KATTN_WARPGROUP_MMA, set by the h100 preset's KATTN_CUDA_ARCH); elsewhere
// warpgroup_mma_available() is false, the planner never picks the path and the bodies are empty.
#pragma once

#include "kattn/detail/tiles/team_stage.hpp"
#include "kattn/detail/tiles/warp_fragments.hpp"

#include <cstdint>
#include <type_traits>

#if defined(KATTN_WARPGROUP_MMA) && defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "KATTN_WARPGROUP_MMA needs device code for sm_90a (KATTN_CUDA_ARCH=sm_90a)"
#endif

namespace kattn {

constexpr int kWarpgroupRowBytes = 128;  // a key's row of 64 elements

// Bytes of a tile's rows of 64 elements: a tile of Rows rows is two of these, one after the other.
KOKKOS_INLINE_FUNCTION constexpr int warpgroup_atom_bytes(int rows) { return rows * kWarpgroupRowBytes; }

// Byte offset of 2-byte element (key, d) of a tile of Rows rows in the layout above.
template <int Rows = kFragmentTileKeys>
KOKKOS_INLINE_FUNCTION constexpr int warpgroup_tile_offset(int key, int d) {
  return (d / 64) * warpgroup_atom_bytes(Rows) + key * kWarpgroupRowBytes + ((((d % 64) / 8) ^ (key % 8)) * 16) +
         (d % 8) * 2;
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
// head elements to the next. Shared addresses stay below 2^18 bytes, so the descriptor of address
// + b (b a multiple of 16) is this one + b / 16: the products' loops add their offsets so.
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

// s (+)= A · B, m64nNk16 (N = 64 or 128 keys), A too from shared memory (descriptor a, K-major: 64
// rows' 16-element slice in the layout above).
#define KATTN_WG_SCORES_SHARED(TYPE)                                                                                 \
  asm volatile(                                                                                                      \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                                                   \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE " " KATTN_WG_R32 ", %32, %33, p, 1, 1, 0, 0;\n}\n" \
      : KATTN_WG_D32(s, 0)                                                                                           \
      : "l"(a), "l"(b), "r"(int(accumulate)))
#define KATTN_WG_SCORES_SHARED_WIDE(TYPE)                                                                             \
  asm volatile(                                                                                                       \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                                    \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " " KATTN_WG_R64 ", %64, %65, p, 1, 1, 0, 0;\n}\n" \
      : KATTN_WG_D32(s, 0), KATTN_WG_D32(s, 8)                                                                        \
      : "l"(a), "l"(b), "r"(int(accumulate)))
template <class T, int ScoreTiles>
__device__ inline void scores_64xNx16(float (&s)[ScoreTiles][4], std::uint64_t a, std::uint64_t b, bool accumulate) {
  static_assert(ScoreTiles == 8 || ScoreTiles == 16, "64 or 128 keys");
  if constexpr (ScoreTiles == 8) {
    if constexpr (std::is_same_v<T, bf16_t>)
      KATTN_WG_SCORES_SHARED("bf16");
    else
      KATTN_WG_SCORES_SHARED("f16");
  } else {
    if constexpr (std::is_same_v<T, bf16_t>)
      KATTN_WG_SCORES_SHARED_WIDE("bf16");
    else
      KATTN_WG_SCORES_SHARED_WIDE("f16");
  }
}

// o (+)= a · B, m64n128k16: 16 keys' V rows of 128 elements at descriptor b (N-major);
// accumulate false: o = a · B.
#define KATTN_WG_VALUES(TYPE)                                                       \
  asm volatile(                                                                     \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                                  \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " " KATTN_WG_R64 \
      ", {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"                               \
      : KATTN_WG_D32(o, 0), KATTN_WG_D32(o, 8)                                      \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(int(accumulate)))
template <class T>
__device__ inline void values_64x128x16(float (&o)[kWarpgroupHead / 8][4], const std::uint32_t (&a)[4], std::uint64_t b,
                                        bool accumulate) {
  if constexpr (std::is_same_v<T, bf16_t>)
    KATTN_WG_VALUES("bf16");
  else
    KATTN_WG_VALUES("f16");
}

#undef KATTN_WG_VALUES
#undef KATTN_WG_SCORES_SHARED_WIDE
#undef KATTN_WG_SCORES_SHARED
#undef KATTN_WG_SCORES
#undef KATTN_WG_R64
#undef KATTN_WG_R32
#undef KATTN_WG_D32
#undef KATTN_WG_D4

// fence: orders this thread's register accesses before the products that follow (wgmma.fence);
// commit: closes the group of products issued since the last; wait<N>: returns when at most N of
// this thread's groups are in flight.
__device__ inline void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int Pending>
__device__ inline void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}
__device__ inline void commit_and_wait() {
  commit();
  wait<0>();
}

// Keeps the compiler from moving accesses of registers that a product in flight writes across
// this point (CUTLASS's warpgroup_fence_operand).
template <int Tiles>
__device__ inline void fence_operands(float (&x)[Tiles][4]) {
#pragma unroll
  for (int j = 0; j < Tiles; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) asm volatile("" : "+f"(x[j][i])::"memory");
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
  const std::uint64_t k = warpgroup_detail::descriptor(unsigned(__cvta_generic_to_shared(k_tile)), 16);
  warpgroup_detail::fence();
#pragma unroll
  for (int kk = 0; kk < kWarpgroupHead / 16; ++kk)  // head elements 16kk..: 32 bytes into a row of 64
    warpgroup_detail::scores_64x64x16<T>(
        s, f.q[kk], k + (kk / 4 * warpgroup_atom_bytes(kFragmentTileKeys) + kk % 4 * 32) / 16, kk > 0);
  warpgroup_detail::commit_and_wait();
#else
  (void)f, (void)k_tile, (void)s;
#endif
}

// The weights of warp_softmax_step rounded to T: the A operands of P · V, one per 16 keys (the
// accumulator layout of two 8-key score tiles is the A operand layout of their 16 keys).
template <int Keys>
using WarpgroupWeightsOf = std::uint32_t[Keys / 16][4];
using WarpgroupWeights = WarpgroupWeightsOf<kFragmentTileKeys>;
template <class T, int ScoreTiles>
KOKKOS_FORCEINLINE_FUNCTION void warpgroup_weights(const float (&p)[ScoreTiles][4],
                                                   std::uint32_t (&a)[ScoreTiles / 2][4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
  for (int kk = 0; kk < ScoreTiles / 2; ++kk) {
    a[kk][0] = mma_detail::round_pair<T>(p[2 * kk][0], p[2 * kk][1]);
    a[kk][1] = mma_detail::round_pair<T>(p[2 * kk][2], p[2 * kk][3]);
    a[kk][2] = mma_detail::round_pair<T>(p[2 * kk + 1][0], p[2 * kk + 1][1]);
    a[kk][3] = mma_detail::round_pair<T>(p[2 * kk + 1][2], p[2 * kk + 1][3]);
  }
#else
  (void)p, (void)a;
#endif
}

// Issues o += P · V (weights a of 16·KeySlices keys, v_tile as k_tile above with that many rows)
// as one group of products and returns with it in flight; accumulate false: o = P · V (o's values
// before it are not read).
template <class T, int KeySlices>
KOKKOS_FORCEINLINE_FUNCTION void warpgroup_accumulate_issue(float (&o)[kWarpgroupHead / 8][4],
                                                            const std::uint32_t (&a)[KeySlices][4], const T* v_tile,
                                                            bool accumulate = true) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const std::uint64_t v =
      warpgroup_detail::descriptor(unsigned(__cvta_generic_to_shared(v_tile)), warpgroup_atom_bytes(16 * KeySlices));
  warpgroup_detail::fence_operands(o);
  warpgroup_detail::fence();
#pragma unroll
  for (int kk = 0; kk < KeySlices; ++kk)  // keys 16kk..: rows 16kk..
    warpgroup_detail::values_64x128x16<T>(o, a[kk], v + 16 * kk * kWarpgroupRowBytes / 16, accumulate || kk > 0);
  warpgroup_detail::commit();
#else
  (void)o, (void)a, (void)v_tile, (void)accumulate;
#endif
}

// o += P · V with the weights of warp_softmax_step rounded to T; v_tile as k_tile above.
template <class T>
KOKKOS_INLINE_FUNCTION void warpgroup_accumulate(WarpRowFragments<kWarpgroupHead>& f, const WarpScores& p,
                                                 const T* v_tile) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  WarpgroupWeights a;
  warpgroup_weights<T>(p, a);
  warpgroup_accumulate_issue<T>(f.o, a, v_tile);
  warpgroup_detail::wait<0>();
  warpgroup_detail::fence_operands(f.o);
#else
  (void)f, (void)p, (void)v_tile;
#endif
}

// Issues s = Q · Kᵀ for the warpgroup's 64 rows of Q in scratch (q_tile, in the layout above,
// warpgroup_stage_rows) against the 8·ScoreTiles keys of k_tile (64 or 128) as one group of
// products and returns with it in flight.
template <class T, int ScoreTiles>
KOKKOS_FORCEINLINE_FUNCTION void warpgroup_scores_issue(const T* q_tile, const T* k_tile, float (&s)[ScoreTiles][4]) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const std::uint64_t q = warpgroup_detail::descriptor(unsigned(__cvta_generic_to_shared(q_tile)), 16);
  const std::uint64_t k = warpgroup_detail::descriptor(unsigned(__cvta_generic_to_shared(k_tile)), 16);
  warpgroup_detail::fence_operands(s);
  warpgroup_detail::fence();
#pragma unroll
  for (int kk = 0; kk < kWarpgroupHead / 16; ++kk) {  // head elements 16kk..: 32 bytes into a row of 64
    const int q_at = (kk / 4 * warpgroup_atom_bytes(kWarpgroupRows) + kk % 4 * 32) / 16;
    const int k_at = (kk / 4 * warpgroup_atom_bytes(8 * ScoreTiles) + kk % 4 * 32) / 16;
    warpgroup_detail::scores_64xNx16<T>(s, q + q_at, k + k_at, kk > 0);
  }
  warpgroup_detail::commit();
#else
  (void)q_tile, (void)k_tile, (void)s;
#endif
}

// Returns when at most Pending of this thread's groups of products are in flight (they complete in
// order); `held` are the score or output registers of the completed ones, which the caller reads
// or writes next. Contract of the asynchronous forms (FlashAttention-3's overlap of the softmax
// with the products): until the wait that completes a group, its score or output registers and the
// weights it reads are not touched, nor its tiles rewritten; all 128 threads issue and wait
// together, outside branches the compiler cannot prove uniform (else ptxas serializes the products:
// its C7514 and C7518 notes). A wait has no operands: within a loop trip ptxas may issue it ahead of
// work written before it, so work that should run while a group is in flight ends the trip before
// the wait (QBlockMmaKernel's step).
template <int Pending, class... Held>
KOKKOS_FORCEINLINE_FUNCTION void warpgroup_wait(Held&... held) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  warpgroup_detail::wait<Pending>();
  (warpgroup_detail::fence_operands(held), ...);
#else
  ((void)held, ...);
#endif
}

// Stages the warpgroup's 64 rows of kWarpgroupHead 2-byte elements into `tile` (1024-byte aligned)
// in the layout above, asynchronously (team_stage_commit and team_stage_wait close and wait for
// them, warpgroup_tile_ready then publishes them to the tensor cores): row r < count from
// row_at(r), 16-byte aligned, rows from count on zeros (row_at gives any readable address). The
// lanes take the rows as TeamTileCopy does (8 lanes a row, a warp 4 rows an instruction), so every
// copy writes each bank once. All 128 threads call (warp 0–3, lane).
template <class T, class RowAt>
KOKKOS_INLINE_FUNCTION void warpgroup_stage_rows(const RowAt& row_at, int count, T* tile, int warp, int lane) {
  static_assert(sizeof(T) == 2, "2-byte elements");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  char* const bytes = reinterpret_cast<char*>(tile);
  for (int r = lane / 8 + 4 * warp; r < kWarpgroupRows; r += 4 * kWarpgroupWarps) {
    const T* from = row_at(r);
#pragma unroll
    for (int d = 8 * (lane % 8); d < kWarpgroupHead; d += 64)
      stage_detail::copy_chunk_async<16>(bytes + warpgroup_tile_offset<kWarpgroupRows>(r, d), from + d, r < count);
  }
#else
  (void)row_at, (void)count, (void)tile, (void)warp, (void)lane;
#endif
}

// Writes a warp's 16 output rows, o · row_scale[h] rounded to T, as rows row0 .. row0 + 15 (row0 a
// multiple of 16) of the warpgroup's tile at `tile` (1024-byte aligned) in the layout above: the
// tile is then a Q block's output rows for bulk_store_out_block (after each writing thread's
// warpgroup_tile_ready and a barrier). Earlier reads of those rows (the products') are the caller's
// to order. By stmatrix (fragment_detail::store_matrices), four 8 × 8 matrices an instruction (each
// 8 columns of 8 rows, in the accumulator's layout; lane l gives the address of row l % 8 of matrix
// l / 8), where one 4-byte store a lane's pair had taken four times the stores and an address
// each. CUDA sm_90 (fp16 and bf16 rows).
template <class T, int MaxHead>
KOKKOS_INLINE_FUNCTION void warp_write_tile_rows(const WarpRowFragments<MaxHead>& f, const float (&row_scale)[2],
                                                 T* tile, int row0) {
  static_assert(MaxHead == kWarpgroupHead && sizeof(T) == 2, "the products' rows: head 128 of 2-byte elements");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  char* const bytes = reinterpret_cast<char*>(tile);
  const int lane = warp_lane();
  // Matrix q = lane / 8 of instruction m: rows +8 for q odd, columns 16 m + 8 (q / 2).
  const int row = row0 + (lane & 7) + 8 * ((lane >> 3) & 1), half = lane >> 4;
#pragma unroll
  for (int m = 0; m < MaxHead / 16; ++m) {
    std::uint32_t r[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float* o = f.o[2 * m + (q >> 1)];
      const int i = 2 * (q & 1);
      r[q] = mma_detail::round_pair<T>(o[i] * row_scale[q & 1], o[i + 1] * row_scale[q & 1]);
    }
    fragment_detail::store_matrices(r, bytes + warpgroup_tile_offset<kWarpgroupRows>(row, 16 * m + 8 * half));
  }
#else
  (void)f, (void)row_scale, (void)tile, (void)row0;
#endif
}

}  // namespace kattn
