// The work item of the Q-block kernels (paper 4.4–4.6): item -> (Q block, KV head, segment), the
// rows of the Q block, and the tiles of keys its segment covers. Shared by the portable Q-block
// kernel and its tensor-core form, so both split the work identically.
#pragma once

#include "kattn/detail/kernels/kernel_args.hpp"
#include "kattn/detail/kernels/qblock_slots.hpp"
#include "kattn/detail/tiles/qblock_tile_ops.hpp"

namespace kattn {

struct QBlockItem {
  QBlockRows rows;
  int segment = 0;
  int first_key = 0;   // keys any row sees start here
  int end_key = 0;     // and end here
  int tile_begin = 0;  // the segment's tiles of tile_size keys, [tile_begin, tile_end): tile t holds
  int tile_end = 0;    // the keys from first_key + t · tile_size on
  MaskTiles tiles;     // all the block's tiles, [0, count), and those no row masks
};

// q_blocks: the launch's Q blocks (qblock_slots.hpp); rules: args.rules, or as the kernel compiled
// them. The item's indices by multiply-highs (FastDivisor): as four integer divisions they took
// about 90 of a short item's 1,440 instructions a warp. A spare slot's item has no rows and no tiles.
template <class Args, class Rules>
KOKKOS_INLINE_FUNCTION QBlockItem qblock_item(const Args& args, const Rules& rules, const QBlockSlots& q_blocks,
                                              int item, int tile_size, const FastDivisor& num_segments) {
  QBlockItem it;
  const int rest = num_segments.divmod(item, it.segment);
  int kv_head = 0;
  const int slot = args.num_kv_heads.divmod(rest, kv_head);
  it.rows = q_blocks.rows(args, slot);
  QBlockRows& rows = it.rows;
  rows.kv_head = kv_head;
  if (rows.valid_tokens == 0) return it;

  // Keys any row sees: from the first row's window start to the last row's end; segments split
  // the tiles in between. The tiles start at the window start, not at a multiple of tile_size:
  // keys before it are in no row's window, and their cache slots may hold anything (NaN too,
  // which a weight of 0 does not cancel), so no tile reads them.
  const KeySpan span =
      rules.key_span(rows.first_position, rows.first_position + rows.valid_tokens - 1, rows.seq_len, rows.seq);
  it.first_key = span.any_begin;
  it.end_key = span.any_end;
  it.tiles = span.tiles(it.first_key, tile_size);
  const int num_tiles = it.tiles.count();
  // A segment past the block's last tile is empty, [num_tiles, num_tiles): teams that count the
  // tiles of their items (ring and barrier stages) add 0 for it, never a negative count.
  const int tiles_per_segment = num_segments.div(num_tiles + num_segments.divisor - 1);
  it.tile_begin = it.segment * tiles_per_segment < num_tiles ? it.segment * tiles_per_segment : num_tiles;
  it.tile_end = it.tile_begin + tiles_per_segment < num_tiles ? it.tile_begin + tiles_per_segment : num_tiles;
  return it;
}

// Work items of a Q-block launch: slots × KV heads × segments.
template <class Args>
KOKKOS_INLINE_FUNCTION int qblock_num_items(const Args& args, const QBlockSlots& q_blocks, int num_segments) {
  return q_blocks.count(args.cu_seqlens_q) * args.num_kv_heads.divisor * num_segments;
}

}  // namespace kattn
