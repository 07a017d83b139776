// Warp-scope ring of K/V tiles in scratch for a warp that owns its pipeline (the tensor-core
// split-KV kernel): each stage holds a K tile and a V tile of `rows` keys, filled by cp.async
// while the warp computes on an earlier stage.
//
// A row's lane chunks are split over `Pieces` lanes (a power of two, fixed at compile time; up to
// 4 chunks each, lane p of a row taking chunks p, p + Pieces, ...), so the lanes of a row copy
// adjacent chunks in one instruction, a lane finds a key's block and slot once for its K and V
// chunks, and every chunk's offset is an immediate: a 32-key tile pair of head 128 costs a lane
// 4 lookups and 32 copies. (Per-row bulk copies,
// cp.async.bulk, measured 4x the instructions: each is a warp-uniform instruction that the
// compiler issues once per lane in a loop.) Host backends and rows that do not admit whole lane
// chunks go through team_stage_rows.
//
// Contract: every call is made by all lanes of the warp, which is the whole team (a one-warp
// team). stage(t) for t = 0, 1, ... in order (skip() past the last tile), at most Stages - 1
// ahead of the tile being computed; wait(t) then a team barrier before reading tile t; a tile's
// buffer is restaged only after a barrier that follows the last reads of it. Rows from `count`
// on are zeros.
#pragma once

#include "kattn/core/compat.hpp"
#include "kattn/tiles/team_stage.hpp"

#include <cstdint>
#include <type_traits>

namespace kattn {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
namespace warp_stage_detail {
// The lane's share of a K/V tile pair of Rows rows with Pieces lanes a row: rows j of `count`
// valid ones (zeros past them), chunks piece, piece + Pieces, ... of each. Compile-time Rows and
// Pieces unroll the rows and make every chunk's offset an immediate; K and V of a key share one
// address computation where their strides agree (separate caches of one layout).
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
    Storage* k_to = k_tile + j * stride + e0;
    Storage* v_to = v_tile + j * stride + e0;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (e0 + c * kStep >= head_size) break;
      stage_detail::copy_chunk_async<kChunkBytes>(k_to + c * kStep, k_row + c * kStep, valid);
      stage_detail::copy_chunk_async<kChunkBytes>(v_to + c * kStep, v_row + c * kStep, valid);
    }
  }
}
}  // namespace warp_stage_detail
#endif

template <class Storage, int Stages, int Rows>
struct WarpStageRing {
  static constexpr int rows = Rows;  // keys a tile
  Storage* tiles;     // [Stages][2][Rows][stride]: K then V of each stage, 16-byte aligned
  int stride;         // elements per row, a multiple of kLaneElements
  int head_size;      // elements of a cache row
  bool aligned;       // every cache row admits LaneChunk loads (lane_chunks_aligned)

  KOKKOS_INLINE_FUNCTION Storage* k_tile(int t) const { return tiles + std::size_t(2 * (t % Stages)) * rows * stride; }
  KOKKOS_INLINE_FUNCTION Storage* v_tile(int t) const { return k_tile(t) + std::size_t(rows) * stride; }

  // Stages keys first .. first + count - 1 (count <= rows) as tile t.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void stage(const Member& team, int t, const PagedKvAccessor<Storage>& k,
                                    const PagedKvAccessor<Storage>& v, const CacheRowsAt& at, int first,
                                    int count) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (aligned && head_size % kLaneElements == 0) {
      const int chunks = head_size / kLaneElements;  // a power-of-two share of them, at most 4, a lane
      const auto share = [&](auto pieces) {
        warp_stage_detail::stage_pieces<Rows, decltype(pieces)::value>(k_tile(t), v_tile(t), stride, head_size, k, v,
                                                                      at, first, count);
      };
      if (chunks <= 4) share(std::integral_constant<int, 1>{});
      else if (chunks <= 8) share(std::integral_constant<int, 2>{});
      else if (chunks <= 16) share(std::integral_constant<int, 4>{});
      else share(std::integral_constant<int, 8>{});
      return team_stage_commit();
    }
#endif
    team_stage_rows(team, k, at, first, count, rows, head_size, stride, aligned, k_tile(t));
    team_stage_rows(team, v, at, first, count, rows, head_size, stride, aligned, v_tile(t));
    team_stage_commit();
  }

  // An empty stage where the ring runs past the last tile (keeps the cp.async group counts uniform).
  KOKKOS_INLINE_FUNCTION void skip() const { team_stage_commit(); }

  KOKKOS_INLINE_FUNCTION void wait(int) const { team_stage_wait(Stages - 2); }
};

}  // namespace kattn
