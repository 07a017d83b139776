// Warp-scope ring of K/V tiles in scratch for a warp that owns its pipeline (the tensor-core
// split-KV kernel): each stage holds a K tile and a V tile of `rows` keys, filled by cp.async
// while the warp computes on an earlier stage.
//
// A row's lane chunks are split over `pieces` lanes (a power of two; up to 4 chunks each, lane p
// of a row taking chunks p, p + pieces, ...), so the lanes of a row copy adjacent chunks in one
// instruction, and a lane finds a key's block and slot once for its K and V chunks: a 32-key
// tile pair of head 128 costs a lane 4 lookups and 32 copies. (Per-row bulk copies,
// cp.async.bulk, measured 4x the instructions: each is a warp-uniform instruction that the
// compiler issues once per lane in a loop.) Host backends and rows that do not admit whole lane
// chunks go through team_stage_rows.
//
// Contract: every call is made by all lanes of the warp, which is the whole team (a one-warp
// team). stage(t) for t = 0, 1, ... in order (skip() past the last tile), at most `stages` - 1
// ahead of the tile being computed; wait(t) then a team barrier before reading tile
// t; a tile's buffer is restaged only after a barrier that follows the last reads of it. Rows
// from `count` on are zeros.
#pragma once

#include "kattn/core/compat.hpp"
#include "kattn/tiles/team_stage.hpp"

#include <cstdint>

namespace kattn {

template <class Storage>
struct WarpStageRing {
  Storage* tiles;            // [stages][2][rows][stride]: K then V of each stage, 16-byte aligned
  int stages, rows, stride;  // stride: elements per row, a multiple of kLaneElements
  int head_size;             // elements of a cache row
  bool aligned;              // every cache row admits LaneChunk loads (lane_chunks_aligned)

  KOKKOS_INLINE_FUNCTION Storage* k_tile(int t) const { return tiles + std::size_t(2 * (t % stages)) * rows * stride; }
  KOKKOS_INLINE_FUNCTION Storage* v_tile(int t) const { return k_tile(t) + std::size_t(rows) * stride; }

  // Stages keys first .. first + count - 1 (count <= rows) as tile t.
  template <class Member>
  KOKKOS_INLINE_FUNCTION void stage(const Member& team, int t, const PagedKvAccessor<Storage>& k,
                                    const PagedKvAccessor<Storage>& v, const CacheRowsAt& at, int first,
                                    int count) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (aligned && head_size % kLaneElements == 0) {
      constexpr std::size_t kChunkBytes = sizeof(LaneChunk<Storage>);
      const int chunks = head_size / kLaneElements;
      int piece_bits = 0;
      while ((4 << piece_bits) < chunks) ++piece_bits;
      const int pieces = 1 << piece_bits;
      for (int item = int(threadIdx.x); item < rows * pieces; item += 32) {
        const int j = item >> piece_bits, piece = item & (pieces - 1);
        const bool valid = j < count;
        int slot = 0;
        const std::int32_t block = valid ? at.locate(first + j, slot) : 0;
        const Storage* k_row = valid ? k.row(block, slot, at.kv_head) : k.data;
        const Storage* v_row = valid ? v.row(block, slot, at.kv_head) : v.data;
        Storage* k_to = k_tile(t) + std::size_t(j) * stride;
        Storage* v_to = v_tile(t) + std::size_t(j) * stride;
KATTN_UNROLL
        for (int c = 0; c < 4; ++c) {
          const int e = (piece + c * pieces) * kLaneElements;
          if (e >= head_size) break;
          stage_detail::copy_chunk_async<kChunkBytes>(k_to + e, k_row + (valid ? e : 0), valid);
          stage_detail::copy_chunk_async<kChunkBytes>(v_to + e, v_row + (valid ? e : 0), valid);
        }
      }
      return team_stage_commit();
    }
#endif
    team_stage_rows(team, k, at, first, count, rows, head_size, stride, aligned, k_tile(t));
    team_stage_rows(team, v, at, first, count, rows, head_size, stride, aligned, v_tile(t));
    team_stage_commit();
  }

  // An empty stage where the ring runs past the last tile (keeps the cp.async group counts uniform).
  KOKKOS_INLINE_FUNCTION void skip() const { team_stage_commit(); }

  KOKKOS_INLINE_FUNCTION void wait(int) const { team_stage_wait(stages - 2); }
};

}  // namespace kattn
