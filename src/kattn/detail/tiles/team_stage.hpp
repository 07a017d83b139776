// Team-scope staging of K or V rows from the paged cache into team scratch, asynchronously where
// the hardware copies without registers (CUDA sm_80+: cp.async), so that several tiles are in
// flight while the team computes on an earlier one.
//
// Contract: team_stage_rows is called by every thread of the team (it splits the tile's lane
// chunks over all of them, TeamVectorRange). On CUDA sm_80+ with aligned rows the copies are in
// flight on return: team_stage_commit() closes this thread's group of them, team_stage_wait(n)
// waits until at most n of its committed groups are pending, and a team barrier after the wait
// makes the finished tiles visible to every thread. Elsewhere the copy is done on return (commit
// and wait do nothing), so the same kernel runs on every backend.
#pragma once

#include "kattn/core/compat.hpp"
#include "kattn/detail/tiles/fast_divisor.hpp"
#include "kattn/detail/tiles/lane_chunk.hpp"
#include "kattn/detail/tiles/paged_kv.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace kattn {

// Where a tile's rows are: the ids of the cache blocks that hold keys from first_block ·
// block_size on (block_ids[0] is block first_block of the sequence), and the KV head.
struct CacheRowsAt {
  const std::int32_t* block_ids;
  int first_block;
  FastDivisor block_size;
  int kv_head;

  // The cache block (an id from the table) and slot of sequence key `key`.
  KOKKOS_INLINE_FUNCTION std::int32_t locate(int key, int& slot) const {
    return block_ids[block_size.divmod(key, slot) - first_block];
  }
  template <class Storage>
  KOKKOS_INLINE_FUNCTION const Storage* row(const PagedKvAccessor<Storage>& cache, int key) const {
    int slot;
    const std::int32_t block = locate(key, slot);
    return cache.row(block, slot, kv_head);
  }
};

namespace stage_detail {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// Copies the chunk at `from` to shared memory at `to` in flight, or fills it with zeros.
template <std::size_t Bytes>
__device__ inline void copy_chunk_async(void* to, const void* from, bool valid) {
  const unsigned address = unsigned(__cvta_generic_to_shared(to));
  if constexpr (Bytes == 16 || Bytes == 32) {
    for (unsigned offset = 0; offset < Bytes; offset += 16)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(address + offset),
                   "l"(static_cast<const char*>(from) + offset), "r"(valid ? 16 : 0));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(address), "l"(from), "n"(Bytes),
                 "r"(valid ? int(Bytes) : 0));
  }
}

// One 16-byte chunk in flight, shared and global addresses each at their own immediate byte
// offset; zeros where !valid.
template <int ToOffset, int FromOffset>
__device__ inline void copy_16_at(unsigned to, const void* from, bool valid) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0+%2], [%1+%3], 16, %4;" ::"r"(to), "l"(from), "n"(ToOffset),
               "n"(FromOffset), "r"(valid ? 16 : 0));
}
#endif

}  // namespace stage_detail

// f(integral_constant<int, I>) for each I of the sequence: unrolled copies whose offsets are
// immediates of their instructions.
template <class F, int... I>
KOKKOS_INLINE_FUNCTION void for_each_index(const F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}

// Stages `rows` rows into `tile` (rows of `stride` elements, 16-byte aligned, stride a multiple of
// kLaneElements): row j < count from row_at(j), a pointer to its head_size elements; rows from
// `count` on and elements past head_size are zeros (their weights are 0, and 0 · garbage could be
// NaN), for which row_at gives any readable address (no byte of it is read). `aligned`: every
// row_at(j) admits LaneChunk loads.
//
// In a team of warps (vector length 32) on CUDA sm_80+, 8 lanes take a row (lane % 8 its chunks
// lane % 8, + 8, ...) and a warp 4 rows an instruction, so a copy reads whole 128-byte lines and a
// thread finds each of its rows once; other teams split the rows' chunks over their threads.
template <class Member, class Storage, class RowAt>
KOKKOS_INLINE_FUNCTION void team_stage_rows_at(const Member& team, const RowAt& row_at, int count, int rows,
                                               int head_size, int stride, bool aligned, Storage* tile) {
  const int chunks = lanes_for(head_size);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (aligned && head_size % kLaneElements == 0 && blockDim.x == 32) {
    const int lane = int(threadIdx.x);
    for (int j = lane / 8 + 4 * team.team_rank(); j < rows; j += 4 * team.team_size()) {
      const bool valid = j < count;
      const Storage* from = row_at(j);
      for (int c = lane % 8; c < chunks; c += 8)
        stage_detail::copy_chunk_async<sizeof(LaneChunk<Storage>)>(tile + j * stride + c * kLaneElements,
                                                                   from + c * kLaneElements, valid);
    }
    return;
  }
#endif
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * chunks), [&](int i) {
    const int j = i / chunks;
    const int e = (i - j * chunks) * kLaneElements;
    auto* to = reinterpret_cast<LaneChunk<Storage>*>(tile + j * stride + e);
    const Storage* from = row_at(j) + e;
    const bool whole = aligned && e + kLaneElements <= head_size;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (whole) return stage_detail::copy_chunk_async<sizeof(LaneChunk<Storage>)>(to, from, j < count);
#endif
    if (j >= count) {
      *to = LaneChunk<Storage>{};
    } else if (whole) {
      *to = *reinterpret_cast<const LaneChunk<Storage>*>(from);
    } else {
      for (int x = 0; x < kLaneElements; ++x) to->values[x] = e + x < head_size ? from[x] : Storage{0};
    }
  });
}

// Stages the `count` keys (or values) first, first + 1, ... of the paged cache (team_stage_rows_at).
template <class Member, class Storage>
KOKKOS_INLINE_FUNCTION void team_stage_rows(const Member& team, const PagedKvAccessor<Storage>& cache,
                                            const CacheRowsAt& at, int first, int count, int rows, int head_size,
                                            int stride, bool aligned, Storage* tile) {
  team_stage_rows_at(
      team, [&](int j) { return j < count ? at.row(cache, first + j) : cache.data; }, count, rows, head_size, stride,
      aligned, tile);
}

// A thread's fixed share of a team's K or V tiles for the common cache: 2-byte elements, head size
// HeadSize at compile time (a multiple of 64), K and V of one layout with strides that fit 32 bits
// in bytes, rows that admit 16-byte chunks. Built once per item, so a row costs a thread its
// block lookup, two wide multiply-adds and its copies at immediate offsets, instead of 64-bit
// stride arithmetic a row (which took half the register-row prefill kernel's instructions on the
// H100). A team of `warps` warps takes a tile's rows as team_stage_rows_at does: 8 lanes a row
// (chunks lane % 8 + 8c), a warp 4 rows an instruction, rows lane / 8 + 4·warp + 4·warps·i.
// Contract: as team_stage_rows_at (every thread of the team calls; commit and wait after).
template <class Storage, int Rows, int HeadSize>
struct TeamTileCopy {
  static_assert(HeadSize % 64 == 0 && sizeof(Storage) == 2, "8 lanes a row of 16-byte chunks of 2-byte elements");
  static constexpr int kRowBytes = HeadSize * int(sizeof(Storage));
  const char* k_lane = nullptr;  // the lane's first chunk of the KV head's row in slot 0 of block 0
  std::int64_t v_minus_k = 0;    // bytes from a K row to its V row
  std::uint32_t block_bytes = 0, slot_bytes = 0;
  int row0 = 0, row_step = 0;  // the thread's rows: row0, row0 + row_step, ...

  // Whether it fits this cache (decided once per launch on the host).
  static bool applies(const PagedKvAccessor<Storage>& k, const PagedKvAccessor<Storage>& v, int head_size,
                      bool aligned) {
    const auto fits = [](std::int64_t elements) {
      return elements >= 0 && elements * sizeof(Storage) < (std::int64_t(1) << 32);
    };
    return head_size == HeadSize && aligned && k.stride_block == v.stride_block && k.stride_slot == v.stride_slot &&
           k.stride_head == v.stride_head && fits(k.stride_block) && fits(k.stride_slot);
  }

  KOKKOS_INLINE_FUNCTION TeamTileCopy(const PagedKvAccessor<Storage>& k, const PagedKvAccessor<Storage>& v, int kv_head,
                                      int warp, int warps, int lane) {
    k_lane = reinterpret_cast<const char*>(k.data + std::int64_t(kv_head) * k.stride_head + (lane % 8) * kLaneElements);
    v_minus_k = reinterpret_cast<const char*>(v.data) - reinterpret_cast<const char*>(k.data);
    block_bytes = std::uint32_t(k.stride_block * std::int64_t(sizeof(Storage)));
    slot_bytes = std::uint32_t(k.stride_slot * std::int64_t(sizeof(Storage)));
    row0 = lane / 8 + 4 * warp;
    row_step = 4 * warps;
  }

  // A thread's rows in every tile of an item, where the cache's block size divides the team's
  // row step 4 · Warps (so Rows too): its rows keep one slot in every tile, and tile t's row i is
  // ids_per_tile · t + ids_per_row · i block ids past the first. Found once an item, so that a
  // tile's copies cost a thread its block ids and one multiply-add a row, not a division, a table
  // address and 64-bit slot arithmetic a row (a quarter of a step's instructions, 2026-11-30).
  struct BlockRows {
    const char* k_from = nullptr;       // the lane's chunk of the thread's slot in block 0
    const std::int32_t* ids = nullptr;  // the block id of the thread's first row in tile 0
    int ids_per_row = 0, ids_per_tile = 0;
  };
  // By the divisor's multiply-high: a `%` by the run-time block size took an item 25 instructions
  // of integer division ahead of its first copies.
  template <int Warps>
  KOKKOS_INLINE_FUNCTION static bool block_rows_apply(const FastDivisor& block_size) {
    int remainder = 0;
    block_size.divmod(4 * Warps, remainder);
    return remainder == 0;
  }
  // Tiles of Rows keys from first_key on (block_rows_apply).
  template <int Warps>
  KOKKOS_INLINE_FUNCTION BlockRows block_rows(const std::int32_t* block_ids, const FastDivisor& block_size,
                                              int first_key) const {
    int slot = 0;
    const int block = block_size.divmod(first_key + row0, slot);
    return {k_lane + std::uint64_t(std::uint32_t(slot)) * slot_bytes, block_ids + block, block_size.div(4 * Warps),
            block_size.div(Rows)};
  }
  // The block ids of a thread's rows in tile `tile` of an item (its first `count` keys; rows past
  // them: block 0, none of it read, nor a table entry past the keys), read a step ahead of their
  // copies so that the copies do not wait for them.
  template <int Warps>
  struct TileBlocks {
    std::int32_t id[Rows / (4 * Warps)];
  };
  // The rows' ids by unsigned 32-bit offsets from the item's first (never negative): a wide
  // multiply-add a row's address, where signed indices took 64-bit adds and shifts (26
  // instructions a call of four rows, three or four calls an item; 2026-12-02).
  template <int Warps>
  KOKKOS_INLINE_FUNCTION TileBlocks<Warps> tile_blocks(const BlockRows& rows, int tile, int count) const {
    TileBlocks<Warps> blocks;
    const std::uint32_t first = std::uint32_t(tile * rows.ids_per_tile);
    KATTN_UNROLL
    for (int i = 0; i < Rows / (4 * Warps); ++i)
      blocks.id[i] = row0 + i * 4 * Warps < count ? rows.ids[first + std::uint32_t(i * rows.ids_per_row)] : 0;
    return blocks;
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Keys first .. first + count - 1 (count >= 1) of the sequence whose block ids start at
  // block_ids, K (values: V) rows, into the tile at shared address `to` (rows of Stride elements);
  // rows from count on are zeros.
  template <int Stride>
  __device__ void copy(unsigned to, bool values, const std::int32_t* block_ids, const FastDivisor& block_size,
                       int first, int count) const {
    constexpr int kRowTo = Stride * int(sizeof(Storage));
    const char* lane_from = values ? k_lane + v_minus_k : k_lane;
    to += unsigned(row0 * kRowTo + (threadIdx.x % 8) * 16);
    if (row_step * 4 == Rows)
      return copy_rows<kRowTo, 128, 4>(to, lane_from, block_ids, block_size, first, count, row0);
    for (int j = row0; j < Rows; j += row_step, to += unsigned(row_step * kRowTo))
      copy_rows<kRowTo, 128, 1>(to, lane_from, block_ids, block_size, first, count, j);
  }

  // The same keys into the tile at `to` (1024-byte aligned) in the warpgroup products' 128-byte
  // swizzled layout (warpgroup_tile_offset): a key's 128-byte rows of 64 elements, Rows · 128 bytes
  // apart, chunk c of a row at c ^ (key % 8). The lanes take the rows as copy() does, so a warp's
  // copy instruction writes 4 whole rows: every bank once.
  __device__ void copy_swizzled(unsigned to, bool values, const std::int32_t* block_ids, const FastDivisor& block_size,
                                int first, int count) const {
    constexpr int kRowTo = 128, kHalfTo = Rows * 128;
    const char* lane_from = values ? k_lane + v_minus_k : k_lane;
    const int chunk = int(threadIdx.x % 8);
    if (row_step % 8 == 0 && row_step * 4 == Rows)  // the thread's rows share their index mod 8
      return copy_rows<kRowTo, kHalfTo, 4>(to + unsigned(row0 * kRowTo + (chunk ^ (row0 % 8)) * 16), lane_from,
                                           block_ids, block_size, first, count, row0);
    for (int j = row0; j < Rows; j += row_step)
      copy_rows<kRowTo, kHalfTo, 1>(to + unsigned(j * kRowTo + (chunk ^ (j % 8)) * 16), lane_from, block_ids,
                                    block_size, first, count, j);
  }

  // K rows into the tile at `to` and the V rows of the same keys into the tile at `v_to`, as
  // copy_swizzled does each: a row's block lookup and address serve both. Warps: the team's, known
  // at compile time, so that a thread's rows (4 · Warps apart) and their offsets are constants.
  template <int Warps>
  __device__ void copy_swizzled_pair(unsigned to, unsigned v_to, const std::int32_t* block_ids,
                                     const FastDivisor& block_size, int first, int count) const {
    static_assert(Rows % (4 * Warps) == 0 && (4 * Warps) % 8 == 0, "a thread's rows share their index mod 8");
    constexpr int kRowTo = 128, kHalfTo = Rows * 128;
    const int chunk = int(threadIdx.x % 8);
    copy_rows<kRowTo, kHalfTo, Rows / (4 * Warps), true>(to + unsigned(row0 * kRowTo + (chunk ^ (row0 % 8)) * 16),
                                                         k_lane, block_ids, block_size, first, count, row0, v_to - to);
  }

  // The same copies of a tile of an item (its first `count` keys; rows past them zeros) by the
  // thread's BlockRows and the tile's TileBlocks.
  template <int Warps>
  __device__ void copy_swizzled_pair(unsigned to, unsigned v_to, const BlockRows& rows, const TileBlocks<Warps>& blocks,
                                     int count) const {
    constexpr int kRowStep = 4 * Warps, kRowsEach = Rows / kRowStep, kRowTo = 128, kHalfTo = Rows * 128;
    static_assert(Rows % kRowStep == 0 && kRowStep % 8 == 0, "a thread's rows share their index mod 8");
    const std::uint32_t slot[kRowsEach] = {};  // the slot is in rows.k_from
    const int chunk = int(threadIdx.x % 8);
    issue_rows<kRowTo, kHalfTo, kRowsEach, true, kRowStep>(to + unsigned(row0 * kRowTo + (chunk ^ (row0 % 8)) * 16),
                                                           rows.k_from, blocks.id, slot, count, row0, v_to - to);
  }
#endif

 private:
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // N of the thread's rows, j0, j0 + row_step, ..., row i to shared address to + i · row_step ·
  // RowTo, its 128-byte parts h at + h · PartTo: every block id is read before the first copy, so
  // that their latencies overlap (a team of 4 warps: all 4 rows). Pair: each row's V row too, to
  // the same place + v_to bytes.
  template <int RowTo, int PartTo, int N, bool Pair = false>
  __device__ void copy_rows(unsigned to, const char* lane_from, const std::int32_t* block_ids,
                            const FastDivisor& block_size, int first, int count, int j0, unsigned v_to = 0) const {
    std::int32_t block[N];
    std::uint32_t slot[N];
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const int j = j0 + i * row_step;
      int s = 0;
      block[i] = block_ids[block_size.divmod(j < count ? first + j : first, s)];  // rows past count: any valid row
      slot[i] = std::uint32_t(s);
    }
    issue_rows<RowTo, PartTo, N, Pair, 0>(to, lane_from, block, slot, count, j0, v_to);
  }

  // The copies of N located rows (a block and slot each; rows from count on zeros), j0, j0 + step,
  // ... (step: RowStep, or row_step where 0), row i to shared address to + i · step · RowTo, its
  // 128-byte parts h at + h · PartTo; Pair: each row's V row too, to the same place + v_to bytes.
  template <int RowTo, int PartTo, int N, bool Pair, int RowStep>
  __device__ void issue_rows(unsigned to, const char* lane_from, const std::int32_t (&block)[N],
                             const std::uint32_t (&slot)[N], int count, int j0, unsigned v_to) const {
    const int step = RowStep > 0 ? RowStep : row_step;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const char* from =
          lane_from + std::uint64_t(std::uint32_t(block[i])) * block_bytes + std::uint64_t(slot[i]) * slot_bytes;
      const unsigned row_to = to + unsigned(i * step * RowTo);
      const bool valid = j0 + i * step < count;
      const auto part = [&](auto h) {
        constexpr int kPart = decltype(h)::value;
        stage_detail::copy_16_at<kPart * PartTo, kPart * 128>(row_to, from, valid);
        if constexpr (Pair)
          stage_detail::copy_16_at<kPart * PartTo, kPart * 128>(row_to + v_to, from + v_minus_k, valid);
      };
      for_each_index(part, std::make_integer_sequence<int, kRowBytes / 128>{});
    }
  }
#endif
};

// Closes the group of copies this thread has staged since the last commit.
KOKKOS_INLINE_FUNCTION void team_stage_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;");
#endif
}

// Waits until at most `pending` (0 to 3) of this thread's committed groups are in flight.
KOKKOS_INLINE_FUNCTION void team_stage_wait(int pending) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  switch (pending) {
    case 0:
      asm volatile("cp.async.wait_group 0;");
      break;
    case 1:
      asm volatile("cp.async.wait_group 1;");
      break;
    case 2:
      asm volatile("cp.async.wait_group 2;");
      break;
    default:
      asm volatile("cp.async.wait_group 3;");
      break;
  }
#else
  (void)pending;
#endif
}

}  // namespace kattn
