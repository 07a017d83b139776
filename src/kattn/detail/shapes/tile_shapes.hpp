// The shapes of the tile primitives that the planner sizes launches by: rows a warp holds, keys a
// tile takes, lanes a row, padding. The tile primitives (detail/tiles/) are written for these
// values; the planner (tuning/) reads them here without including a tile or a kernel.
#pragma once

#include <Kokkos_Core.hpp>

namespace kattn {

// A vector lane's slice of a row (tiles/lane_chunk.hpp): 16 bytes of 16-bit storage.
constexpr int kLaneElements = 8;

// Lanes that cover a row of head_size elements.
KOKKOS_INLINE_FUNCTION int lanes_for(int head_size) { return (head_size + kLaneElements - 1) / kLaneElements; }

// Register-row Q blocks (tiles/warp_fragments.hpp).
constexpr int kFragmentRows = 16;      // query rows per warp
constexpr int kFragmentMaxWarps = 4;   // a team's rows (16 a warp) fit a tile buffer as Q loads through it
constexpr int kFragmentTileKeys = 64;  // keys per K/V tile: a K and a V tile of head 128 take 34.8 KB of scratch
constexpr int kFragmentMaxHead = 128;  // head sizes up to this, in multiples of 16
constexpr int kFragmentTilePad = 8;    // elements after each scratch row: ldmatrix rows hit distinct banks

KOKKOS_INLINE_FUNCTION constexpr int fragment_tile_stride(int head_size) { return head_size + kFragmentTilePad; }

// Keys on the mma's long side, the split-KV decode's warps (tiles/warp_key_rows.hpp).
constexpr int kKeyRowQueries = 8;    // query rows per warp: the mma's 8 columns
constexpr int kKeyRowTileKeys = 16;  // keys per K/V tile: one 16-key mma tile, so that several are in flight

// Hopper's warpgroup products (tiles/warpgroup_mma.hpp).
constexpr int kWarpgroupWarps = 4;         // warps of a warpgroup: the team of the warpgroup products
constexpr int kWarpgroupRows = 64;         // a warpgroup's Q rows: its products' M
constexpr int kWarpgroupHead = 128;        // the head size of the products (the P · V width)
constexpr int kWarpgroupTileAlign = 1024;  // the 128-byte swizzle repeats every 8 rows

// The box rows (cache slots a bulk copy takes: tiles/team_bulk_copy.hpp) for tiles of `tile_keys`
// keys from a cache of `block_size` slots a block: boxes tile whole 1024-byte swizzle atoms
// (multiples of 8 rows) and never straddle blocks. 0 where none does.
KOKKOS_INLINE_FUNCTION constexpr int cache_tile_box_rows(int block_size, int tile_keys) {
  if (block_size <= 0 || tile_keys <= 0) return 0;
  if (block_size >= 8 && block_size <= tile_keys && tile_keys % block_size == 0) return block_size;
  return block_size % tile_keys == 0 ? tile_keys : 0;
}

}  // namespace kattn
