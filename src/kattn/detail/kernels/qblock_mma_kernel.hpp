// The Q-block kernels on tensor cores with register-resident rows (paper 4.4–4.7, laid out like
// FlashAttention-2): the work items of QBlockKernel (qblock_item), but a team of W ≤ 4 warps takes
// a Q block of 16·W rows and each warp keeps its 16 rows' Q, output and softmax state in registers
// (warp_fragments.hpp). The team shares one K tile and one V tile of kFragmentTileKeys keys in
// scratch (34.8 KB at head 128, under Kokkos 4.6's 40,936-byte cap), pipelined as
// FlashAttention-2 does: V(t) is copied while the warps compute Q·K(t)^T, K(t + 1) while they take
// the softmax and P·V(t). Several such teams share an SM (2 at their ~240 registers), and they hide
// each other's copies and barriers. The planner picks it (LaunchPlan::register_rows) for fp16/bf16
// on CUDA with head sizes up to kFragmentMaxHead in multiples of 16; everything else runs
// QBlockKernel. With Warpgroup (LaunchPlan::warpgroup_products: sm_90a, head 128, 4 warps) the
// team is one warpgroup (two below) and its products are wgmma's (warpgroup_mma.hpp), reading K and V tiles
// that the copies lay out in the 128-byte swizzle; the softmax stays the warps' own. Where the team
// scratch takes them (DeepTiles: 103 KB at head 128, past Kokkos 4.6's cap by
// core/team_scratch_cap.hpp), Q stays in scratch for the products to read, K(t + 1) and V(t + 1)
// are copied a whole step ahead (one barrier a tile), and the products run asynchronously beside
// the softmax (FlashAttention-3's overlap within a warpgroup). With two warpgroups (Warpgroups 2:
// FlashAttention-3's two consumer warpgroups, a team of 8 warps an SM, 210 KB of scratch) the team
// takes a Q block of 128 rows, each warpgroup its 64, and steps over tiles of 128 keys that both
// read: twice the products and softmax a step for the same barrier, copies and fixed latencies.
// With a producer warpgroup beside them (Producer: 12 warps, FlashAttention-3's warp
// specialization) the copies leave the rows' warps: the producer fills rings of K and V tiles by
// the tensor memory accelerator, and a ring of two Q buffers with the next items' Q rows and work
// items, so that an item starts without a read of its own; the rows wait on the buffer they need,
// with no team barrier. Most deep kernels take an item's last tile, a causal block's diagonal,
// first (kLastTileFirst).
#pragma once

#include "kattn/detail/kernels/qblock_item.hpp"
#include "kattn/detail/kernels/segment_reduce.hpp"
#include "kattn/detail/shapes/scratch_layout.hpp"
#include "kattn/detail/tiles/team_arrival.hpp"
#include "kattn/detail/tiles/team_bulk_copy.hpp"
#include "kattn/detail/tiles/team_stage.hpp"
#include "kattn/detail/tiles/team_vote.hpp"
#include "kattn/detail/tiles/warp_fragments.hpp"
#include "kattn/detail/tiles/warpgroup_mma.hpp"
#include "kattn/detail/tiles/warpgroup_pipeline.hpp"

namespace kattn {

// HeadSize: the head size fixed at compile time (its loops and offsets then fold away), or 0 for
// any head size the kernel takes, read from args. Warpgroup: the warpgroup products (HeadSize
// kWarpgroupHead, 4 warps a warpgroup, tile_copy). DeepTiles: two K and three V tiles and the Q rows apart
// (register_rows_scratch_bytes' deep), a type of its own so that the other kernels stay as they are.
// Warpgroups: the team's warpgroups of rows (deep only), each 64 rows; tiles take 64 keys a
// warpgroup. Producer: a warpgroup more (the team's first) that only copies the K and V tiles and
// the items' Q rows into rings (warpgroup_pipeline.hpp), FlashAttention-3's warp specialization:
// the two of rows wait on the buffer they need, not on a team barrier a step, and take the
// producer's registers.
// Features: the score features compiled in (score_rules.hpp; at least args.rules' used ones).
template <class Space, class Args, bool Segmented, int HeadSize = 0, bool Warpgroup = false, bool DeepTiles = false,
          int Warpgroups = 1, class Features = AllScores, bool BulkTiles = false, bool Producer = false>
struct QBlockMmaKernel {
  static_assert(!Warpgroup || HeadSize == kWarpgroupHead, "the warpgroup products take head 128");
  static_assert(!DeepTiles || Warpgroup, "the double-buffered tiles are the warpgroup kernel's");
  static_assert(Warpgroups == 1 || (DeepTiles && Warpgroups == 2), "two warpgroups step over deep tiles");
  static_assert(!Producer || Warpgroups == 2, "the producer feeds two warpgroups of rows");
  // The producer's registers go to the rows' warpgroups: 24 + 2 · 240 ≤ 3 · 168 a thread, the
  // register file of a 384-thread team (setmaxnreg needs the count at entry: launch bounds).
  static constexpr int kProducerRegisters = 24, kRowsRegisters = 240;
  static constexpr int kTeamThreads = kWarpgroupWarps * 32 * (Warpgroups + (Producer ? 1 : 0));
  using Policy = std::conditional_t<Producer, Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<kTeamThreads, 1>>,
                                    Kokkos::TeamPolicy<Space>>;
  using Member = typename Policy::member_type;
  using Rings = TileRings<kProducerKSlots, kProducerVSlots, kProducerQSlots>;
  static_assert(Rings::kBytes == kProducerBarrierBytes, "scratch_layout.hpp sizes the rings' barriers");
  static_assert(sizeof(QBlockItem) <= kProducerItemBytes, "scratch_layout.hpp sizes a Q slot's work item");
  // A Q buffer is full once each lane of the producer's two rows warps (a warpgroup of rows each)
  // has its copies in (zero rows too: cp.async of no source bytes; an arrival as they land) and has
  // arrived once more (lane 0 of the first after its store of the work item), and free
  // once every thread of the rows has arrived after its last access (its output rows): each thread
  // releases its own accesses, no warp barrier stands in for them (racecheck follows them so).
  static constexpr int kQRowArrivals = Warpgroups * 2 * 32, kQReadArrivals = Warpgroups * kWarpgroupWarps * 32;
  using Cache = typename Args::cache_type;
  using Out = typename Args::out_type;
  static constexpr int kMaxHead = HeadSize > 0 ? HeadSize : kFragmentMaxHead;
  static constexpr int kTileKeys = kFragmentTileKeys * Warpgroups;
  using TileCopy = TeamTileCopy<Cache, kTileKeys, (HeadSize > 0 ? HeadSize : 64)>;
  using Scores = WarpScoresOf<kTileKeys>;

  Args args;
  QBlockSlots q_blocks;
  SegmentPartials<typename Space::memory_space> partials;  // Segmented only
  FastDivisor num_segments;  // the tiles of a Q block split over this many items (1: none)
  bool static_grid;
  FastDivisor block_size;      // the cache's
  bool aligned;                // cache and query rows allow 16-byte loads (lane_chunks_aligned)
  bool tile_copy;              // TileCopy applies (HeadSize > 0 only)
  bool rows_out;               // 16-bit output whose rows allow 16-byte stores: written through scratch
  ScoreRules<Features> rules;  // args.rules as compiled in: a kernel parameter, not a copy in registers

  const CacheTileMaps* tile_maps = nullptr;  // kBulkTiles: the cache's maps for the bulk copies; null: rows
  int box_rows = 0;                          // with tile_maps: cache_tile_box_rows of the cache
  const RowTileMaps* row_maps = nullptr;     // kBulkRows: the query and output rows' maps; null: rows by lanes
  // Whole tiles by the tensor memory accelerator: the two-warpgroup kernel's, where the launch
  // gives it maps (blocks of at least kBulkCopyMinBoxRows slots: team_bulk_copy.hpp).
  static constexpr bool kBulkTiles = BulkTiles;
  static_assert(!BulkTiles || (DeepTiles && Warpgroups == 2), "the bulk copies are the two-warpgroup kernel's");
  using BulkCopy = TeamBulkTileCopy<kTileKeys>;
  // A team of one warpgroup on double-buffered tiles, unsegmented: its Q block's rows in and its
  // output rows out by the tensor memory accelerator where the launch gives it their maps
  // (RowTileMaps, team_bulk_copy.hpp; null: by lanes), the Q rows on a barrier of their own.
  static constexpr bool kBulkRows = Warpgroup && DeepTiles && Warpgroups == 1 && !Producer && !Segmented;
  // Past the buffers: TileBarriers (two warpgroups) or the Q rows' barrier (one)
  static constexpr std::size_t kBarrierBytes = kBulkTiles ? 16 : kBulkRows ? 8 : 0;
  // A static grid's teams of one warpgroup on deep tiles claim their items (operator()); past the
  // barriers, the two slots through which a team hands its claims round. The other kernels keep the
  // stride (teams of two warpgroups had run 6-23 % slower claiming, on more registers).
  static constexpr bool kClaimsItems = Warpgroup && DeepTiles && Warpgroups == 1;
  static constexpr std::size_t kClaimBytes = kClaimsItems ? 8 : 0;
  // Teams of one warpgroup and those with the producer take an item's last tile (a causal block's
  // diagonal, where the mask applies) first, in the item's first-tile code that has the mask anyway:
  // the steps after it are then unmasked ones where that diagonal lies in one tile and no window
  // starts inside the item, and a masked step's code is off the hot path (2026-12-01: b16 512
  // 0.989x at teams of 4 and 0.942x at teams of 12; two warpgroups without the producer ran
  // 1.06-1.07x slower so, and keep the order of the keys).
  static constexpr bool kLastTileFirst = DeepTiles && (Warpgroups == 1 || Producer);
  // The tile of keys an item takes at its turn t of [tile_begin, tile_end): its last, then the others
  // in order (kLastTileFirst), else tile t. Buffers, stages and rings go by turns, keys and masks by tiles.
  KOKKOS_INLINE_FUNCTION static int keys_at(const QBlockItem& it, int t) {
    if constexpr (kLastTileFirst) return t == it.tile_begin ? it.tile_end - 1 : t - 1;
    return t;
  }

  KOKKOS_INLINE_FUNCTION static std::size_t tile_bytes(int head_size) {
    return std::size_t(kTileKeys) * fragment_tile_stride(head_size) * sizeof(Cache);
  }
  static constexpr std::size_t kTileAlign = Warpgroup ? kWarpgroupTileAlign : 16;
  static std::size_t scratch_bytes(int head_size) {
    if constexpr (Producer) return producer_rows_scratch_bytes(head_size, sizeof(Cache), kTileAlign);
    return register_rows_scratch_bytes(head_size, sizeof(Cache), kTileAlign, DeepTiles, Warpgroups) + kBarrierBytes +
           kClaimBytes;
  }

  // Items heaviest first where the grid follows them (a causal Q block's keys grow with its index):
  // the last teams to start are the short ones, so the SMs finish together.
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if constexpr (Producer) return run_roles(team);
    constexpr int buffers = DeepTiles ? kRegisterRowDeepBuffers : kRegisterRowBuffers;
    const std::size_t claims_at = buffers * tile_bytes(head_size()) + kBarrierBytes;
    auto* tiles = static_cast<Cache*>(team.team_scratch(0).get_shmem_aligned(claims_at + kClaimBytes, kTileAlign));
    const int items = qblock_num_items(args, q_blocks, num_segments.divisor);
    // kClaimsItems: a static grid's teams claim their items from the launch's counter where it has
    // one, heaviest first, each team a stream of items while any is left, so that the teams that
    // finish first take the short ones (by stride, team 0 of 264 had taken the 16 heaviest Q blocks
    // of b16 512; a grid of 2112 had started a team, its barrier and its maps every item or two).
    // Thread 0 claims the team's next item as an item starts, so that the claim's latency passes
    // under it, and hands it round at its end through slot n + 1 mod 2.
    const bool claims_items = kClaimsItems && static_grid && q_blocks.claims != nullptr;
    const bool lead = team.team_rank() == 0 && warp_lane() == 0;
    const auto claim = [&] { return lead ? int(Kokkos::atomic_fetch_add(&q_blocks.claims[0], 1)) : 0; };
    int* const claims = reinterpret_cast<int*>(reinterpret_cast<char*>(tiles) + claims_at);
    const int first_claim = claims_items ? claim() : 0;
    // Whether the team may take an item (a claim is the lead's alone: every claiming team gets ready).
    const bool starts = claims_items || team.league_rank() < items;
    int stages = 0;   // kBulkTiles: the tiles this team has staged (tile_barriers' stages)
    int q_loads = 0;  // kBulkRows: the Q blocks this team has loaded (phases of q_barrier)
    if constexpr (kBulkTiles) {
      if (tile_maps && starts) {
        tile_barriers(tiles).init(tile_maps, team.team_rank(), warp_lane());
        team.team_barrier();
      }
    }
    if constexpr (kBulkRows) {
      if (row_maps && starts) {
        if (lead) {
          pipeline_init(q_barrier(tiles), 1);
          pipeline_init_fence();
          acquire_tile_maps(row_maps);
        }
        team.team_barrier();
      }
    }
    // The team's items: one (a grid for the most Q blocks the plan allows: the teams past them
    // return), claimed ones, or every league_size-th. One call of process(), so that its body is
    // inlined once (three copies had outgrown the inliner: a call, and the products serialized).
    if (claims_items) {
      if (lead) claims[0] = first_claim;
      team.team_barrier();
    }
    // (item stays the team's one value: from the claims' slot, never from the lead's own claim,
    // whose value in a select had put the items' tile counters and descriptors in per-thread
    // registers, 264 instructions a step against 207.)
    for (int n = 0, item = claims_items ? claims[0] : team.league_rank(); item < items; ++n) {
      const int claimed = claims_items ? claim() : 0;
      process(team, tiles, items - 1 - item, stages, q_loads);
      if (!static_grid) break;
      if (claims_items && lead) claims[(n + 1) & 1] = claimed;
      team.team_barrier();  // every warp is done with the tiles (the next item's copies reuse them), the claim is in
      item = claims_items ? claims[(n + 1) & 1] : item + team.league_size();
    }
    // The last team done (every claim is in) puts the counters back to zero for the next launch.
    if (claims_items && lead && arrive_last(&q_blocks.claims[1], team.league_size()))
      Kokkos::atomic_exchange(&q_blocks.claims[0], 0);
    // Before it leaves, the copy engine has read the last output rows out of its scratch (their
    // writes land by the kernel's end: it need not hold the SM's scratch for them).
    if (kBulkRows && row_maps && lead) bulk_store_wait_read();
  }

  // kBulkRows: the Q rows' barrier, past the buffers (where a kernel of two warpgroups keeps its
  // stages' barriers).
  KOKKOS_INLINE_FUNCTION static unsigned q_barrier(Cache* tiles) { return tile_barriers(tiles).at; }

  // kBulkTiles: the stages' barriers, past the buffers.
  KOKKOS_INLINE_FUNCTION static TileBarriers tile_barriers(Cache* tiles) {
#if defined(__CUDA_ARCH__)
    constexpr int tile_elements = kTileKeys * fragment_tile_stride(kMaxHead);
    return {unsigned(__cvta_generic_to_shared(tiles + kRegisterRowDeepBuffers * tile_elements))};
#else
    (void)tiles;
    return {0};
#endif
  }

  KOKKOS_INLINE_FUNCTION int head_size() const { return HeadSize > 0 ? HeadSize : args.head_size; }

  // The warp-specialized team: its producer warpgroup (warps 0-3) and its two of rows (4-11) each
  // run the team's items in the same order and count the tiles and items of the rings alike.
  KOKKOS_INLINE_FUNCTION void run_roles(const Member& team) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int buffers = kProducerKSlots + kProducerVSlots + kProducerQSlots;
    auto* tiles = static_cast<Cache*>(team.team_scratch(0).get_shmem_aligned(
        buffers * tile_bytes(kWarpgroupHead) + Rings::kBytes + kProducerQSlots * kProducerItemBytes, kTileAlign));
    Cache* const past_buffers = tiles + buffers * kTileKeys * fragment_tile_stride(kMaxHead);
    const Rings rings{unsigned(__cvta_generic_to_shared(past_buffers))};
    // The Q slots' work items, past the barriers: the rows read theirs from the producer.
    QBlockItem* const handed = reinterpret_cast<QBlockItem*>(reinterpret_cast<char*>(past_buffers) + Rings::kBytes);
    if (team.team_rank() == 0 && warp_lane() == 0)
      rings.init(kTileKeys / box_rows, Warpgroups * kWarpgroupWarps, kQRowArrivals, kQReadArrivals);
    if (team.team_rank() == 0 && warp_lane() == 0) acquire_tile_maps(tile_maps);
    team.team_barrier();  // the last one: the roles run their own loops
    const int items = qblock_num_items(args, q_blocks, num_segments.divisor);
    const int item_step = static_grid ? team.league_size() : items;  // a grid for the most Q blocks: one each
    int tiles_before = 0, items_before = 0, stages = 0, q_loads = 0;
    if (team.team_rank() < kWarpgroupWarps) {
      warpgroup_registers<kProducerRegisters, false>();
      if (team.team_rank() < 2)
        for (int item = team.league_rank(); item < items; item += item_step)
          tiles_before += produce(team, tiles, rings, items - 1 - item, tiles_before);
      else  // warps 2 and 3: the Q rows of a warpgroup each
        for (int item = team.league_rank(); item < items; item += item_step)
          produce_rows(tiles, rings, handed, items - 1 - item, items_before++, team.team_rank() - 2);
    } else {
      warpgroup_registers<kRowsRegisters, true>();
      WarpgroupTurns{team.team_rank() / kWarpgroupWarps - 1}.start();
      for (int item = team.league_rank(); item < items; item += item_step)
        tiles_before +=
            process(team, tiles, items - 1 - item, stages, q_loads, rings, tiles_before, items_before++, handed);
    }
    warpgroup_role_exit(team.league_size());
#else
    (void)team;
#endif
  }

  // The producer's copies of an item: its warp 0 fills the K ring, its warp 1 the V ring, each
  // at its own pace. A whole tile goes by the
  // tensor memory accelerator, lane b issuing the boxes of the tile's block b and counting their
  // bytes on the tile's `full` barrier (one arrival a box row, kTileKeys / box_rows a tile), its
  // block id read before the wait for the slot; a partial tile by the warp's rows (cp.async), the
  // phase held open for them as they land. Gives the item's tiles.
  KOKKOS_INLINE_FUNCTION int produce(const Member& team, Cache* tiles, const Rings& rings, int item,
                                     int tiles_before) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const QBlockItem it = qblock_item(args, rules, q_blocks, item, kTileKeys, num_segments);
    const int lane = warp_lane();
    const bool values = team.team_rank() == 1;
    const int tile_elements = kTileKeys * fragment_tile_stride(kMaxHead);
    const std::int32_t* block_row = &args.block_table(it.rows.seq, 0);
    const BulkCopy boxes{tile_maps, box_rows, it.rows.kv_head};
    const int tile_boxes = kTileKeys / box_rows;
    for (int tile = it.tile_begin; tile < it.tile_end; ++tile) {
      const int n = tiles_before + tile - it.tile_begin;
      const int first = it.first_key + keys_at(it, tile) * kTileKeys;
      const int count = it.end_key - first < kTileKeys ? it.end_key - first : kTileKeys;
      const bool whole = count == kTileKeys && first % box_rows == 0;
      int slot = 0, block = 0;
      if (whole && lane < tile_boxes) block = block_row[block_size.divmod(first + lane * box_rows, slot)];
      const unsigned full = values ? rings.v_full_barrier(n) : rings.k_full_barrier(n);
      Cache* const to = tiles + (values ? kProducerKSlots + Rings::v_slot(n) : Rings::k_slot(n)) * tile_elements;
      const unsigned shared = unsigned(__cvta_generic_to_shared(to));
      if (values)
        rings.wait_v_free(n);
      else
        rings.wait_k_free(n);
      if (whole) {
        if (lane < tile_boxes) boxes.copy_block(shared, values, full, lane, slot, block);
        continue;
      }
      // A partial tile by the warp's rows: each lane holds the phase open for its copies, which
      // the warp does not wait for (it had waited a copy's latency a partial tile, 3 of 4 items
      // of b16 512), then its first tile_boxes lanes arrive.
      const TileCopy rows_of_warp(args.k, args.v, it.rows.kv_head, 0, 1, lane);
      rows_of_warp.copy_swizzled(shared, values, block_row, block_size, first, count);
      pipeline_hold_for_copies(full);
      __syncwarp();
      pipeline_arrive(full, lane < tile_boxes);
    }
    return it.tile_end - it.tile_begin;
#else
    (void)team, (void)tiles, (void)rings, (void)item, (void)tiles_before;
    return 0;
#endif
  }

  // A rows warp of the producer: the Q rows of item n for warpgroup g of rows into Q buffer n (its
  // 64, in the products' layout as warpgroup_stage_rows lays it out) and, for g = 0, the work item
  // beside them (lane 0); each lane arrives once its copies land and once more (lane 0 of warp g = 0
  // after its store of the work item), as kQRowArrivals counts them.
  // Two warps share the rows: one alone, latency-bound on the rows' addresses at the producer's
  // registers, made the rows of b16 512 wait for their Q buffer (Nsight Compute, 2026-11-29).
  KOKKOS_INLINE_FUNCTION void produce_rows(Cache* tiles, const Rings& rings, QBlockItem* handed, int item, int n,
                                           int g) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const QBlockItem it = qblock_item(args, rules, q_blocks, item, kTileKeys, num_segments);
    const QBlockRows& rows = it.rows;
    const int lane = warp_lane(), stride = fragment_tile_stride(kMaxHead);
    const int valid_rows = rows.valid_tokens * rows.queries_per_kv.divisor;
    Cache* const q_rows = tiles + (kProducerKSlots + kProducerVSlots + Rings::q_slot(n)) * kTileKeys * stride;
    rings.wait_q_free(n);
    const int row0 = g * kWarpgroupRows;
    for (int w = 0; w < kWarpgroupWarps; ++w)
      warpgroup_stage_rows<Cache>([&](int r) { return q_row(rows, valid_rows, row0 + r); }, valid_rows - row0,
                                  q_rows + row0 * stride, w, lane);
    pipeline_arrive_on_copies(rings.q_full_barrier(n));
    if (g == 0 && lane == 0) handed[Rings::q_slot(n)] = it;
    pipeline_arrive(rings.q_full_barrier(n), true);
#else
    (void)tiles, (void)rings, (void)handed, (void)item, (void)n, (void)g;
#endif
  }

  // One item; `q_loads` counts the team's Q blocks loaded by the copy engine (kBulkRows); with the
  // producer, `tiles_before` counts the rings' earlier tiles and `items_before` the team's earlier
  // items (Q buffers), and the item comes from the producer (`handed`). Gives its tiles.
  KOKKOS_FORCEINLINE_FUNCTION int process(const Member& team, Cache* tiles, int item, int& stages, int& q_loads,
                                          const Rings& rings = {}, int tiles_before = 0, int items_before = 0,
                                          const QBlockItem* handed = nullptr) const {
    const QBlockItem it = handed_item(rings, item, items_before, handed);
    const QBlockRows& rows = it.rows;
    // A spare slot (qblock_slots.hpp) does nothing; with the producer, its rows wait on and free its
    // Q buffer as for any item.
    if (!Producer && rows.valid_tokens == 0) return 0;
    const int head_size = this->head_size(), stride = fragment_tile_stride(head_size);
    // The warp among the team's warps of rows (past the producer's).
    const int lane = warp_lane(), warp = team.team_rank() - (Producer ? kWarpgroupWarps : 0);
    const int row0 = warp * kFragmentRows;
    const int valid_rows = rows.valid_tokens * rows.queries_per_kv.divisor;
    // Buffers of a tile each: K, V (one each; Q rows through V), or two K, three V and Q (deep:
    // turn t in K buffer (t - tile_begin) mod 2 and V buffer (t - tile_begin) mod 3), or the
    // producer's rings of K, V and Q (each warpgroup's 64 rows at the tiles' stride).
    const int tile_elements = kTileKeys * stride;
    const auto k_buffer = [&](int tile) {
      if constexpr (Producer) return tiles + Rings::k_slot(tiles_before + tile - it.tile_begin) * tile_elements;
      return tiles + (DeepTiles ? (tile - it.tile_begin) & 1 : 0) * tile_elements;
    };
    const auto v_buffer = [&](int tile) {
      if constexpr (Producer)
        return tiles + (kProducerKSlots + Rings::v_slot(tiles_before + tile - it.tile_begin)) * tile_elements;
      return tiles + (DeepTiles ? 2 + (tile - it.tile_begin) % 3 : 1) * tile_elements;
    };
    Cache* const q_rows = tiles + (Producer    ? kProducerKSlots + kProducerVSlots + Rings::q_slot(items_before)
                                   : DeepTiles ? 5
                                               : 1) *
                                      tile_elements;

    const std::int32_t* block_row = &args.block_table(rows.seq, 0);
    const CacheRowsAt at{block_row, 0, block_size, rows.kv_head};
    const TileCopy tile_lanes(args.k, args.v, rows.kv_head, warp, team.team_size(), lane);
    // The keys of tile `tile` the item computes: kTileKeys, or fewer in its last.
    const auto count_of = [&](int tile) {
      const int first = it.first_key + tile * kTileKeys;
      return it.end_key - first < kTileKeys ? it.end_key - first : kTileKeys;
    };
    const auto keys_at = [&](int t) { return QBlockMmaKernel::keys_at(it, t); };
    const auto stage = [&](bool values, int tile, Cache* to) {
      const int first = it.first_key + tile * kTileKeys;
      const int count = count_of(tile);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
      if constexpr (HeadSize > 0) {
        if (tile_copy) {
          const unsigned shared = unsigned(__cvta_generic_to_shared(to));
          if constexpr (Warpgroup)
            tile_lanes.copy_swizzled(shared, values, block_row, block_size, first, count);
          else
            tile_lanes.template copy<fragment_tile_stride(kMaxHead)>(shared, values, block_row, block_size, first,
                                                                     count);
          return team_stage_commit();
        }
      }
#endif
      team_stage_rows(team, values ? args.v : args.k, at, first, count, kTileKeys, head_size, stride, aligned, to);
      team_stage_commit();
    };
    // K and V of turn `tile` into its buffers (deep: tile_copy applies; kBulkTiles: on stage
    // stages + tile - tile_begin, whole tiles by the bulk copies where the kernel has maps, the
    // others, a sequence's last partial one among them, by rows).
    [[maybe_unused]] const TileBarriers barriers = tile_barriers(tiles);
    [[maybe_unused]] const auto stage_of = [&](int tile) { return stages + tile - it.tile_begin; };
    // One warpgroup on deep tiles, where the cache's blocks divide the team's rows: each thread's
    // rows found once an item, and the block ids of turn t + 1 read with the copies of turn t (two
    // warpgroups keep the rows' lookups: the registers of these had cost them 3-6 %).
    constexpr int kTeamWarps = kWarpgroupWarps * Warpgroups;
    [[maybe_unused]] const bool by_block_rows =
        DeepTiles && Warpgroups == 1 && !Producer && TileCopy::template block_rows_apply<kTeamWarps>(block_size);
    [[maybe_unused]] const auto block_rows =
        by_block_rows ? tile_lanes.template block_rows<kTeamWarps>(block_row, block_size, it.first_key)
                      : typename TileCopy::BlockRows{};
    [[maybe_unused]] typename TileCopy::template TileBlocks<kTeamWarps> blocks_ahead{};
    // The blocks of turn t's tile, read a turn ahead of its copies.
    const auto blocks_of = [&](int t) {
      return tile_lanes.template tile_blocks<kTeamWarps>(block_rows, keys_at(t), count_of(keys_at(t)));
    };
    if (by_block_rows && it.tile_begin < it.tile_end) blocks_ahead = blocks_of(it.tile_begin);
    const auto stage_pair = [&](int tile) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
      if constexpr (DeepTiles) {
        const int first = it.first_key + keys_at(tile) * kTileKeys;
        const int count = count_of(keys_at(tile));
        const unsigned k_to = unsigned(__cvta_generic_to_shared(k_buffer(tile)));
        const unsigned v_to = unsigned(__cvta_generic_to_shared(v_buffer(tile)));
        if constexpr (kBulkTiles) {
          if (tile_maps && count == kTileKeys && first % box_rows == 0)
            return BulkCopy{tile_maps, box_rows, rows.kv_head}.copy_pair(
                k_to, v_to, barriers, stage_of(tile), block_row, block_size, first, warp, team.team_size(), lane);
        }
        if (by_block_rows) {
          tile_lanes.template copy_swizzled_pair<kTeamWarps>(k_to, v_to, block_rows, blocks_ahead, count);
          if (tile + 1 < it.tile_end) blocks_ahead = blocks_of(tile + 1);
        } else {
          tile_lanes.template copy_swizzled_pair<kTeamWarps>(k_to, v_to, block_row, block_size, first, count);
        }
        if constexpr (kBulkTiles) {
          if (tile_maps) barriers.arrive(stage_of(tile), warp, lane);
        }
        return team_stage_commit();
      }
#endif
      stage(false, keys_at(tile), k_buffer(tile));
      stage(true, keys_at(tile), v_buffer(tile));
    };
    // A warpgroup's Q rows, in the products' layout (deep). One warpgroup's are the block's first:
    // a constant, so that ptxas keeps their descriptors in uniform registers (from the warp's index
    // it had kept eight in registers of each thread and moved them over every step).
    const int warpgroup_row0 = Warpgroups == 1 ? 0 : warp / kWarpgroupWarps * kWarpgroupRows;
    [[maybe_unused]] Cache* const q_tile = q_rows + warpgroup_row0 * (Producer ? stride : kWarpgroupHead);
    // With the producer: the warpgroup's own barrier.
    [[maybe_unused]] const auto warpgroup_sync = [&] { warpgroup_barrier(1 + warp / kWarpgroupWarps); };
    // The block's Q rows (deep: apart, in the products' layout; else through the V buffer) beside
    // the first K tile's copies (and the first V tile's, deep); with the producer its rows warps
    // have staged them (handed_item).
    [[maybe_unused]] const auto q_row_at = [&](int r) { return q_row(rows, valid_rows, r); };
    if constexpr (!DeepTiles)
      team_stage_rows_at(team, q_row_at, valid_rows, kFragmentRows * team.team_size(), head_size, stride, aligned,
                         q_rows);
    // kBulkRows with maps: the Q block by the copy engine (one thread, once the engine has read the
    // last item's output rows out of the buffer), complete at phase q_phase of q_barrier.
    [[maybe_unused]] const bool bulk_rows = kBulkRows && row_maps != nullptr;
    [[maybe_unused]] const unsigned q_phase = unsigned(q_loads) & 1u;
    if constexpr (kBulkRows) {
      if (bulk_rows) {
#if defined(__CUDA_ARCH__)
        if (team.team_rank() == 0 && lane == 0) {
          bulk_store_wait_read();
          bulk_copy_q_block(row_maps, unsigned(__cvta_generic_to_shared(q_tile)), q_barrier(tiles), rows.head(0),
                            rows.token(0));
        }
#endif
        ++q_loads;
      }
    }
    if constexpr (DeepTiles && !Producer) {
      if (!bulk_rows)
        warpgroup_stage_rows<Cache>([&](int r) { return q_row_at(warpgroup_row0 + r); }, valid_rows - warpgroup_row0,
                                    q_tile, warp % kWarpgroupWarps, lane);
    }
    // This thread's copies are in (and, for the warpgroup products, visible to the tensor cores).
    const auto copies_done = [] {
      team_stage_wait(0);
      if constexpr (Warpgroup) warpgroup_tile_ready();
    };
    if (!Producer && it.tile_begin < it.tile_end) {
      if constexpr (DeepTiles)
        stage_pair(it.tile_begin);
      else
        stage(false, it.tile_begin, k_buffer(it.tile_begin));
    }
    if constexpr (!Producer) team_stage_commit();
    // Deep: the item's first P·V sets the accumulator (an item of no tiles zeroes it below).
    using Fragments = WarpRowFragments<kMaxHead>;
    Fragments f = [] {
      if constexpr (DeepTiles)
        return Fragments(typename Fragments::OutputSetByFirstProduct{});
      else
        return Fragments();
    }();
    if constexpr (!DeepTiles) {
      copies_done();
      team.team_barrier();
      warp_load_q<Cache>(f, q_rows + row0 * stride, stride, head_size);
    }

    // This lane's two rows start from their sinks (a sink's 1 counted by one lane of four), their
    // maxima in the fragments' log2 units.
    KATTN_UNROLL
    for (int h = 0; h < 2; ++h) {
      f.state[h] = Fragments::in_log2_units(
          Segmented ? SoftmaxState{} : rules.initial_state(rows.head(row0 + fragment_row(lane, 2 * h))));
      if (lane & 3) f.state[h].sum = 0.0f;
    }
    // The tiles of the warp's rows, from the mask: those none of them sees are skipped (causal
    // diagonals), those all of them see whole need no mask; and whether a logit is only the scaled
    // dot product.
    const int last_row = valid_rows - 1 < row0 + kFragmentRows - 1 ? valid_rows - 1 : row0 + kFragmentRows - 1;
    const KeySpan warp_keys = row0 <= last_row
                                  ? rules.key_span(rows.position(row0), rows.position(last_row), rows.seq_len, rows.seq)
                                  : KeySpan{};
    const MaskTiles warp_tiles = warp_keys.tiles(it.first_key, kTileKeys);
    const bool plain_logits = rules.plain_logits();
    // The warpgroup computes every tile of the item together (some row of the block sees a key of
    // each); a warp's rows that see none of it get weights 0 from the mask.
    const auto computes = [&](int tile) { return Warpgroup || warp_tiles.touches(tile); };
    // Scores stay dot products where the logit is the scaled one (the scale then folds into the
    // softmax's FFMA); a tile past the keys every row sees masks them by position alone. The mask
    // is a select a score; the logits (their code inlined for each of a lane's 32 scores) run on a
    // path of their own before it, so that the plain path, which the diagonal tile of every item
    // takes, stays short (with the logits between its branches it had filled the instruction
    // cache: misses were a fifth of the stall samples of single-tile items). Gives the scale of the
    // scores that come out.
    const auto mask = [&](Scores& s, int tile) {
      if (plain_logits && warp_tiles.unmasked(tile)) return rules.scale;
      const int first = it.first_key + tile * kTileKeys;
      int position[2], key_begin[2], key_end[2];  // the lane's row h sees keys [key_begin[h], key_end[h])
      KATTN_UNROLL
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + fragment_row(lane, 2 * h);
        position[h] = rows.position(row);
        key_begin[h] = rules.first_key(position[h]);
        key_end[h] = rows.valid(row) ? rules.end_key(position[h], rows.seq_len, rows.seq) : key_begin[h];
      }
      const auto key_of = [&](int j, int i) { return first + 8 * j + fragment_column(lane, i); };
      // Keys are never negative: without a window a row sees every key below its end.
      const auto sees = [&](int h, int key) { return (!Features::window || key >= key_begin[h]) && key < key_end[h]; };
      if (!plain_logits) {
        KATTN_UNROLL
        for (int h = 0; h < 2; ++h) {
          const int head = rows.head(row0 + fragment_row(lane, 2 * h));
          KATTN_UNROLL
          for (int j = 0; j < kTileKeys / 8; ++j) {
            KATTN_UNROLL
            for (int i = 2 * h; i < 2 * h + 2; ++i)
              if (sees(h, key_of(j, i)))
                s[j][i] = rules.logit(s[j][i], head, position[h], key_of(j, i), rows.context_len);
          }
        }
      }
      // Score (j, i) is key key_of(0, 0) + 8 j + (i & 1): the rows' bounds moved by the lane's first key,
      // each score is one compare with a constant (its key's own sum had cost a masked step 17 adds).
      int begin_at[2], end_at[2];
      KATTN_UNROLL
      for (int h = 0; h < 2; ++h) begin_at[h] = key_begin[h] - key_of(0, 0), end_at[h] = key_end[h] - key_of(0, 0);
      KATTN_UNROLL
      for (int j = 0; j < kTileKeys / 8; ++j) {
        KATTN_UNROLL
        for (int i = 0; i < 4; ++i) {  // scores i of the lane's row i / 2
          const int column = 8 * j + (i & 1);
          if ((Features::window && column < begin_at[i / 2]) || column >= end_at[i / 2]) s[j][i] = -compat::infinity();
        }
      }
      return plain_logits ? rules.scale : 1.0f;
    };

    if constexpr (DeepTiles) {
      // FlashAttention-3's overlap within the warpgroup: tile t's Q·K(t)ᵀ and tile t - 1's P·V go
      // out together, the softmax of tile t runs while P·V(t - 1) is still on the tensor cores, and
      // the accumulator is rescaled after it lands. K(t + 1) and V(t + 1) are copied a step ahead,
      // into buffers no product in flight reads (V(t - 1) is read until step t's end: three V
      // buffers). Every tile of the item is computed (a tile none of the rows sees masks to weights
      // 0), so that issues and waits sit outside branches.
      // With the producer a step waits for K(tile) and, before P·V(tile - 1), V(tile - 1) in their
      // rings, and frees each once the warp's products that read it completed. Here `tile` is the
      // item's turn: its keys are keys_at's (the last tile first).
      // In teams of one warpgroup without the logits' hooks, the steps of tiles every row sees whole
      // take the weights at the rows' kept maxima, with no maxima of the tile
      // (warp_softmax_weights_at_kept_max: b16 512 -5.6 % instructions; two warpgroups, at 255
      // registers already, had their products serialized, C7512). A warp where that did not hold
      // for turn t (`missed`: a row's max still -inf after the item's first tile, or a score more
      // than 127 above it in log2) says so in the next barrier, a vote (team_barrier_any: the next
      // step's, or one after the item's last); there the warpgroup takes Q·K(t)ᵀ again, K(t) still
      // in its buffer until stage_pair refills it after that barrier, and the warps that missed take
      // turn t's full step.
      constexpr bool kKeptMax = Warpgroups == 1 && !Producer && !Features::logits;
      bool missed = false;     // this warp's last step missed
      bool kept_last = false;  // the team's last step took the kept maxima
      WarpgroupWeightsOf<kTileKeys> p;
      float alpha[2];
      Scores s;
      // The accumulator's rescale by tile t - 1's softmax: a team of one warpgroup takes it under
      // Q·K(t)ᵀ, between the two issues, as FlashAttention-3 places it (0.97-0.99x in the A/B of
      // 2026-11-28), a team of two at the step's end (under Q·Kᵀ: b1 8192 1.02x slower).
      constexpr bool kRescaleUnderScores = Warpgroups == 1;
      const auto rescale = [&](bool under_scores) {
        // Before the item's first P·V the accumulator is unset: what this makes of it, that P·V replaces.
        if (under_scores == kRescaleUnderScores) warp_rescale_output(f, alpha);
      };
      // Turn t's scores again, after a vote that some warp missed, and its full step in those warps
      // (with nothing in flight: P·V(t - 1) has landed and its weights are in p).
      const auto retake = [&](int t) {
        warpgroup_scores_issue<Cache>(q_tile, k_buffer(t), s);
        warpgroup_wait<0>(s);
        if (missed) {
          warp_softmax_weights(f, s, rules.scale, alpha);
          rescale(false);
          warpgroup_weights<Cache>(s, p);
          missed = false;
        }
      };
      const auto next_tile = [&](int tile, auto votes) {
        if constexpr (Producer) {
          rings.wait_k_full(tiles_before + tile - it.tile_begin);
          warpgroup_tile_ready();
        } else {
          copies_done();
          if constexpr (kBulkTiles) {
            if (tile_maps) barriers.wait(stage_of(tile));
          }
          // K(tile), V(tile) in; every product of step tile - 1 complete
          if constexpr (decltype(votes)::value) {
            if (team_barrier_any(team, missed)) {
              retake(tile - 1);
              team.team_barrier();  // every warp's Q·K(tile - 1)ᵀ has read its buffer
            }
          } else {
            team.team_barrier();
          }
          if (tile + 1 < it.tile_end) stage_pair(tile + 1);
        }
      };
      const auto values_in = [&](int tile) {
        if constexpr (Producer) {
          rings.wait_v_full(tiles_before + tile - it.tile_begin);
          warpgroup_tile_ready();
        }
      };
      const auto keys_read = [&](int tile) {
        if constexpr (Producer) rings.k_read(tiles_before + tile - it.tile_begin, lane == 0);
      };
      const auto values_read = [&](int tile) {
        if constexpr (Producer) rings.v_read(tiles_before + tile - it.tile_begin, lane == 0);
      };
      // With the producer the two warpgroups issue their products in turns (WarpgroupTurns).
      [[maybe_unused]] const WarpgroupTurns turns{warp / kWarpgroupWarps};
      const auto turn = [&] {
        if constexpr (Producer) turns.wait();
      };
      const auto pass = [&] {
        if constexpr (Producer) turns.pass();
      };
      if (it.tile_begin < it.tile_end) {
        // A step's end — P·V(t - 1) landed, tile t's weights made — runs at the top of the next
        // step's loop trip: a wait has no operands, and ptxas hoists it as far as it can within a
        // trip, which had put the wait for P·V(t - 1) ahead of the softmax's exponentials (Nsight
        // Compute's SASS of 2026-11-28): the softmax then ran after the products, not beside them.
        // The trip's end pins the wait behind them.
        // `landed`: the turn whose P·V lands (none before the item's first).
        const auto land = [&](int landed) {
          warpgroup_wait<0>(f.o);
          if (landed >= it.tile_begin) values_read(landed);
          rescale(false);
          warpgroup_weights<Cache>(s, p);
        };
        next_tile(it.tile_begin, std::false_type{});
        if (bulk_rows) pipeline_wait(q_barrier(tiles), q_phase);
        turn();
        warpgroup_scores_issue<Cache>(q_tile, k_buffer(it.tile_begin), s);
        pass();
        warpgroup_wait<0>(s);
        keys_read(it.tile_begin);
        warp_softmax_weights(f, s, mask(s, keys_at(it.tile_begin)), alpha);
        const auto step = [&](int tile, auto masked) {
          land(tile - 2);
          next_tile(tile, std::integral_constant<bool, kKeptMax>{});
          turn();
          warpgroup_scores_issue<Cache>(q_tile, k_buffer(tile), s);
          rescale(true);
          values_in(tile - 1);
          warpgroup_accumulate_issue<Cache>(f.o, p, v_buffer(tile - 1), tile - 1 > it.tile_begin);
          pass();
          warpgroup_wait<1>(s);
          keys_read(tile);
          kept_last = kKeptMax && !decltype(masked)::value;
          if constexpr (kKeptMax && !decltype(masked)::value)
            missed = !warp_softmax_weights_at_kept_max(f, s, rules.scale, alpha);
          else
            warp_softmax_weights(f, s, decltype(masked)::value ? mask(s, keys_at(tile)) : rules.scale, alpha);
        };
        // Where the logit is the scaled dot product (compiled in), the tiles every row of the block
        // sees whole step without the mask's code (the mask's unmasked trips between its masked
        // ones, as CUTLASS's mainloops run them): the common step stays short, not predicated
        // around it. Bounds are the team's, so the warps of the warpgroup run the same loops. A
        // kernel with the logits' hooks keeps one step (two copies of its long step had cost a
        // windowed prefill 2.6 %).
        int tile = it.tile_begin + 1;
        if constexpr (!Features::logits) {
          const auto clamp = [](int t, int low, int high) { return t < low ? low : t > high ? high : t; };
          constexpr int kTurnOfTile = kLastTileFirst ? 1 : 0;  // tile t's turn past the first: t + this
          const int unmasked_begin = clamp(it.tiles.unmasked_begin + kTurnOfTile, tile, it.tile_end);
          const int unmasked_end = clamp(it.tiles.unmasked_end + kTurnOfTile, unmasked_begin, it.tile_end);
          for (; tile < unmasked_begin; ++tile) step(tile, std::true_type{});
          for (; tile < unmasked_end; ++tile) step(tile, std::false_type{});
        }
        for (; tile < it.tile_end; ++tile) step(tile, std::true_type{});
        land(it.tile_end - 2);
        if constexpr (kKeptMax) {
          // K(tile_end - 1) stays in its buffer until the item's next copies, after its last barrier.
          if (kept_last && team_barrier_any(team, missed)) retake(it.tile_end - 1);
        }
        rescale(true);
        turn();
        values_in(it.tile_end - 1);
        warpgroup_accumulate_issue<Cache>(f.o, p, v_buffer(it.tile_end - 1), it.tile_end - 1 > it.tile_begin);
        pass();
        warpgroup_wait<0>(f.o);
        values_read(it.tile_end - 1);
      } else {  // no tile, no P·V: the accumulator's zeros
        KATTN_UNROLL
        for (int n = 0; n < kMaxHead / 8; ++n) {
          KATTN_UNROLL
          for (int i = 0; i < 4; ++i) f.o[n][i] = 0.0f;
        }
      }
      if constexpr (kBulkTiles) stages += it.tile_end - it.tile_begin;
      // A warp's wait covers its own share of a product, not the other warps': every warp's last
      // Q·Kᵀ has read K buffer 0 (with the producer: the warpgroup's Q rows) before store() writes
      // the output rows through it.
      if constexpr (Producer) {
        warpgroup_sync();
      } else {
        team_stage_wait(0);  // the Q rows' copies, where the item had no tile
        if (bulk_rows) pipeline_wait(q_barrier(tiles), q_phase);
        team.team_barrier();
      }
    } else {
      for (int tile = it.tile_begin; tile < it.tile_end; ++tile) {
        Cache* const k_tile = k_buffer(tile);
        Cache* const v_tile = v_buffer(tile);
        if (tile > it.tile_begin) copies_done();
        team.team_barrier();  // K(tile) is in; every warp is done with V(tile - 1) (or with its Q rows)
        stage(true, tile, v_tile);
        const bool computes_tile = computes(tile);
        Scores s;
        if (computes_tile) {
          if constexpr (Warpgroup)
            warpgroup_scores<Cache>(f, k_tile, s);
          else
            warp_scores<Cache>(f, k_tile, stride, head_size, s);
          warp_softmax_step(f, s, mask(s, tile));
        }
        copies_done();
        team.team_barrier();  // V(tile) is in; every warp is done with K(tile)
        if (tile + 1 < it.tile_end) stage(false, tile + 1, k_tile);
        if (computes_tile) {
          if constexpr (Warpgroup)
            warpgroup_accumulate<Cache>(f, s, v_tile);
          else
            warp_accumulate<Cache>(f, s, v_tile, stride, head_size);
        }
      }
    }
    warp_finish_sums(f);
    if constexpr (kBulkRows && sizeof(Out) == 2) {
      if (bulk_rows && valid_rows == kWarpgroupRows) {
        // The block's output rows through the Q buffer in the products' layout, then out by the copy
        // engine: every row of the box is a valid token's.
        const float row_scale[2] = {f.state[0].inverse_sum() * args.out_multiplier,
                                    f.state[1].inverse_sum() * args.out_multiplier};
        warp_write_tile_rows(f, row_scale, reinterpret_cast<Out*>(q_tile), row0);
        warpgroup_tile_ready();
        team.team_barrier();
#if defined(__CUDA_ARCH__)
        if (team.team_rank() == 0 && lane == 0)
          bulk_store_out_block(row_maps, unsigned(__cvta_generic_to_shared(q_tile)), rows.head(0), rows.token(0));
#endif
        return it.tile_end - it.tile_begin;
      }
    }
    Cache* const out_rows =
        Producer ? q_tile + (warp % kWarpgroupWarps) * kFragmentRows * stride : tiles + row0 * stride;
    store(f, it, row0, out_rows, stride, valid_rows - row0);
#if defined(__CUDA_ARCH__)
    if constexpr (Producer) rings.q_read(items_before, true);  // the thread's output rows are out of the Q buffer
#endif
    return it.tile_end - it.tile_begin;
  }

  // Query row r of an item's rows (valid_rows of them), or any readable row past them (their copies
  // are zeros).
  KOKKOS_INLINE_FUNCTION const Cache* q_row(const QBlockRows& rows, int valid_rows, int r) const {
    return r < valid_rows ? &args.q(rows.token(r), rows.head(r), 0) : args.q.data();
  }

  // The item's work: with the producer, handed over beside its Q rows (which are then in, and
  // visible to the tensor cores); else read here.
  KOKKOS_INLINE_FUNCTION QBlockItem handed_item(const Rings& rings, int item, int n, const QBlockItem* handed) const {
    if constexpr (Producer) {
      rings.wait_q_full(n);
      warpgroup_tile_ready();
      return handed[Rings::q_slot(n)];
    }
    (void)rings, (void)n, (void)handed;
    return qblock_item(args, rules, q_blocks, item, kTileKeys, num_segments);
  }

  // The warp's rows from row0 out: normalised (or, segmented, the partial state as it is); 16-bit
  // rows through out_rows (its 16 rows of scratch, which no product reads any more).
  KOKKOS_INLINE_FUNCTION void store(const WarpRowFragments<kMaxHead>& f, const QBlockItem& it, int row0,
                                    Cache* out_rows_at, int stride, int warp_rows) const {
    const QBlockRows& rows = it.rows;
    const int lane = warp_lane();
    const int head_size = this->head_size();
    if constexpr (!Segmented && sizeof(Out) == 2) {
      if (rows_out) {
        Out* const out_rows = reinterpret_cast<Out*>(out_rows_at);
        const float row_scale[2] = {f.state[0].inverse_sum() * args.out_multiplier,
                                    f.state[1].inverse_sum() * args.out_multiplier};
        warp_write_rows(f, row_scale, out_rows, stride, head_size);
        warp_store_rows(out_rows, stride, head_size, warp_rows < kFragmentRows ? warp_rows : kFragmentRows,
                        [&](int r) { return &args.out(rows.token(row0 + r), rows.head(row0 + r), 0); });
        return;
      }
    }
    KATTN_UNROLL
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + fragment_row(lane, 2 * h);
      if (!rows.valid(row)) continue;
      const int token = rows.token(row), head = rows.head(row);
      const float inverse_sum = f.state[h].inverse_sum();
      KATTN_UNROLL
      for (int n = 0; n < kMaxHead / 8; ++n) {
        if (8 * n >= head_size) break;
        KATTN_UNROLL
        for (int i = 2 * h; i < 2 * h + 2; ++i) {
          const int d = 8 * n + fragment_column(lane, i);
          if (Segmented)
            partials.out(it.segment, token, head, d) = f.o[n][i];
          else
            args.store_out(token, head, d, f.o[n][i] * inverse_sum);
        }
      }
      if (Segmented && (lane & 3) == 0) {
        partials.max(it.segment, token, head) = WarpRowFragments<kMaxHead>::in_logits(f.state[h]).max;
        partials.sum(it.segment, token, head) = f.state[h].sum;
      }
    }
  }
};

}  // namespace kattn
