// Warp-scope ring of K/V tiles in scratch for a warp that owns its pipeline (the tensor-core
// split-KV kernel, one ring per warp of the team): each stage holds a K tile and a V tile of
// `rows` keys, filled by cp.async while the warp computes on an earlier stage.
//
// A row's lane chunks are split over `Pieces` lanes (a power of two, fixed at compile time: 8 for
// rows of 8 chunks and more, lane p of a row taking chunks p, p + Pieces, ..., up to 4), so one
// copy instruction reads whole 128-byte lines of 4 rows, a lane finds a key's block and slot once
// for its K and V chunks, and every chunk's offset is an immediate of the copy instruction: a
// 16-key tile pair of head 128 costs a lane 16 copies. Whole lines, each with the L2's 128-byte
// prefetch hint, moved the H100's decode from 82 % to 89 % of copy bandwidth at batch 32 / 16k
// against 64-byte pieces of 8 rows (L2 requests per byte down a quarter; docs/performance.md).
// (Per-row bulk copies,
// cp.async.bulk, measured 4x the instructions: each is a warp-uniform instruction that the
// compiler issues once per lane in a loop.) Host backends and rows that do not admit whole lane
// chunks go through team_stage_rows, which takes the whole team: the team must then be this warp.
//
// Contract: every call is made by all lanes of the warp. stage(t) for t = 0, 1, ... in order
// (skip() past the last tile), into the buffer of tile t - stages, whose reads must be done (the
// warp's own reads: stage() orders them before its copies); wait(t) before reading tile t, with
// tiles up to t + stages - 1 staged: so the loop is stage(t + stages - 1), wait(t), read tile t,
// and `stages` tiles are in flight while the warp waits. Rows from `count` on are zeros.
#pragma once

#include "kattn/core/compat.hpp"
#include "kattn/detail/tiles/team_stage.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace kattn {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
namespace warp_stage_detail {
// One lane chunk (8, 16 or 32 bytes) at an immediate byte offset from `to` and `from`, in flight;
// zeros where !valid.
template <std::size_t Bytes, int Offset>
__device__ inline void copy_chunk_at(unsigned to, const void* from, bool valid) {
  static_assert(Bytes == 8 || Bytes == 16 || Bytes == 32, "a lane chunk is 8, 16 or 32 bytes");
  if constexpr (Bytes == 8) {
    asm volatile("cp.async.ca.shared.global [%0+%2], [%1+%2], 8, %3;" ::"r"(to), "l"(from), "n"(Offset),
                 "r"(valid ? 8 : 0));
  } else {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0+%2], [%1+%2], 16, %3;" ::"r"(to), "l"(from), "n"(Offset),
                 "r"(valid ? 16 : 0));
    if constexpr (Bytes == 32)
      asm volatile("cp.async.cg.shared.global.L2::128B [%0+%2], [%1+%2], 16, %3;" ::"r"(to), "l"(from),
                   "n"(Offset + 16), "r"(valid ? 16 : 0));
  }
}

// Chunks c = 0, 1, ... of a K row and a V row (to k_to and v_to), StepBytes apart, while the
// chunk starts within the row's `left_bytes`: every chunk offset an immediate of its copy.
template <std::size_t ChunkBytes, int StepBytes, int... C>
__device__ inline void copy_row_chunks(unsigned k_to, const void* k_from, unsigned v_to, const void* v_from, bool valid,
                                       int left_bytes, std::integer_sequence<int, C...>) {
  const auto copy = [&](auto c) {
    constexpr int kOffset = decltype(c)::value * StepBytes;
    if (kOffset >= left_bytes) return;
    copy_chunk_at<ChunkBytes, kOffset>(k_to, k_from, valid);
    copy_chunk_at<ChunkBytes, kOffset>(v_to, v_from, valid);
  };
  (copy(std::integral_constant<int, C>{}), ...);
}

// The lane's share of a K/V tile pair of Rows rows with Pieces lanes a row: rows j of `count`
// valid ones (zeros past them), chunks piece, piece + Pieces, ... of each; `first` is a valid key.
// Compile-time Rows and Pieces unroll the rows and make every chunk's offset an immediate; K and V
// of a key share one address computation where their strides agree (separate caches of one layout).
template <int Rows, int Pieces, class Storage>
__device__ inline void stage_pieces(Storage* k_tile, Storage* v_tile, int stride, int head_size,
                                    const PagedKvAccessor<Storage>& k, const PagedKvAccessor<Storage>& v,
                                    const CacheRowsAt& at, int first, int count) {
  constexpr std::size_t kChunkBytes = sizeof(LaneChunk<Storage>);
  constexpr int kStep = Pieces * kLaneElements;  // elements between a lane's chunks
  const int piece = int(threadIdx.x) % Pieces;
  const int e0 = piece * kLaneElements;
  const bool shared_offsets = k.stride_block == v.stride_block && k.stride_slot == v.stride_slot;
  const Storage* k_head = k.data + std::int64_t(at.kv_head) * k.stride_head + e0;
  const Storage* v_head = v.data + std::int64_t(at.kv_head) * v.stride_head + e0;
  int first_slot = 0;
  const std::int64_t first_block = at.locate(first, first_slot);
  if (first_slot + Rows <= at.block_size.divisor) {
    // The tile lies in one cache block (block sizes of 16 and up, tiles aligned to them): one
    // lookup for the tile, rows a slot stride apart (rows past `count` stay in the block).
    const std::int64_t k_base = first_block * k.stride_block + std::int64_t(first_slot) * k.stride_slot;
    const std::int64_t v_base =
        shared_offsets ? k_base : first_block * v.stride_block + std::int64_t(first_slot) * v.stride_slot;
#pragma unroll
    for (int r = 0; r < (Rows * Pieces + 31) / 32; ++r) {
      const int j = int(threadIdx.x) / Pieces + r * (32 / Pieces);
      if (j >= Rows) break;
      const unsigned k_to = unsigned(__cvta_generic_to_shared(k_tile + j * stride + e0));
      const unsigned v_to = unsigned(__cvta_generic_to_shared(v_tile + j * stride + e0));
      copy_row_chunks<kChunkBytes, kStep* int(sizeof(Storage))>(
          k_to, k_head + k_base + j * k.stride_slot, v_to, v_head + v_base + j * v.stride_slot, j < count,
          (head_size - e0) * int(sizeof(Storage)), std::make_integer_sequence<int, 4>{});
    }
    return;
  }
#pragma unroll
  for (int r = 0; r < (Rows * Pieces + 31) / 32; ++r) {
    const int j = int(threadIdx.x) / Pieces + r * (32 / Pieces);
    if (j >= Rows) break;
    const bool valid = j < count;
    int slot = 0;
    const std::int64_t block = valid ? at.locate(first + j, slot) : 0;
    // Rows past `count` copy zero bytes (zero fill) from the head's first row.
    const std::int64_t k_offset = block * k.stride_block + std::int64_t(slot) * k.stride_slot;
    const std::int64_t v_offset =
        shared_offsets ? k_offset : block * v.stride_block + std::int64_t(slot) * v.stride_slot;
    const Storage* k_row = k_head + k_offset;
    const Storage* v_row = v_head + v_offset;
    const unsigned k_to = unsigned(__cvta_generic_to_shared(k_tile + j * stride + e0));
    const unsigned v_to = unsigned(__cvta_generic_to_shared(v_tile + j * stride + e0));
    copy_row_chunks<kChunkBytes, kStep* int(sizeof(Storage))>(
        k_to, k_row, v_to, v_row, valid, (head_size - e0) * int(sizeof(Storage)), std::make_integer_sequence<int, 4>{});
  }
}

}  // namespace warp_stage_detail
#endif

// A lane's fixed share of every K/V tile that lies inside one cache block, for the common cache:
// head size HeadSize at compile time (a multiple of 64), K and V of one layout, rows that admit
// 16-byte chunks, block sizes a multiple of Rows. Built once per warp, so a tile costs a lane its
// block's address and its copies, every one at immediate offsets (rows lane/8 + 4r, chunks
// lane%8 + 8c of each: whole 128-byte lines of 4 rows an instruction, as stage() copies them),
// instead of a row lookup and 64-bit row arithmetic a copy. Contract: as WarpStageRing::stage.
template <class Storage, int Rows, int HeadSize>
struct WarpBlockTileCopy {
  static_assert(HeadSize % 64 == 0 && Rows % 4 == 0, "8 lanes a row of 16-byte chunks, 4 rows an instruction");
  static constexpr int kRowBytes = HeadSize * int(sizeof(Storage));
  const char* k_lane = nullptr;  // the lane's first chunk of its first row, slot 0 of block 0
  std::int64_t v_minus_k = 0;    // bytes from a K row to its V row
  std::int64_t block_bytes = 0, slot_bytes = 0;
  int lane_row = 0;  // rows lane_row + 4r of a tile

  // Whether the fast path fits this cache (decided once per launch on the host).
  static bool applies(const PagedKvAccessor<Storage>& k, const PagedKvAccessor<Storage>& v, int head_size,
                      int block_size, bool aligned) {
    return head_size == HeadSize && aligned && block_size % Rows == 0 && k.stride_block == v.stride_block &&
           k.stride_slot == v.stride_slot && k.stride_head == v.stride_head && sizeof(Storage) == 2;
  }

  KOKKOS_INLINE_FUNCTION WarpBlockTileCopy(const PagedKvAccessor<Storage>& k, const PagedKvAccessor<Storage>& v,
                                           int kv_head, int lane) {
    const int piece = lane % 8;
    lane_row = lane / 8;
    k_lane = reinterpret_cast<const char*>(k.data + std::int64_t(kv_head) * k.stride_head +
                                           std::int64_t(lane_row) * k.stride_slot + piece * kLaneElements);
    v_minus_k = reinterpret_cast<const char*>(v.data) - reinterpret_cast<const char*>(k.data);
    block_bytes = k.stride_block * std::int64_t(sizeof(Storage));
    slot_bytes = k.stride_slot * std::int64_t(sizeof(Storage));
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Keys slot .. slot + count - 1 (count <= Rows) of `block` into tiles of Stride elements a row
  // at shared addresses k_to and v_to; rows from count on are zeros.
  template <int Stride>
  __device__ void copy(unsigned k_to, unsigned v_to, std::int32_t block, int slot, int count) const {
    const char* k_row = k_lane + block * block_bytes + slot * slot_bytes;
    const std::int64_t row_step = 4 * slot_bytes;
    const unsigned lane_to = unsigned((lane_row * Stride + (threadIdx.x % 8) * kLaneElements) * sizeof(Storage));
    k_to += lane_to;
    v_to += lane_to;
    const auto row = [&](auto r) {
      constexpr int kRow = decltype(r)::value;
      constexpr int kTo = kRow * 4 * Stride * int(sizeof(Storage));
      const char* k_from = k_row + kRow * row_step;
      const char* v_from = k_from + v_minus_k;
      const bool valid = lane_row + 4 * kRow < count;
      const auto chunk = [&](auto c) {
        constexpr int kOffset = decltype(c)::value * 8 * kLaneElements * int(sizeof(Storage));
        stage_detail::copy_16_at<kTo + kOffset, kOffset>(k_to, k_from, valid);
        stage_detail::copy_16_at<kTo + kOffset, kOffset>(v_to, v_from, valid);
      };
      for_each_index(chunk, std::make_integer_sequence<int, kRowBytes / 128>{});
    };
    for_each_index(row, std::make_integer_sequence<int, Rows / 4>{});
  }
#endif
};

template <class Storage, int Rows>
struct WarpStageRing {
  static constexpr int rows = Rows;  // keys a tile
  Storage* tiles;                    // [stages][2][Rows][stride]: K then V of each stage, 16-byte aligned
  int stride;                        // elements per row, a multiple of kLaneElements
  int head_size;                     // elements of a cache row
  bool aligned;                      // every cache row admits LaneChunk loads (lane_chunks_aligned)
  int stages;                        // 2 or 4

  KOKKOS_INLINE_FUNCTION Storage* k_tile(int t) const {
    return tiles + std::size_t(2 * (t & (stages - 1))) * rows * stride;
  }
  KOKKOS_INLINE_FUNCTION Storage* v_tile(int t) const { return k_tile(t) + std::size_t(rows) * stride; }

  // Stages keys first .. first + count - 1 (count <= rows) as tile t.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void stage(const Member& team, int t, const PagedKvAccessor<Storage>& k,
                                    const PagedKvAccessor<Storage>& v, const CacheRowsAt& at, int first,
                                    int count) const {
#if defined(__CUDA_ARCH__)
    __syncwarp();  // the warp's reads of this buffer's last tile come first
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (aligned && head_size % kLaneElements == 0) {
      const int chunks = head_size / kLaneElements;  // 8 lanes a row where it has 8 chunks or more
      const auto share = [&](auto pieces) {
        warp_stage_detail::stage_pieces<Rows, decltype(pieces)::value>(k_tile(t), v_tile(t), stride, head_size, k, v,
                                                                       at, first, count);
      };
      if (chunks <= 1)
        share(std::integral_constant<int, 1>{});
      else if (chunks <= 2)
        share(std::integral_constant<int, 2>{});
      else if (chunks <= 4)
        share(std::integral_constant<int, 4>{});
      else
        share(std::integral_constant<int, 8>{});
      return team_stage_commit();
    }
#endif
    team_stage_rows(team, k, at, first, count, rows, head_size, stride, aligned, k_tile(t));
    team_stage_rows(team, v, at, first, count, rows, head_size, stride, aligned, v_tile(t));
    team_stage_commit();
  }

  // stage() for a tile inside one cache block through a WarpBlockTileCopy (the caller checked
  // that it applies): keys slot .. slot + count - 1 of `block` as tile t; Stride is `stride`, at
  // compile time.
  template <int Stride, int HeadSize>
  KOKKOS_INLINE_FUNCTION void stage_block(int t, const WarpBlockTileCopy<Storage, Rows, HeadSize>& lanes,
                                          std::int32_t block, int slot, int count) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __syncwarp();  // the warp's reads of this buffer's last tile come first
    lanes.template copy<Stride>(unsigned(__cvta_generic_to_shared(k_tile(t))),
                                unsigned(__cvta_generic_to_shared(v_tile(t))), block, slot, count);
#else
    (void)t, (void)lanes, (void)block, (void)slot, (void)count;
#endif
    team_stage_commit();
  }

  // An empty stage where the ring runs past the last tile (keeps the cp.async group counts uniform).
  KOKKOS_INLINE_FUNCTION void skip() const { team_stage_commit(); }

  KOKKOS_INLINE_FUNCTION void wait(int) const {
    team_stage_wait(stages - 1);
#if defined(__CUDA_ARCH__)
    __syncwarp();
#endif
  }
};

}  // namespace kattn
