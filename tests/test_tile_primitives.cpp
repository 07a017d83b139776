// The kernels' tile primitives on their own, on each backend of the build (test_space.hpp): staging
// paged K/V rows into scratch (team_stage_rows, a team's TeamTileCopy, a warp's WarpStageRing and
// its block-tile copy), summing across a thread's vector lanes (vector_lanes_sum), the last-team
// handshake (team_arrive_last), the team barrier's vote (team_barrier_any), the key-row tensor-core products and the merge of a team's warp
// states (warp_key_rows.hpp, CUDA only), the row tensor-core products of the Q-block kernel
// (warp_fragments.hpp, CUDA only), the warpgroup products of its Hopper path (warpgroup_mma.hpp,
// sm_90a builds only) and its bulk tile copies (team_bulk_copy.hpp, the same), Kokkos Kernels' team
// products of the portable kernel (team_gemm.hpp, host backends) and the block/slot division
// (FastDivisor, host).
#include "kattn/core/execution_space.hpp"
#include "kattn/core/storage_types.hpp"
#include "kattn/core/team_scratch_cap.hpp"
#include "kattn/detail/launch/cache_tile_maps.hpp"
#include "kattn/detail/shapes/scratch_layout.hpp"
#include "kattn/detail/tiles/fast_divisor.hpp"
#include "kattn/detail/tiles/team_arrival.hpp"
#include "kattn/detail/tiles/team_bulk_copy.hpp"
#include "kattn/detail/tiles/team_gemm.hpp"
#include "kattn/detail/tiles/team_stage.hpp"
#include "kattn/detail/tiles/team_vote.hpp"
#include "kattn/detail/tiles/vector_lanes.hpp"
#include "kattn/detail/tiles/warp_fragments.hpp"
#include "kattn/detail/tiles/warp_key_rows.hpp"
#include "kattn/detail/tiles/warp_stage.hpp"
#include "kattn/detail/tiles/warpgroup_mma.hpp"
#include "kattn/detail/tiles/warpgroup_pipeline.hpp"
#include "test_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>
#include <vector>

namespace kattn {
namespace {

constexpr int kNumBlocks = 7, kBlockSize = 5, kKvHeads = 2, kKvHead = 1;

// A cache whose element (block, slot, head, d) holds a value that names it, and a block table of
// the blocks in a shuffled order ({4, 0, 6, 2, 5, 1, 3} for the usual 7; block 5i + 4 mod n of n
// others, n not a multiple of 5); rows are read back as floats.
template <class Storage>
struct PagedCache {
  int head_size, block_size;
  Kokkos::View<Storage****, Kokkos::LayoutRight, test::Memory> cache;
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, test::Memory> block_ids;
  std::vector<std::int32_t> host_block_ids{4, 0, 6, 2, 5, 1, 3};

  explicit PagedCache(int head, int block = kBlockSize, int num_blocks = kNumBlocks)
      : head_size(head),
        block_size(block),
        cache("cache", num_blocks, block, kKvHeads, head),
        block_ids("ids", num_blocks) {
    if (num_blocks != kNumBlocks) {
      host_block_ids.resize(std::size_t(num_blocks));
      for (int i = 0; i < num_blocks; ++i) host_block_ids[std::size_t(i)] = (5 * i + 4) % num_blocks;
    }
    auto host = Kokkos::create_mirror_view(cache);
    for (int b = 0; b < num_blocks; ++b)
      for (int s = 0; s < block; ++s)
        for (int h = 0; h < kKvHeads; ++h)
          for (int d = 0; d < head; ++d) host(b, s, h, d) = from_float<Storage>(expected(b, s, h, d));
    Kokkos::deep_copy(cache, host);
    auto ids = Kokkos::create_mirror_view(block_ids);
    for (int i = 0; i < num_blocks; ++i) ids(i) = host_block_ids[std::size_t(i)];
    Kokkos::deep_copy(block_ids, ids);
  }
  static float expected(int block, int slot, int head, int d) {  // small integers: exact in fp8
    return float((block * 8 + slot) % 7 + head * 4 + d % 4);
  }
  // The value of element d of sequence key `key` (its block id from the table).
  float key_value(int key, int d) const {
    return expected(host_block_ids[std::size_t(key / block_size)], key % block_size, kKvHead, d);
  }
  PagedKvAccessor<Storage> accessor() const {
    return {cache.data(), std::int64_t(cache.stride_0()), std::int64_t(cache.stride_1()),
            std::int64_t(cache.stride_2())};
  }
  // Values of head kKvHead read as the keys of head kKvHead - 1: each element 4 less than its key's.
  PagedKvAccessor<Storage> shifted_values() const {
    PagedKvAccessor<Storage> v = accessor();
    v.data -= v.stride_head;
    return v;
  }
};

// Copied-out tiles [tile][K, V][row][d] of the keys from first_key to `keys`: K rows hold the keys,
// V rows the shifted values (4 less), rows past the keys zeros.
template <class Storage, class Tiles>
void expect_kv_tiles(const Tiles& host, const PagedCache<Storage>& cache, int keys, int block_size, int first_key = 0) {
  const int rows = int(host.extent(2)), head = int(host.extent(3));
  for (int t = 0; t < int(host.extent(0)); ++t)
    for (int j = 0; j < rows; ++j)
      for (int d = 0; d < head; ++d) {
        const int key = first_key + t * rows + j;
        const float k_value = key < keys ? cache.key_value(key, d) : 0.0f;
        ASSERT_EQ(host(t, 0, j, d), k_value) << "block " << block_size << " K tile " << t << " row " << j;
        ASSERT_EQ(host(t, 1, j, d), key < keys ? k_value - 4.0f : 0.0f)
            << "block " << block_size << " V tile " << t << " row " << j;
      }
}

// Stages keys [first, first + count) into `rows` scratch rows, waits, copies the tile out.
template <class Storage>
struct StageRowsOnce {
  PagedKvAccessor<Storage> cache;
  const std::int32_t* block_ids;
  Kokkos::View<float**, Kokkos::LayoutRight, test::Memory> out;  // [rows][stride]
  int first, count, rows, head_size, stride;
  bool aligned;

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    auto* tile =
        static_cast<Storage*>(team.team_scratch(0).get_shmem_aligned(std::size_t(rows) * stride * sizeof(Storage), 16));
    team_stage_rows(team, cache, CacheRowsAt{block_ids, 0, kBlockSize, kKvHead}, first, count, rows, head_size, stride,
                    aligned, tile);
    team_stage_commit();
    team_stage_wait(0);
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * stride),
                         [&](int i) { out(i / stride, i % stride) = to_float(tile[i]); });
  }
};

constexpr int kRingRows = 8;

// A one-warp ring of two stages over the tiles of kRingRows keys from key 0; copies each tile out.
template <class Storage>
struct RingOverTiles {
  PagedKvAccessor<Storage> cache;
  const std::int32_t* block_ids;
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> out;  // [tiles][rows][stride]
  int keys, head_size, stride, block_size;

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    constexpr int kStages = 2, rows = kRingRows;
    auto* tiles = static_cast<Storage*>(
        team.team_scratch(0).get_shmem_aligned(std::size_t(kStages) * 2 * rows * stride * sizeof(Storage), 16));
    const WarpStageRing<Storage, kRingRows> ring{tiles, stride, head_size, true, kStages};
    const CacheRowsAt at{block_ids, 0, block_size, kKvHead};
    const int num_tiles = int(out.extent(0));
    const auto stage = [&](int t) {
      if (t >= num_tiles) return ring.skip();
      const int count = keys - t * rows < rows ? keys - t * rows : rows;
      ring.stage(team, t, cache, cache, at, t * rows, count);
    };
    stage(0);
    for (int t = 0; t < num_tiles; ++t) {
      stage(t + 1);
      ring.wait(t);
      const Storage* k = ring.k_tile(t);
      const Storage* v = ring.v_tile(t);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rows * stride), [&](int i) {
        out(t, i / stride, i % stride) = to_float(k[i]) == to_float(v[i]) ? to_float(k[i]) : -1.0f;
      });
    }
  }
};

// Each team writes its slice of `values`, then arrives; the last team in sums every slice (reading
// what the other teams wrote) and counts itself in `lasts`.
struct SumAfterLastArrival {
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, test::Memory> values;  // [teams][team threads]
  Kokkos::View<std::int64_t*, test::Memory> total;
  Kokkos::View<std::int32_t*, test::Memory> lasts;
  std::int32_t* counter;

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    const int teams = int(values.extent(0)), threads = int(values.extent(1));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads),
                         [&](int t) { values(team.league_rank(), t) = team.league_rank() * threads + t + 1; });
    if (!team_arrive_last(team, counter, teams)) return;
    std::int64_t sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, teams * threads),
        [&](int i, std::int64_t& s) {
          s += *static_cast<const volatile std::int32_t*>(&values(i / threads, i % threads));
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team), [&] {
      total(0) = sum;
      Kokkos::atomic_add(&lasts(0), 1);
    });
  }
};

struct LaneSums {
  Kokkos::View<float**, Kokkos::LayoutRight, test::Memory> out;  // [threads][lanes]
  int lanes;

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    const int thread = team.team_rank(), lane = vector_lane(team);
    float values[2] = {float(100 * thread + lane), 1.0f};
    vector_lanes_sum(values, lanes);
    if (lane < lanes) out(thread, lane) = values[0] + values[1];
  }
};

// Team v votes by pattern v % 4: no thread, thread 0, the last thread, every thread; each thread
// (each vector lane) records what team_barrier_any told it.
struct TeamVotes {
  Kokkos::View<int***, Kokkos::LayoutRight, test::Memory> learned;  // [team][thread][lane]

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    const int pattern = team.league_rank() % 4, rank = team.team_rank();
    const bool votes = pattern == 1 ? rank == 0 : pattern == 2 ? rank == team.team_size() - 1 : pattern == 3;
    learned(team.league_rank(), rank, vector_lane(team)) = team_barrier_any(team, votes) ? 1 : 0;
  }
};

template <class Storage>
class TilePrimitives : public ::testing::Test {};
using StorageTypes = ::testing::Types<float, fp16_t, bf16_t, fp8_e4m3_t>;
TYPED_TEST_SUITE(TilePrimitives, StorageTypes);

TYPED_TEST(TilePrimitives, TeamStageRowsCopiesRowsAndZeroPads) {
  // 20: unaligned rows and a partial last lane chunk; 128: several chunks a lane (a warp's 8 lanes a row)
  for (const int head_size : {16, 20, 128}) {
    const PagedCache<TypeParam> cache(head_size);
    const int first = 3, count = 9, rows = 12, stride = lanes_for(head_size) * kLaneElements;
    Kokkos::View<float**, Kokkos::LayoutRight, test::Memory> out("out", rows, stride);
    test::Policy policy(1, host_backend<test::Space>() ? 1 : 4, host_backend<test::Space>() ? 1 : 32);
    policy.set_scratch_size(0, Kokkos::PerTeam(std::size_t(rows) * stride * sizeof(TypeParam) + 16));
    Kokkos::parallel_for(
        policy, StageRowsOnce<TypeParam>{cache.accessor(), cache.block_ids.data(), out, first, count, rows, head_size,
                                         stride, lane_chunks_aligned(cache.accessor())});
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (int j = 0; j < rows; ++j)
      for (int d = 0; d < stride; ++d)
        ASSERT_EQ(host(j, d), j < count && d < head_size ? cache.key_value(first + j, d) : 0.0f)
            << "head " << head_size << " row " << j << " element " << d;
  }
}

TYPED_TEST(TilePrimitives, WarpStageRingStagesTilesInOrder) {
  // Block 5: tiles across blocks, a lookup a row; block 16: each tile in one block.
  for (const int block_size : {kBlockSize, 16}) {
    const int head_size = 32, keys = 30, rows = kRingRows, stride = head_size + 8;  // 4 tiles, the last one partial
    const int num_tiles = (keys + rows - 1) / rows;
    const PagedCache<TypeParam> cache(head_size, block_size);
    Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> out("out", num_tiles, rows, stride);
    test::Policy policy(1, 1, host_backend<test::Space>() ? 1 : 32);
    policy.set_scratch_size(0, Kokkos::PerTeam(2 * 2 * std::size_t(rows) * stride * sizeof(TypeParam) + 64));
    Kokkos::parallel_for(policy, RingOverTiles<TypeParam>{cache.accessor(), cache.block_ids.data(), out, keys,
                                                          head_size, stride, block_size});
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (int t = 0; t < num_tiles; ++t)
      for (int j = 0; j < rows; ++j)
        for (int d = 0; d < head_size; ++d) {
          const int key = t * rows + j;
          ASSERT_EQ(host(t, j, d), key < keys ? cache.key_value(key, d) : 0.0f)
              << "block " << block_size << " tile " << t << " row " << j;
        }
  }
}

// A one-warp ring of two stages filled through WarpBlockTileCopy (head 64, 16-key tiles that each
// lie inside one block); V is read one KV head lower than K (its own base, the same strides), so a
// V tile holds the K values of head 0.
template <class Storage>
struct BlockTilesOverRing {
  static constexpr int kHead = 64, kRows = 16, kStride = kHead + 8;
  PagedKvAccessor<Storage> k, v;
  const std::int32_t* block_ids;
  Kokkos::View<float****, Kokkos::LayoutRight, test::Memory> out;  // [tiles][K, V][rows][head]
  int keys, block_size;

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    constexpr int kStages = 2;
    auto* tiles = static_cast<Storage*>(
        team.team_scratch(0).get_shmem_aligned(std::size_t(kStages) * 2 * kRows * kStride * sizeof(Storage), 16));
    const WarpStageRing<Storage, kRows> ring{tiles, kStride, kHead, true, kStages};
    const WarpBlockTileCopy<Storage, kRows, kHead> lanes(k, v, kKvHead, warp_lane());
    const CacheRowsAt at{block_ids, 0, FastDivisor(block_size), kKvHead};
    const int num_tiles = int(out.extent(0));
    const auto stage = [&](int t) {
      if (t >= num_tiles) return ring.skip();
      const int count = keys - t * kRows < kRows ? keys - t * kRows : kRows;
      int slot = 0;
      const std::int32_t block = at.locate(t * kRows, slot);
      ring.template stage_block<kStride>(t, lanes, block, slot, count);
    };
    stage(0);
    for (int t = 0; t < num_tiles; ++t) {
      stage(t + 1);
      ring.wait(t);
      const Storage* tile[2] = {ring.k_tile(t), ring.v_tile(t)};
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 2 * kRows * kHead), [&](int i) {
        const int which = i / (kRows * kHead), row = i / kHead % kRows, d = i % kHead;
        out(t, which, row, d) = to_float(tile[which][row * kStride + d]);
      });
    }
  }
};

TYPED_TEST(TilePrimitives, WarpBlockTileCopyStagesWholeTilesAndZeroPads) {
  if constexpr (sizeof(TypeParam) != 2) {
    GTEST_SKIP() << "the block-tile copy takes 2-byte caches";
  } else {
    if (!register_rows_available<test::Space>())
      GTEST_SKIP() << "cp.async: CUDA only (host backends stage through stage())";
    using Ring = BlockTilesOverRing<TypeParam>;
    for (const int block_size : {16, 32}) {
      const int keys = 50, num_tiles = (keys + Ring::kRows - 1) / Ring::kRows;  // the last tile holds 2 keys
      const PagedCache<TypeParam> cache(Ring::kHead, block_size);
      const PagedKvAccessor<TypeParam> v = cache.shifted_values();
      Kokkos::View<float****, Kokkos::LayoutRight, test::Memory> out("out", num_tiles, 2, Ring::kRows, Ring::kHead);
      test::Policy policy(1, 1, 32);
      policy.set_scratch_size(
          0, Kokkos::PerTeam(2 * 2 * std::size_t(Ring::kRows) * Ring::kStride * sizeof(TypeParam) + 64));
      Kokkos::parallel_for(policy, Ring{cache.accessor(), v, cache.block_ids.data(), out, keys, block_size});
      const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      expect_kv_tiles(host, cache, keys, block_size);
    }
  }
}

// A team of 4 warps stages the K, then the V tile of each 64 keys (head 64) through its threads'
// TeamTileCopy shares, in rows or (swizzled) in the warpgroup products' layout, or (pair) both
// tiles at once in that layout, or (block_rows) both by the threads' BlockRows, from first_key on;
// and copies each out.
enum class TileCopyForm { rows, swizzled, pair, block_rows };
template <class Storage, TileCopyForm Form>
struct TeamTilesOverKeys {
  static constexpr int kRows = 64, kHead = 64, kStride = kHead + kFragmentTilePad;
  static constexpr bool kSwizzled = Form != TileCopyForm::rows;
  static constexpr int kAlign = kSwizzled ? kWarpgroupTileAlign : 16;
  static constexpr bool kPair = Form == TileCopyForm::pair || Form == TileCopyForm::block_rows;
  static constexpr int kTiles = kPair ? 2 : 1;  // K and V apart for the pairs
  static constexpr std::size_t kTileBytes = std::size_t(kRows) * kStride * sizeof(Storage);  // 1024-byte multiple
  PagedKvAccessor<Storage> k, v;
  const std::int32_t* block_ids;
  Kokkos::View<float****, Kokkos::LayoutRight, test::Memory> out;  // [tiles][K, V][rows][head]
  int keys, block_size, first_key;

  static std::size_t scratch_bytes() { return kTiles * kTileBytes + kAlign; }

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    auto* tiles = static_cast<Storage*>(team.team_scratch(0).get_shmem_aligned(kTiles * kTileBytes, kAlign));
    const TeamTileCopy<Storage, kRows, kHead> lanes(k, v, kKvHead, team.team_rank(), team.team_size(), warp_lane());
    const FastDivisor block_divisor(block_size);
    for (int t = 0; t < int(out.extent(0)); ++t)
      for (int which = 0; which < 2; ++which) {
        const int first = first_key + t * kRows, count = keys - first < kRows ? keys - first : kRows;
        Storage* const tile = tiles + (kPair ? which * kTileBytes / sizeof(Storage) : 0);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        const unsigned shared = unsigned(__cvta_generic_to_shared(tiles));
        if constexpr (Form == TileCopyForm::block_rows) {
          const auto rows = lanes.template block_rows<4>(block_ids, block_divisor, first_key);
          if (which == 0)
            lanes.template copy_swizzled_pair<4>(shared, shared + unsigned(kTileBytes), rows,
                                                 lanes.template tile_blocks<4>(rows, t, count), count);
        } else if (Form == TileCopyForm::pair) {
          if (which == 0)
            lanes.template copy_swizzled_pair<4>(shared, shared + unsigned(kTileBytes), block_ids, block_divisor, first,
                                                 count);
        } else if (kSwizzled) {
          lanes.copy_swizzled(shared, which == 1, block_ids, block_divisor, first, count);
        } else {
          lanes.template copy<kStride>(shared, which == 1, block_ids, block_divisor, first, count);
        }
#endif
        team_stage_commit();
        team_stage_wait(0);
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, kRows * kHead), [&](int i) {
          const int row = i / kHead, d = i % kHead;
          const int at = kSwizzled ? warpgroup_tile_offset(row, d) / int(sizeof(Storage)) : row * kStride + d;
          out(t, which, row, d) = to_float(tile[at]);
        });
        team.team_barrier();
      }
  }
};

TYPED_TEST(TilePrimitives, TeamTileCopyStagesTilesAtAnyBlockSizeAndZeroPads) {
  if constexpr (sizeof(TypeParam) != 2) {
    GTEST_SKIP() << "the team tile copy takes 2-byte caches";
  } else {
    if (!register_rows_available<test::Space>())
      GTEST_SKIP() << "cp.async: CUDA only (host backends stage through team_stage_rows)";
    // Keys [first_key, keys) of caches of num_blocks blocks of each block size (keys past a block's
    // start, and past a tile's).
    const auto stage_over_keys = [](auto tiles, std::initializer_list<int> block_sizes, int first_key, int num_blocks) {
      using Tiles = decltype(tiles);
      for (const int block_size : block_sizes) {
        const int keys = block_size * num_blocks < 100 ? block_size * num_blocks - 2 : 100;
        const int num_tiles = (keys - first_key + Tiles::kRows - 1) / Tiles::kRows;
        const PagedCache<TypeParam> cache(Tiles::kHead, block_size, num_blocks);
        const PagedKvAccessor<TypeParam> v = cache.shifted_values();
        ASSERT_TRUE(
            (TeamTileCopy<TypeParam, Tiles::kRows, Tiles::kHead>::applies(cache.accessor(), v, Tiles::kHead, true)));
        Kokkos::View<float****, Kokkos::LayoutRight, test::Memory> out("out", num_tiles, 2, Tiles::kRows, Tiles::kHead);
        test::Policy policy(1, 4, 32);
        policy.set_scratch_size(0, Kokkos::PerTeam(Tiles::scratch_bytes()));
        Kokkos::parallel_for(policy,
                             Tiles{cache.accessor(), v, cache.block_ids.data(), out, keys, block_size, first_key});
        const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
        expect_kv_tiles(host, cache, keys, block_size, first_key);
      }
    };
    // 5: a tile spans many blocks; 16: a thread's rows a block apart; 32: two to a block. The block
    // rows take block sizes that divide the team's row step of 16: a thread's rows 4, 2 and 1
    // blocks apart, from a window's first key (a slot within the first block), over two tiles of
    // 16, 8 and 4 blocks (a cache of 23).
    stage_over_keys(TeamTilesOverKeys<TypeParam, TileCopyForm::rows>{}, {kBlockSize, 16, 32}, 0, kNumBlocks);
    stage_over_keys(TeamTilesOverKeys<TypeParam, TileCopyForm::swizzled>{}, {kBlockSize, 16, 32}, 0, kNumBlocks);
    stage_over_keys(TeamTilesOverKeys<TypeParam, TileCopyForm::pair>{}, {kBlockSize, 16, 32}, 0, kNumBlocks);
    stage_over_keys(TeamTilesOverKeys<TypeParam, TileCopyForm::block_rows>{}, {4, 8, 16}, 3, 23);
  }
}

// One warp: K and V tiles and 8 query rows of head 64 staged to scratch, then S^T = K · Q^T
// (warp_key_scores) and O^T = V^T · S^T (warp_key_accumulate on the unscaled scores); small
// integer operands keep every product exact in fp16 and fp32.
struct KeyRowProducts {
  static constexpr int kHead = 64, kStride = kHead + kFragmentTilePad;
  Kokkos::View<fp16_t**, Kokkos::LayoutRight, test::Memory> q, k, v;     // [8][head], [32][head], [32][head]
  Kokkos::View<float**, Kokkos::LayoutRight, test::Memory> scores, out;  // [32 keys][8 rows], [8 rows][head]

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    auto* tiles = static_cast<fp16_t*>(
        team.team_scratch(0).get_shmem_aligned(2 * kKeyRowTileKeys * kStride * sizeof(fp16_t), 16));
    fp16_t* v_tile = tiles + kKeyRowTileKeys * kStride;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, kKeyRowTileKeys * kHead), [&](int i) {
      tiles[(i / kHead) * kStride + i % kHead] = k(i / kHead, i % kHead);
      v_tile[(i / kHead) * kStride + i % kHead] = v(i / kHead, i % kHead);
    });
    team.team_barrier();
    WarpKeyRowFragments f;
    load_key_row_q<fp16_t>(f, kHead, [&](int r, int d) { return q(r, d); });
    WarpKeyScores s;
    warp_key_scores<fp16_t>(f, tiles, kHead, s);
    const int lane = warp_lane();
    for (int m = 0; m < kKeyRowTileKeys / 16; ++m)
      for (int i = 0; i < 4; ++i) scores(16 * m + key_row_element(lane, i), key_row_query(lane, i)) = s[m][i];
    warp_key_accumulate<fp16_t>(f, s, v_tile, kHead);
    for (int n = 0; n < kHead / 16; ++n)
      for (int i = 0; i < 4; ++i) out(key_row_query(lane, i), 16 * n + key_row_element(lane, i)) = f.o[n][i];
  }
};

TEST(WarpKeyRows, ScoresAndWeightedSumsMatchTheHost) {
  if (!register_rows_available<test::Space>()) GTEST_SKIP() << "the key-row tiles need CUDA tensor cores";
  constexpr int kRows = kKeyRowQueries, kKeys = kKeyRowTileKeys, kHead = KeyRowProducts::kHead;
  const auto value = [](int a, int b, int salt) { return float((a * 7 + b * 3 + salt) % 5 - 2); };
  using Tile = decltype(KeyRowProducts::q);
  using Result = decltype(KeyRowProducts::out);
  const KeyRowProducts p{Tile("q", kRows, kHead), Tile("k", kKeys, kHead), Tile("v", kKeys, kHead),
                         Result("s", kKeys, kRows), Result("o", kRows, kHead)};
  auto q = Kokkos::create_mirror_view(p.q), k = Kokkos::create_mirror_view(p.k), v = Kokkos::create_mirror_view(p.v);
  for (int d = 0; d < kHead; ++d) {
    for (int r = 0; r < kRows; ++r) q(r, d) = from_float<fp16_t>(value(r, d, 1));
    for (int j = 0; j < kKeys; ++j) {
      k(j, d) = from_float<fp16_t>(value(j, d, 2));
      v(j, d) = from_float<fp16_t>(value(j, d, 4));
    }
  }
  Kokkos::deep_copy(p.q, q);
  Kokkos::deep_copy(p.k, k);
  Kokkos::deep_copy(p.v, v);
  test::Policy policy(1, 1, 32);
  policy.set_scratch_size(0, Kokkos::PerTeam(2 * kKeys * KeyRowProducts::kStride * sizeof(fp16_t) + 16));
  Kokkos::parallel_for(policy, p);
  const auto scores = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.scores);
  const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.out);
  for (int r = 0; r < kRows; ++r) {
    for (int j = 0; j < kKeys; ++j) {
      float expected = 0.0f;
      for (int d = 0; d < kHead; ++d) expected += value(r, d, 1) * value(j, d, 2);
      ASSERT_EQ(scores(j, r), expected) << "key " << j << " row " << r;
    }
    for (int d = 0; d < kHead; ++d) {
      float expected = 0.0f;
      for (int j = 0; j < kKeys; ++j) expected += scores(j, r) * value(j, d, 4);
      ASSERT_EQ(out(r, d), expected) << "row " << r << " element " << d;
    }
  }
}

// Three warps of one team, each with its own accumulator and softmax state of the same 8 query
// rows (warp 2 saw no key: max -inf), merged through scratch into warp 0's fragments.
struct KeyRowStateMerge {
  static constexpr int kHead = 32, kWarps = 3;
  Kokkos::View<float**, Kokkos::LayoutRight, test::Memory> out, state;  // [8 rows][head], [8 rows][max, sum]

  KOKKOS_INLINE_FUNCTION static float row_max(int warp, int row) {
    return warp == 2 ? -compat::infinity() : 0.5f * float(warp + row % 3);
  }
  KOKKOS_INLINE_FUNCTION static float row_sum(int warp, int row) { return warp == 2 ? 0.0f : float(1 + warp + row); }
  KOKKOS_INLINE_FUNCTION static float element(int warp, int row, int d) { return float((warp * 5 + row * 3 + d) % 7); }

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    auto* scratch = static_cast<float*>(
        team.team_scratch(0).get_shmem_aligned(kWarps * kKeyRowQueries * (kHead + 2) * sizeof(float), 16));
    const int warp = team.team_rank(), lane = warp_lane();
    WarpKeyRowFragments f;
    for (int n = 0; n < kHead / 16; ++n)
      for (int i = 0; i < 4; ++i) f.o[n][i] = element(warp, key_row_query(lane, i), 16 * n + key_row_element(lane, i));
    for (int h = 0; h < 2; ++h)
      f.state[h] = {row_max(warp, key_row_query(lane, h)), row_sum(warp, key_row_query(lane, h))};
    warp_key_store_state(f, scratch, warp, kHead);
    team.team_barrier();
    if (warp != 0) return;
    warp_key_merge_states(f, scratch, kWarps, kHead);
    for (int n = 0; n < kHead / 16; ++n)
      for (int i = 0; i < 4; ++i) out(key_row_query(lane, i), 16 * n + key_row_element(lane, i)) = f.o[n][i];
    for (int h = 0; h < 2; ++h) {
      state(key_row_query(lane, h), 0) = f.state[h].max;
      state(key_row_query(lane, h), 1) = f.state[h].sum;
    }
  }
};

TEST(WarpKeyRows, WarpStatesMergeIntoWarpZero) {
  if (!register_rows_available<test::Space>()) GTEST_SKIP() << "the key-row tiles need CUDA tensor cores";
  using Merge = KeyRowStateMerge;
  const Merge m{decltype(Merge::out)("out", kKeyRowQueries, Merge::kHead),
                decltype(Merge::state)("state", kKeyRowQueries, 2)};
  test::Policy policy(1, Merge::kWarps, 32);
  policy.set_scratch_size(0, Kokkos::PerTeam(Merge::kWarps * kKeyRowQueries * (Merge::kHead + 2) * sizeof(float) + 16));
  Kokkos::parallel_for(policy, m);
  const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.out);
  const auto state = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.state);
  for (int r = 0; r < kKeyRowQueries; ++r) {
    float max = -compat::infinity(), sum = 0.0f;
    for (int w = 0; w < Merge::kWarps; ++w) max = std::max(max, Merge::row_max(w, r));
    const auto weight = [&](int w) { return w == 2 ? 0.0f : std::exp(Merge::row_max(w, r) - max); };
    for (int w = 0; w < Merge::kWarps; ++w) sum += weight(w) * Merge::row_sum(w, r);
    EXPECT_EQ(state(r, 0), max) << "row " << r;
    EXPECT_NEAR(state(r, 1), sum, 1e-5f * sum) << "row " << r;
    for (int d = 0; d < Merge::kHead; ++d) {
      float expected = 0.0f;
      for (int w = 0; w < Merge::kWarps; ++w) expected += weight(w) * Merge::element(w, r, d);
      ASSERT_NEAR(out(r, d), expected, 1e-5f * (1.0f + expected)) << "row " << r << " element " << d;
    }
  }
}

// One warp, 16 query rows of head 64 against one K/V tile of kFragmentTileKeys keys, in two online-
// softmax steps (keys below 32, then the rest; the values repeat every 5 keys, so the second finds
// the first's maxima: LaggedSoftmaxSteps moves a max): Q loaded
// from scratch (warp_load_q), S = Q · K^T (warp_scores, exact on small integers), the weights at
// softmax scale kScale (warp_softmax_step), O += P · V (warp_accumulate), then the rows normalised
// and stored through scratch (warp_write_rows, warp_store_rows). Row r sees keys below 34 + 2r,
// except row 7, which sees none (its output is zeros).
struct RowProducts {
  using Value = fp16_t;
  static constexpr int kHead = 64, kStride = kHead + kFragmentTilePad, kKeys = kFragmentTileKeys, kRows = kFragmentRows;
  static constexpr int kWarps = 1;
  static constexpr int kQRows = kRows;  // rows of q the products read (the rest are zeros)
  static constexpr std::size_t kScratchBytes = (kRows + 2 * kKeys) * kStride * sizeof(fp16_t) + 16;
  static constexpr float kScale = 0.125f;
  Kokkos::View<fp16_t**, Kokkos::LayoutRight, test::Memory> q, k, v, out;  // [16][head], [keys][head] ×2, [16][head]
  Kokkos::View<float**, Kokkos::LayoutRight, test::Memory> scores;         // [16 rows][keys]

  KOKKOS_INLINE_FUNCTION static int keys_seen(int row) { return row == 7 ? 0 : 34 + 2 * row; }

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    auto* q_tile = static_cast<fp16_t*>(
        team.team_scratch(0).get_shmem_aligned((kRows + 2 * kKeys) * kStride * sizeof(fp16_t), 16));
    fp16_t* k_tile = q_tile + kRows * kStride;
    fp16_t* v_tile = k_tile + kKeys * kStride;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, kKeys * kHead), [&](int i) {
      const int j = i / kHead, d = i % kHead;
      if (j < kRows) q_tile[j * kStride + d] = q(j, d);
      k_tile[j * kStride + d] = k(j, d);
      v_tile[j * kStride + d] = v(j, d);
    });
    team.team_barrier();
    WarpRowFragments<kHead> f;
    warp_load_q<fp16_t>(f, q_tile, kStride, kHead);
    const int lane = warp_lane();
    for (int step = 0; step < 2; ++step) {
      WarpScores s;
      warp_scores<fp16_t>(f, k_tile, kStride, kHead, s);
      for (int j = 0; j < kKeys / 8; ++j)
        for (int i = 0; i < 4; ++i) {
          const int row = fragment_row(lane, i), key = 8 * j + fragment_column(lane, i);
          if (step == 0) scores(row, key) = s[j][i];
          if ((key < 32) != (step == 0) || key >= keys_seen(row)) s[j][i] = -compat::infinity();
        }
      warp_softmax_step(f, s, kScale);
      warp_accumulate<fp16_t>(f, s, v_tile, kStride, kHead);
    }
    warp_finish_sums(f);
    const float row_scale[2] = {f.state[0].inverse_sum(), f.state[1].inverse_sum()};
    warp_write_rows(f, row_scale, q_tile, kStride, kHead);  // Q is in registers: its rows take the output
    warp_store_rows(q_tile, kStride, kHead, kRows, [&](int r) { return &out(r, 0); });
  }
};

// Runs the products P (fed small integers, so that the scores are exact) and checks its scores and
// normalised rows against a double-precision host softmax; `tolerance` covers the 16-bit rounding
// of the weights before P · V and of the output after it (a few ulps of each).
template <class P>
void expect_row_products_match_the_host(double tolerance) {
  using T = typename P::Value;
  const auto value = [](int a, int b, int salt) { return float((a * 7 + b * 3 + salt) % 5 - 2); };
  using Tile = decltype(P::q);
  const P p{Tile("q", P::kRows, P::kHead), Tile("k", P::kKeys, P::kHead), Tile("v", P::kKeys, P::kHead),
            Tile("out", P::kRows, P::kHead), decltype(P::scores)("s", P::kRows, P::kKeys)};
  auto q = Kokkos::create_mirror_view(p.q), k = Kokkos::create_mirror_view(p.k), v = Kokkos::create_mirror_view(p.v);
  for (int d = 0; d < P::kHead; ++d) {
    for (int r = 0; r < P::kRows; ++r) q(r, d) = from_float<T>(value(r, d, 1));
    for (int j = 0; j < P::kKeys; ++j) {
      k(j, d) = from_float<T>(value(j, d, 2));
      v(j, d) = from_float<T>(value(j, d, 4));
    }
  }
  Kokkos::deep_copy(p.q, q);
  Kokkos::deep_copy(p.k, k);
  Kokkos::deep_copy(p.v, v);
  test::Policy policy(1, P::kWarps, 32);
  ASSERT_LE(P::kScratchBytes,
            team_scratch_limit<test::Space>());  // past Kokkos 4.6's 48 KB where the kernel's tiles are
  policy.set_scratch_size(0, Kokkos::PerTeam(P::kScratchBytes));
  allow_team_scratch(policy, p);
  Kokkos::parallel_for(policy, p);
  const auto scores = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.scores);
  const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.out);
  for (int r = 0; r < P::kRows; ++r) {
    double max = -compat::infinity(), sum = 0.0;
    for (int j = 0; j < P::kKeys; ++j) {
      double dot = 0.0;
      if (r < P::kQRows)
        for (int d = 0; d < P::kHead; ++d) dot += value(r, d, 1) * value(j, d, 2);
      ASSERT_EQ(scores(r, j), dot) << "row " << r << " key " << j;
      if (j < P::keys_seen(r)) max = std::max(max, P::kScale * dot);
    }
    std::vector<double> weight(P::kKeys, 0.0);
    for (int j = 0; j < P::keys_seen(r); ++j) sum += weight[std::size_t(j)] = std::exp(P::kScale * scores(r, j) - max);
    for (int d = 0; d < P::kHead; ++d) {
      double expected = 0.0;
      for (int j = 0; j < P::kKeys; ++j) expected += weight[std::size_t(j)] * value(j, d, 4);
      expected = sum > 0.0 ? expected / sum : 0.0;
      ASSERT_NEAR(to_float(out(r, d)), expected, tolerance * (1.0 + std::abs(expected)))
          << "row " << r << " element " << d;
    }
  }
}

TEST(WarpRows, ScoresSoftmaxStepsAndWeightedSumsMatchTheHost) {
  if (!register_rows_available<test::Space>()) GTEST_SKIP() << "the row tiles need CUDA tensor cores";
  expect_row_products_match_the_host<RowProducts>(4e-3);
}

// A warp's softmax step recorded for the host: its weights at [step][row][key], and each row's
// alpha, max (in logits) and sum over the row's four lanes at [step][row][0, 1, 2]; f's running
// state stays the lanes' own.
template <class Weights, class Rows>
KOKKOS_INLINE_FUNCTION void record_softmax_step(WarpRowFragments<>& f, const WarpScores& s, const float alpha[2],
                                                int step, const Weights& weights, const Rows& rows) {
  const int lane = warp_lane();
  for (int j = 0; j < kFragmentTileKeys / 8; ++j)
    for (int i = 0; i < 4; ++i) weights(step, fragment_row(lane, i), 8 * j + fragment_column(lane, i)) = s[j][i];
  const SoftmaxState whole[2] = {f.state[0], f.state[1]};
  warp_finish_sums(f);  // the sums so far, over the four lanes of a row
  for (int h = 0; h < 2; ++h) {
    if (lane & 3) continue;
    const int row = fragment_row(lane, 2 * h);
    rows(step, row, 0) = alpha[h];
    rows(step, row, 1) = WarpRowFragments<>::in_logits(f.state[h]).max;
    rows(step, row, 2) = f.state[h].sum;
  }
  f.state[0] = whole[0], f.state[1] = whole[1];
}

// Row r's recorded steps against the exact softmax over every step's logits (logit(step, row, key)):
// each weight, rescaled by the later steps' alphas and divided by the final sum.
template <class Logit, class Weights, class Rows>
void expect_steps_make_the_exact_softmax(Logit logit, int steps, int r, const Weights& w, const Rows& rows) {
  double exact_max = -std::numeric_limits<double>::infinity(), exact_sum = 0.0;
  for (int step = 0; step < steps; ++step)
    for (int j = 0; j < kFragmentTileKeys; ++j) exact_max = std::max(exact_max, double(logit(step, r, j)));
  for (int step = 0; step < steps; ++step)
    for (int j = 0; j < kFragmentTileKeys; ++j) exact_sum += std::exp(double(logit(step, r, j)) - exact_max);
  const double sum = rows(steps - 1, r, 2);
  for (int step = 0; step < steps; ++step) {
    double later = 1.0;  // the rescales of the steps after this one
    for (int t = step + 1; t < steps; ++t) later *= rows(t, r, 0);
    for (int j = 0; j < kFragmentTileKeys; ++j) {
      const double exact = std::exp(double(logit(step, r, j)) - exact_max) / exact_sum;
      EXPECT_NEAR(w(step, r, j) * later / sum, exact, 1e-5 * exact + 1e-9)
          << "row " << r << " step " << step << " key " << j;
    }
  }
}

// One warp's online softmax over three tiles of scores made up on the spot (no products): row r's
// logits peak at 0.25 r in tile 0 (row 15 sees no key there), 3 higher in tile 1 (4.3 in log2:
// under kSoftmaxMaxLag) and, in tile 2, 6.5 higher for even rows and 5.5 for odd ones (9.4 and 7.9
// in log2: a lag taken in nats would keep both). Each step's alpha, running max and weights come
// back; the host checks that the max moves only past the lag (alpha 1 where it stays or moves off
// -inf), that weights stay under 2^kSoftmaxMaxLag (odd rows reach e^5.5 = 245), and that the
// weights, rescaled by the later steps' alphas and divided by the final sum, are the exact softmax.
struct LaggedSoftmaxSteps {
  static constexpr int kSteps = 3, kKeys = kFragmentTileKeys, kRows = kFragmentRows;
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> weights;  // [step][row][key]
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> rows;     // [step][row][alpha, max, sum]

  KOKKOS_INLINE_FUNCTION static float logit(int step, int row, int key) {
    if (step == 0 && row == 15) return -compat::infinity();
    const float rise = step == 0 ? 0.0f : step == 1 ? 3.0f : row % 2 ? 5.5f : 6.5f;
    const float peak = 0.25f * float(row) + rise;
    return peak - 0.5f * float((key * 7 + row) % 9);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type&) const {
    const int lane = warp_lane();
    WarpRowFragments<> f;
    for (int step = 0; step < kSteps; ++step) {
      WarpScores s;
      for (int j = 0; j < kKeys / 8; ++j)
        for (int i = 0; i < 4; ++i) s[j][i] = logit(step, fragment_row(lane, i), 8 * j + fragment_column(lane, i));
      float alpha[2];
      warp_softmax_weights(f, s, 1.0f, alpha);
      record_softmax_step(f, s, alpha, step, weights, rows);
    }
  }
};

TEST(WarpRows, RowMaximaMoveOnlyPastTheLag) {
  if (!register_rows_available<test::Space>()) GTEST_SKIP() << "the row tiles need CUDA tensor cores";
  using L = LaggedSoftmaxSteps;
  const L l{decltype(L::weights)("w", L::kSteps, L::kRows, L::kKeys), decltype(L::rows)("r", L::kSteps, L::kRows, 3)};
  Kokkos::parallel_for(test::Policy(1, 1, 32), l);
  const auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l.weights);
  const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l.rows);
  const double lag = std::exp2(double(kSoftmaxMaxLag));
  for (int r = 0; r < L::kRows; ++r) {
    // The max: set by the first tile a row sees, kept through tile 1's rise of 3, moved by tile 2's
    // rise of 6.5 (even rows) and kept through its rise of 5.5 (odd rows; row 15's max is tile 1's).
    const double none = -std::numeric_limits<double>::infinity();
    const double first = r == 15 ? 3.0 + 0.25 * r : 0.25 * r;
    const double expected_max[L::kSteps] = {r == 15 ? none : first, first, r % 2 ? first : 0.25 * r + 6.5};
    for (int step = 0; step < L::kSteps; ++step) {
      EXPECT_FLOAT_EQ(rows(step, r, 1), float(expected_max[step])) << "row " << r << " step " << step;
      // Alpha is 1 where the max stays and where it moves off -inf (nothing seen yet to rescale).
      const bool moved = step > 0 && rows(step, r, 1) != rows(step - 1, r, 1);
      const bool from_none = step == 0 || rows(step - 1, r, 1) == float(none);
      if (from_none || !moved) EXPECT_EQ(rows(step, r, 0), 1.0f) << "row " << r << " step " << step;
      for (int j = 0; j < L::kKeys; ++j)
        EXPECT_LE(w(step, r, j), lag) << "row " << r << " step " << step << " key " << j;
    }
    expect_steps_make_the_exact_softmax(L::logit, L::kSteps, r, w, rows);
  }
}

// One warp's softmax over five tiles of made-up scores, the first by warp_softmax_weights and the
// others at the kept maxima (warp_softmax_weights_at_kept_max), each miss taken again by
// warp_softmax_weights as the prefill kernel does. Row r's logits peak at 0.25 r in tile 0 (row 15
// sees no key: its max stays -inf, so tile 1 misses), then 1 higher; in tile 2 even rows rise 20
// (29 in log2: past the lane sums' 2^15, the max moves by a power of two) and odd ones 0.5; in
// tile 3 row 3 rises 100 (144 in log2: its weights overflow, a miss); tile 4 rises no more. The
// host checks which steps missed, that a miss left the state as it was, that kept weights stay
// under 2^15 (under 2^kSoftmaxMaxLag where the max moved) with alpha 1 or a power of two, and that
// the weights rescaled by the later alphas and divided by the final sum are the exact softmax.
struct KeptMaxSoftmaxSteps {
  static constexpr int kSteps = 5, kKeys = kFragmentTileKeys, kRows = kFragmentRows;
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> weights;  // [step][row][key]
  // [step][row][alpha, max, sum, missed]; missed: the kept-max step returned false and left the
  // lane's state as it was
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> rows;

  KOKKOS_INLINE_FUNCTION static float logit(int step, int row, int key) {
    if (step == 0 && row == 15) return -compat::infinity();
    float peak = 0.25f * float(row) + (step > 0 ? 1.0f : 0.0f);
    if (step >= 2) peak += row % 2 ? 0.5f : 20.0f;
    if (step >= 3 && row == 3) peak += 100.0f;
    return peak - 0.5f * float((key * 7 + row) % 9);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type&) const {
    const int lane = warp_lane();
    WarpRowFragments<> f;
    for (int step = 0; step < kSteps; ++step) {
      WarpScores s;
      const auto scores = [&] {
        for (int j = 0; j < kKeys / 8; ++j)
          for (int i = 0; i < 4; ++i) s[j][i] = logit(step, fragment_row(lane, i), 8 * j + fragment_column(lane, i));
      };
      scores();
      const SoftmaxState before[2] = {f.state[0], f.state[1]};
      float alpha[2];
      bool missed = false;
      if (step == 0) {
        warp_softmax_weights(f, s, 1.0f, alpha);
      } else if (!warp_softmax_weights_at_kept_max(f, s, 1.0f, alpha)) {
        missed = true;
        for (int h = 0; h < 2; ++h)
          if (f.state[h].max != before[h].max || f.state[h].sum != before[h].sum) missed = false;  // not as it was
        scores();
        warp_softmax_weights(f, s, 1.0f, alpha);
      }
      record_softmax_step(f, s, alpha, step, weights, rows);
      for (int h = 0; h < 2; ++h)
        if ((lane & 3) == 0) rows(step, fragment_row(lane, 2 * h), 3) = missed ? 1.0f : 0.0f;
    }
  }
};

TEST(WarpRows, KeptMaximaTakeRisingScoresByPowersOfTwoAndMissPastTheExponentsRange) {
  if (!register_rows_available<test::Space>()) GTEST_SKIP() << "the row tiles need CUDA tensor cores";
  using K = KeptMaxSoftmaxSteps;
  const K k{decltype(K::weights)("w", K::kSteps, K::kRows, K::kKeys), decltype(K::rows)("r", K::kSteps, K::kRows, 4)};
  Kokkos::parallel_for(test::Policy(1, 1, 32), k);
  const auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k.weights);
  const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k.rows);
  // A miss is the warp's: tile 1 (row 15's max -inf) and tile 3 (row 3's overflow) for every row.
  for (int r = 0; r < K::kRows; ++r)
    for (int step = 1; step < K::kSteps; ++step)
      EXPECT_EQ(rows(step, r, 3), step == 1 || step == 3 ? 1.0f : 0.0f) << "row " << r << " step " << step;
  for (int r = 0; r < K::kRows; ++r) {
    // Tile 2 moves the kept max of even rows (weights e^20 = 2^28.9) by a power of two: alpha 2^-k.
    const double alpha2 = rows(2, r, 0);
    if (r % 2 == 0) {
      EXPECT_LT(alpha2, 1.0) << "row " << r;
      EXPECT_EQ(std::exp2(std::round(std::log2(alpha2))), alpha2) << "row " << r;
    } else {
      EXPECT_EQ(alpha2, 1.0) << "row " << r;
    }
    for (int step = 1; step < K::kSteps; ++step) {
      if (rows(step, r, 3) != 0.0f) continue;  // a miss, taken again by the full step
      const bool moved = rows(step, r, 0) != 1.0f;
      // (the moved max's power of two from the hardware log2: within 1e-5 of the weight's)
      for (int j = 0; j < K::kKeys; ++j)
        EXPECT_LE(w(step, r, j), moved ? std::exp2(double(kSoftmaxMaxLag)) * (1 + 1e-5) : 32768.0)
            << "row " << r << " step " << step << " key " << j;
    }
    expect_steps_make_the_exact_softmax(K::logit, K::kSteps, r, w, rows);
  }
}

// One warpgroup (4 warps, 64 rows, head 128): Q rows staged and loaded as the prefill kernel does,
// K and V written in the core-matrix layout, then two steps of warpgroup_scores, a masked
// warp_softmax_step and warpgroup_accumulate, as in RowProducts.
template <class T>
struct WarpgroupProducts {
  using Value = T;
  static constexpr int kHead = kWarpgroupHead, kStride = kHead + kFragmentTilePad, kKeys = kFragmentTileKeys;
  static constexpr int kWarps = kWarpgroupWarps, kRows = kWarps * kFragmentRows, kQRows = kRows;
  static constexpr std::size_t kRowBytes =
      std::size_t(kRows) * kStride * sizeof(T);  // a region: Q rows, K, output rows
  static constexpr std::size_t kScratchBytes = 2 * kRowBytes + kWarpgroupTileAlign;
  static constexpr float kScale = 0.125f;
  Kokkos::View<T**, Kokkos::LayoutRight, test::Memory> q, k, v, out;  // [64][head], [keys][head] ×2, [64][head]
  Kokkos::View<float**, Kokkos::LayoutRight, test::Memory> scores;    // [64 rows][keys]

  KOKKOS_INLINE_FUNCTION static int keys_seen(int row) { return row == 7 ? 0 : row + 1; }

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    auto* k_tile = static_cast<T*>(team.team_scratch(0).get_shmem_aligned(2 * kRowBytes, kWarpgroupTileAlign));
    T* const v_tile = k_tile + kRowBytes / sizeof(T);
    const int row0 = kFragmentRows * team.team_rank(), lane = warp_lane();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, kRows * kHead),
                         [&](int i) { v_tile[(i / kHead) * kStride + i % kHead] = q(i / kHead, i % kHead); });
    team.team_barrier();
    WarpRowFragments<kHead> f;
    warp_load_q<T>(f, v_tile + row0 * kStride, kStride, kHead);
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, kKeys * kHead), [&](int i) {
      const int at = warpgroup_tile_offset(i / kHead, i % kHead) / int(sizeof(T));
      k_tile[at] = k(i / kHead, i % kHead);
      v_tile[at] = v(i / kHead, i % kHead);
    });
    warpgroup_tile_ready();
    team.team_barrier();
    for (int step = 0; step < 2; ++step) {
      WarpScores s;
      warpgroup_scores<T>(f, k_tile, s);
      for (int j = 0; j < kKeys / 8; ++j)
        for (int i = 0; i < 4; ++i) {
          const int row = row0 + fragment_row(lane, i), key = 8 * j + fragment_column(lane, i);
          if (step == 0) scores(row, key) = s[j][i];
          if ((key < 32) != (step == 0) || key >= keys_seen(row)) s[j][i] = -compat::infinity();
        }
      warp_softmax_step(f, s, kScale);
      warpgroup_accumulate<T>(f, s, v_tile);
    }
    warp_finish_sums(f);
    const float row_scale[2] = {f.state[0].inverse_sum(), f.state[1].inverse_sum()};
    warp_write_rows(f, row_scale, k_tile + row0 * kStride, kStride, kHead);
    warp_store_rows(k_tile + row0 * kStride, kStride, kHead, kFragmentRows, [&](int r) { return &out(row0 + r, 0); });
  }
};

TEST(WarpgroupRows, ScoresSoftmaxStepsAndWeightedSumsMatchTheHost) {
  if (!warpgroup_mma_available<test::Space>()) GTEST_SKIP() << "the warpgroup products need an sm_90a build";
  expect_row_products_match_the_host<WarpgroupProducts<fp16_t>>(4e-3);
  expect_row_products_match_the_host<WarpgroupProducts<bf16_t>>(3e-2);
}

// The asynchronous forms as the double-buffered prefill kernel runs them: Q staged into scratch in
// the products' layout (warpgroup_stage_rows, the last rows zeros), step 1's Q·Kᵀ issued beside
// step 0's P·V, which sets the accumulator, its softmax taken while that P·V is in flight and the
// accumulator rescaled after it lands; over tiles of 64 keys, or of 128 (the steps of a team of two
// warpgroups).
template <class T, int Keys = kFragmentTileKeys>
struct WarpgroupOverlappedProducts : WarpgroupProducts<T> {
  using Base = WarpgroupProducts<T>;
  using Base::kHead, Base::kRows, Base::kScale, Base::kStride;
  static constexpr int kKeys = Keys;
  static constexpr int kQRows = kRows - 3;  // rows staged from q; the rest zeros
  static constexpr std::size_t kQBytes = std::size_t(kRows) * kHead * sizeof(T);
  static constexpr std::size_t kTileBytes = std::size_t(kKeys) * kHead * sizeof(T);
  static constexpr std::size_t kScratchBytes = kQBytes + 2 * kTileBytes + kWarpgroupTileAlign;

  KOKKOS_INLINE_FUNCTION static int keys_seen(int row) {
    return row >= kQRows ? 0 : Base::keys_seen(row) * (kKeys / kFragmentTileKeys);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    auto* q_tile =
        static_cast<T*>(team.team_scratch(0).get_shmem_aligned(kQBytes + 2 * kTileBytes, kWarpgroupTileAlign));
    T* const k_tile = q_tile + kQBytes / sizeof(T);
    T* const v_tile = k_tile + kTileBytes / sizeof(T);
    const int warp = team.team_rank(), row0 = kFragmentRows * warp, lane = warp_lane();
    warpgroup_stage_rows<T>([&](int r) { return &this->q(r < kQRows ? r : 0, 0); }, kQRows, q_tile, warp, lane);
    team_stage_commit();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, kKeys * kHead), [&](int i) {
      const int at = warpgroup_tile_offset<kKeys>(i / kHead, i % kHead) / int(sizeof(T));
      k_tile[at] = this->k(i / kHead, i % kHead);
      v_tile[at] = this->v(i / kHead, i % kHead);
    });
    team_stage_wait(0);
    warpgroup_tile_ready();
    team.team_barrier();
    // The accumulator as the kernel leaves it, unset for the first P·V to set: 1e30 here, which
    // that product (accumulate false) must not read.
    using Fragments = WarpRowFragments<kHead>;
    Fragments f{typename Fragments::OutputSetByFirstProduct{}};
    for (auto& tile : f.o)
      for (float& x : tile) x = 1.0e30f;
    WarpgroupWeightsOf<kKeys> p;
    for (int step = 0; step < 2; ++step) {
      WarpScoresOf<kKeys> s;
      warpgroup_scores_issue<T>(q_tile, k_tile, s);
      if (step == 1) warpgroup_accumulate_issue<T>(f.o, p, v_tile, false);
      if (step == 1)
        warpgroup_wait<1>(s);
      else
        warpgroup_wait<0>(s);
      for (int j = 0; j < kKeys / 8; ++j)
        for (int i = 0; i < 4; ++i) {
          const int row = row0 + fragment_row(lane, i), key = 8 * j + fragment_column(lane, i);
          if (step == 0) this->scores(row, key) = s[j][i];
          if ((key < kKeys / 2) != (step == 0) || key >= keys_seen(row)) s[j][i] = -compat::infinity();
        }
      float alpha[2];
      warp_softmax_weights(f, s, kScale, alpha);
      if (step == 1) warpgroup_wait<0>(f.o);
      warp_rescale_output(f, alpha);
      warpgroup_weights<T>(s, p);
    }
    warpgroup_accumulate_issue<T>(f.o, p, v_tile);
    warpgroup_wait<0>(f.o);
    warp_finish_sums(f);
    const float row_scale[2] = {f.state[0].inverse_sum(), f.state[1].inverse_sum()};
    team.team_barrier();  // every warp's products have read the Q tile, whose rows take the output
    warp_write_rows(f, row_scale, q_tile + row0 * kStride, kStride, kHead);
    warp_store_rows(q_tile + row0 * kStride, kStride, kHead, kFragmentRows,
                    [&](int r) { return &this->out(row0 + r, 0); });
  }
};

TEST(WarpgroupRows, OverlappedProductsMatchTheHost) {
  if (!warpgroup_mma_available<test::Space>()) GTEST_SKIP() << "the warpgroup products need an sm_90a build";
  expect_row_products_match_the_host<WarpgroupOverlappedProducts<fp16_t>>(4e-3);
  expect_row_products_match_the_host<WarpgroupOverlappedProducts<bf16_t>>(3e-2);
}

TEST(WarpgroupRows, OverlappedProductsOverWideTilesMatchTheHost) {
  if (!warpgroup_mma_available<test::Space>()) GTEST_SKIP() << "the warpgroup products need an sm_90a build";
  expect_row_products_match_the_host<WarpgroupOverlappedProducts<fp16_t, 2 * kFragmentTileKeys>>(4e-3);
  expect_row_products_match_the_host<WarpgroupOverlappedProducts<bf16_t, 2 * kFragmentTileKeys>>(3e-2);
}

// The bulk tile copies as the two-warpgroup prefill kernel runs them: the maps published by one
// kernel, then a team of 8 warps copies a sequence's whole 128-key K and V tiles stage after stage
// through the same two barriers (their phases turning), each tile read back through the products'
// layout.
template <class Maps>
struct PublishTileMaps {
  Maps maps;
  Maps* to;
  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    publish_tile_maps(team, maps, to);
  }
};

// The tensor maps of a test cache: its K rows, `values` as V, tiles of `rows` keys.
std::optional<CacheTileMaps> cache_tile_maps_of(const PagedCache<fp16_t>& paged, const PagedKvAccessor<fp16_t>& values,
                                                int rows) {
  Geometry g;
  g.num_kv_heads = kKvHeads, g.head_size = kWarpgroupHead, g.num_blocks = kNumBlocks;
  g.block_size = paged.block_size;
  return encode_cache_tile_maps<test::Space>(paged.accessor(), values, g, rows);
}

struct BulkTileCopies {
  static constexpr int kRows = 2 * kFragmentTileKeys;
  using Copy = TeamBulkTileCopy<kRows>;
  static constexpr std::size_t kScratchBytes = 2 * Copy::kTileBytes + 16 + kWarpgroupTileAlign;
  Kokkos::View<CacheTileMaps*, test::Memory> maps;
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, test::Memory> block_ids;
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> k_out, v_out;  // [stage][key][head element]
  FastDivisor block_size;
  int box_rows, stages;

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
#if defined(__CUDA_ARCH__)
    auto* k_tile =
        static_cast<fp16_t*>(team.team_scratch(0).get_shmem_aligned(2 * Copy::kTileBytes + 16, kWarpgroupTileAlign));
    const fp16_t* v_tile = k_tile + Copy::kTileBytes / 2;
    const unsigned k_to = unsigned(__cvta_generic_to_shared(k_tile)), v_to = k_to + Copy::kTileBytes;
    const TileBarriers barriers{v_to + Copy::kTileBytes};
    const int warp = team.team_rank(), lane = warp_lane();
    barriers.init(maps.data(), warp, lane);
    team.team_barrier();
    const Copy copy{maps.data(), box_rows, kKvHead};
    for (int stage = 0; stage < stages; ++stage) {
      copy.copy_pair(k_to, v_to, barriers, stage, block_ids.data(), block_size, stage * kRows, warp, team.team_size(),
                     lane);
      barriers.wait(stage);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, kRows * kWarpgroupHead), [&](int i) {
        const int key = i / kWarpgroupHead, d = i % kWarpgroupHead, at = warpgroup_tile_offset<kRows>(key, d) / 2;
        k_out(stage, key, d) = to_float(k_tile[at]);
        v_out(stage, key, d) = to_float(v_tile[at]);
      });
      team.team_barrier();  // every thread has read the tiles before the next stage's copies
    }
#else
    (void)team;
#endif
  }
};

TEST(TeamBulkCopy, WholeTilesArriveInTheProductsLayout) {
  if (!warpgroup_mma_available<test::Space>()) GTEST_SKIP() << "the bulk copies need an sm_90a build";
  constexpr int kRows = BulkTileCopies::kRows;
  for (const int block : {32, 64, 128}) {  // 7 blocks: 1, 3 and 4 whole tiles
    const PagedCache<fp16_t> paged(kWarpgroupHead, block);
    const std::optional<CacheTileMaps> maps = cache_tile_maps_of(paged, paged.shifted_values(), kRows);
    ASSERT_TRUE(maps) << "block size " << block;
    const int stages = std::min(4, kNumBlocks * block / kRows);
    using Rows = decltype(BulkTileCopies::k_out);
    const BulkTileCopies copies{decltype(BulkTileCopies::maps)("maps", 1),
                                paged.block_ids,
                                Rows("k", stages, kRows, kWarpgroupHead),
                                Rows("v", stages, kRows, kWarpgroupHead),
                                FastDivisor(block),
                                cache_tile_box_rows(block, kRows),
                                stages};
    Kokkos::parallel_for(test::Policy(1, 32), PublishTileMaps<CacheTileMaps>{*maps, copies.maps.data()});
    test::Policy policy(1, 2 * kWarpgroupWarps, 32);
    ASSERT_LE(BulkTileCopies::kScratchBytes, team_scratch_limit<test::Space>());  // past Kokkos 4.6's 48 KB
    policy.set_scratch_size(0, Kokkos::PerTeam(BulkTileCopies::kScratchBytes));
    allow_team_scratch(policy, copies);
    Kokkos::parallel_for(policy, copies);
    const auto k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copies.k_out);
    const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copies.v_out);
    for (int stage = 0; stage < stages; ++stage)
      for (int j = 0; j < kRows; ++j)
        for (int d = 0; d < kWarpgroupHead; ++d) {
          const int key = stage * kRows + j;
          ASSERT_EQ(k(stage, j, d), paged.key_value(key, d)) << "block " << block << " key " << key << " d " << d;
          ASSERT_EQ(v(stage, j, d), paged.key_value(key, d) - 4.0f) << "block " << block << " key " << key;
        }
  }
}

// The query and output rows' copies as the prefill kernel of one warpgroup runs them: a Q block
// loaded by the copy engine into the products' layout (a block past the tensor's last token gets
// zeros there), the tile stored back to the output rows (rows past the last token left alone),
// and a warp's output fragments written into the layout (warp_write_tile_rows) and stored.
constexpr int kRowTokens = 40, kRowHeads = 8, kRowHeadsPerKv = 4, kRowBlockTokens = 16;

// Exact in fp16: whole numbers under 2048.
float row_value(int token, int head, int d) { return float((token * 7 + head * 3 + d) % 251); }
// The output fragments' values: row r of the block, column d.
KOKKOS_INLINE_FUNCTION float fragment_value(int r, int d) { return float((r * 5 + d * 3) % 509); }

struct BulkRowCopies {
  static constexpr std::size_t kTileBytes = 2 * kWarpgroupRows * 128;
  static constexpr std::size_t kScratchBytes = kTileBytes + 8 + kWarpgroupTileAlign;
  Kokkos::View<RowTileMaps*, test::Memory> maps;
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> loaded;  // [block][row][head element]
  int head0;
  int token0[2];  // the blocks' first tokens: the first whole, the second past the last token

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
#if defined(__CUDA_ARCH__)
    auto* tile = static_cast<fp16_t*>(team.team_scratch(0).get_shmem_aligned(kTileBytes + 8, kWarpgroupTileAlign));
    const unsigned to = unsigned(__cvta_generic_to_shared(tile)), barrier = to + unsigned(kTileBytes);
    const bool first_thread = team.team_rank() == 0 && warp_lane() == 0;
    if (first_thread) {
      pipeline_init(barrier, 1);
      pipeline_init_fence();
      acquire_tile_maps(maps.data());
    }
    team.team_barrier();
    for (int block = 0; block < 2; ++block) {
      if (first_thread) {
        bulk_store_wait_read();  // the last block's store has read the tile
        bulk_copy_q_block(maps.data(), to, barrier, head0, token0[block]);
      }
      pipeline_wait(barrier, unsigned(block) & 1u);
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, kWarpgroupRows * kWarpgroupHead), [&](int i) {
        const int r = i / kWarpgroupHead, d = i % kWarpgroupHead;
        loaded(block, r, d) = to_float(tile[warpgroup_tile_offset<kWarpgroupRows>(r, d) / 2]);
      });
      team.team_barrier();  // every thread has read the tile
      if (first_thread) bulk_store_out_block(maps.data(), to, head0, token0[block]);
    }
    // A warp's fragments into the tile, then out as the first block's rows of heads head0 - 4 on.
    WarpRowFragments<kWarpgroupHead> f;
    const int lane = warp_lane(), row0 = team.team_rank() * kFragmentRows;
    for (int n = 0; n < kWarpgroupHead / 8; ++n)
      for (int i = 0; i < 4; ++i)
        f.o[n][i] = fragment_value(row0 + fragment_row(lane, i), 8 * n + fragment_column(lane, i));
    const float row_scale[2] = {1.0f, 1.0f};
    if (first_thread) bulk_store_wait_read();
    team.team_barrier();
    warp_write_tile_rows(f, row_scale, tile, row0);
    warpgroup_tile_ready();
    team.team_barrier();
    if (first_thread) {
      bulk_store_out_block(maps.data(), to, head0 - kRowHeadsPerKv, token0[0]);
      bulk_store_wait();
    }
#else
    (void)team;
#endif
  }
};

TEST(TeamBulkCopy, QueryBlocksRoundTripThroughTheProductsLayout) {
  if (!warpgroup_mma_available<test::Space>()) GTEST_SKIP() << "the bulk copies need an sm_90a build";
  using Rows = Kokkos::View<fp16_t***, Kokkos::LayoutRight, test::Memory>;
  const Rows q("q", kRowTokens, kRowHeads, kWarpgroupHead), out("out", kRowTokens, kRowHeads, kWarpgroupHead);
  const auto q_host = Kokkos::create_mirror_view(q);
  for (int t = 0; t < kRowTokens; ++t)
    for (int h = 0; h < kRowHeads; ++h)
      for (int d = 0; d < kWarpgroupHead; ++d) q_host(t, h, d) = from_float<fp16_t>(row_value(t, h, d));
  Kokkos::deep_copy(q, q_host);
  Geometry g;
  g.num_q_heads = kRowHeads, g.num_kv_heads = kRowHeads / kRowHeadsPerKv, g.head_size = kWarpgroupHead;
  const std::optional<RowTileMaps> maps = encode_row_tile_maps<test::Space>(q, out, g, kRowBlockTokens);
  ASSERT_TRUE(maps);
  EXPECT_FALSE(encode_row_tile_maps<test::Space>(q, out, g, kRowBlockTokens / 2)) << "32 rows are no warpgroup's";
  const int head0 = kRowHeadsPerKv, token0[2] = {kRowBlockTokens, 2 * kRowBlockTokens};  // tokens 32-47 of 40
  const BulkRowCopies copies{decltype(BulkRowCopies::maps)("maps", 1),
                             decltype(BulkRowCopies::loaded)("loaded", 2, kWarpgroupRows, kWarpgroupHead),
                             head0,
                             {token0[0], token0[1]}};
  Kokkos::parallel_for(test::Policy(1, 32), PublishTileMaps<RowTileMaps>{*maps, copies.maps.data()});
  test::Policy policy(1, kWarpgroupWarps, 32);
  policy.set_scratch_size(0, Kokkos::PerTeam(BulkRowCopies::kScratchBytes));
  allow_team_scratch(policy, copies);
  Kokkos::parallel_for(policy, copies);
  const auto loaded = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copies.loaded);
  const auto stored = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int block = 0; block < 2; ++block)
    for (int r = 0; r < kWarpgroupRows; ++r) {
      const int token = token0[block] + r / kRowHeadsPerKv, head = head0 + r % kRowHeadsPerKv;
      for (int d = 0; d < kWarpgroupHead; ++d)
        ASSERT_EQ(loaded(block, r, d), token < kRowTokens ? row_value(token, head, d) : 0.0f)
            << "block " << block << " row " << r << " d " << d;
    }
  for (int t = 0; t < kRowTokens; ++t)
    for (int h = 0; h < kRowHeads; ++h)
      for (int d = 0; d < kWarpgroupHead; ++d) {
        const int r = (t - token0[0]) * kRowHeadsPerKv + h % kRowHeadsPerKv;
        const bool first_block = t >= token0[0] && t < token0[1];
        const float expected = t < token0[0]               ? 0.0f
                               : first_block && h >= head0 ? row_value(t, h, d)
                               : first_block               ? fragment_value(r, d)
                               : h >= head0                ? row_value(t, h, d)
                                                           : 0.0f;
        ASSERT_EQ(to_float(stored(t, h, d)), expected) << "token " << t << " head " << h << " d " << d;
      }
}

// A producer warp's boxes through a ring, as the producer warpgroup of the two-warpgroup prefill
// kernel fills its K ring: lane b copies block b of each whole tile (TeamBulkTileCopy::copy_block)
// into slot n mod 2 of TileRings, and a warpgroup of consumers waits for each tile, reads it back
// through the products' layout and frees the slot; 4 tiles over 2 slots, so that both barriers
// turn their phases. No team barrier after the rings' init: the roles meet only on the barriers.
struct RingedBoxCopies {
  static constexpr int kRows = 2 * kFragmentTileKeys;
  using Copy = TeamBulkTileCopy<kRows>;
  using Rings = TileRings<2, 1>;
  static constexpr std::size_t kScratchBytes = 2 * Copy::kTileBytes + Rings::kBytes + kWarpgroupTileAlign;
  Kokkos::View<CacheTileMaps*, test::Memory> maps;
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, test::Memory> block_ids;
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> k_out;  // [tile][key][head element]
  FastDivisor block_size;
  int box_rows, tiles;

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
#if defined(__CUDA_ARCH__)
    auto* slots = static_cast<fp16_t*>(
        team.team_scratch(0).get_shmem_aligned(2 * Copy::kTileBytes + Rings::kBytes, kWarpgroupTileAlign));
    const unsigned slot0 = unsigned(__cvta_generic_to_shared(slots));
    const Rings rings{slot0 + 2 * Copy::kTileBytes};
    const int warp = team.team_rank(), lane = warp_lane(), boxes = kRows / box_rows;
    if (warp == 0 && lane == 0) {
      rings.init(boxes, kWarpgroupWarps);
      acquire_tile_maps(maps.data());
    }
    team.team_barrier();
    if (warp == 0) {
      const Copy copy{maps.data(), box_rows, kKvHead};
      for (int n = 0; n < tiles; ++n) {
        int slot = 0, block = 0;
        if (lane < boxes) block = block_ids[block_size.divmod(n * kRows + lane * box_rows, slot)];
        rings.wait_k_free(n);
        if (lane < boxes)
          copy.copy_block(slot0 + unsigned(Rings::k_slot(n)) * Copy::kTileBytes, false, rings.k_full_barrier(n), lane,
                          slot, block);
      }
    } else if (warp >= kWarpgroupWarps) {
      const int thread = (warp - kWarpgroupWarps) * 32 + lane;
      for (int n = 0; n < tiles; ++n) {
        rings.wait_k_full(n);
        const fp16_t* tile = slots + Rings::k_slot(n) * (Copy::kTileBytes / 2);
        for (int i = thread; i < kRows * kWarpgroupHead; i += kWarpgroupWarps * 32) {
          const int key = i / kWarpgroupHead, d = i % kWarpgroupHead;
          k_out(n, key, d) = to_float(tile[warpgroup_tile_offset<kRows>(key, d) / 2]);
        }
        __syncwarp();
        rings.k_read(n, lane == 0);
      }
    }
#else
    (void)team;
#endif
  }
};

TEST(TileRings, BoxedTilesReachTheConsumersSlotAfterSlot) {
  if (!warpgroup_mma_available<test::Space>()) GTEST_SKIP() << "the rings and bulk copies need an sm_90a build";
  constexpr int kRows = RingedBoxCopies::kRows, kTiles = 4;
  for (const int block : {16, 32, 64}) {  // 8, 4 and 2 boxes a tile, block ids cycling over the cache's 7 blocks
    const PagedCache<fp16_t> paged(kWarpgroupHead, block);
    const std::optional<CacheTileMaps> maps = cache_tile_maps_of(paged, paged.accessor(), kRows);
    ASSERT_TRUE(maps) << "block size " << block;
    const int blocks = kTiles * kRows / block;
    Kokkos::View<std::int32_t*, Kokkos::LayoutRight, test::Memory> ids("ids", blocks);
    auto host_ids = Kokkos::create_mirror_view(ids);
    for (int i = 0; i < blocks; ++i) host_ids(i) = (3 * i + 1) % kNumBlocks;
    Kokkos::deep_copy(ids, host_ids);
    const RingedBoxCopies copies{decltype(RingedBoxCopies::maps)("maps", 1),
                                 ids,
                                 decltype(RingedBoxCopies::k_out)("k", kTiles, kRows, kWarpgroupHead),
                                 FastDivisor(block),
                                 cache_tile_box_rows(block, kRows),
                                 kTiles};
    Kokkos::parallel_for(test::Policy(1, 32), PublishTileMaps<CacheTileMaps>{*maps, copies.maps.data()});
    // Past Kokkos 4.6's 48 KB: lifts its check, which this test alone (a filter) would not have had.
    ASSERT_LE(RingedBoxCopies::kScratchBytes, team_scratch_limit<test::Space>());
    test::Policy policy(1, 2 * kWarpgroupWarps, 32);
    policy.set_scratch_size(0, Kokkos::PerTeam(RingedBoxCopies::kScratchBytes));
    allow_team_scratch(policy, copies);
    Kokkos::parallel_for(policy, copies);
    const auto k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copies.k_out);
    for (int n = 0; n < kTiles; ++n)
      for (int j = 0; j < kRows; ++j)
        for (int d = 0; d < kWarpgroupHead; ++d) {
          const int key = n * kRows + j;
          ASSERT_EQ(k(n, j, d), PagedCache<fp16_t>::expected(host_ids(key / block), key % block, kKvHead, d))
              << "block " << block << " key " << key << " d " << d;
        }
  }
}

// The producer's rows warp through a ring, as it fills the two-warpgroup prefill's Q buffers: item
// n's rows (the first count(n) of 64, zeros past them) staged by cp.async (warpgroup_stage_rows,
// one warp for the warpgroup's four) into slot n mod 2, each lane arriving on the slot's `full`
// barrier once its copies land (pipeline_arrive_on_copies) and once its own stores are done (lane 0
// writes the item's number beside them); a warpgroup of consumers waits for each, reads the rows
// back through the products' layout and the number, and frees the slot, every thread arriving. 5
// items over 2 slots, so that the phases turn. `held`: as the producer's partial K and V tiles go,
// each lane holds the phase open for its copies (pipeline_hold_for_copies) and the first 8 lanes
// arrive, the barrier counting 8; a hold that did nothing fails here only where a consumer reads
// before the copies land (timing), so racecheck of this test is its stronger check.
struct RingedRowCopies {
  static constexpr int kRows = kWarpgroupRows, kSlotElements = kRows * kWarpgroupHead;
  using Rings = TileRings<0, 0, 2>;
  static constexpr std::size_t kBytes = 2 * kSlotElements * sizeof(fp16_t) + Rings::kBytes + 2 * sizeof(int);
  static constexpr std::size_t kScratchBytes = kBytes + kWarpgroupTileAlign;
  Kokkos::View<fp16_t***, Kokkos::LayoutRight, test::Memory> rows;  // [item][row][head element]
  Kokkos::View<float***, Kokkos::LayoutRight, test::Memory> rows_out;
  Kokkos::View<int*, test::Memory> items_out;
  bool held = false;

  KOKKOS_INLINE_FUNCTION static int count(int n) { return kRows - 9 * n; }
  static float value(int n, int r, int d) { return float((n * kRows + r) * 3 % 251) - float(d % 7); }

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
#if defined(__CUDA_ARCH__)
    auto* slots =
        static_cast<fp16_t*>(team.team_scratch(0).get_shmem_aligned(std::size_t{kBytes}, kWarpgroupTileAlign));
    const Rings rings{unsigned(__cvta_generic_to_shared(slots + 2 * kSlotElements))};
    int* const handed = reinterpret_cast<int*>(reinterpret_cast<char*>(slots + 2 * kSlotElements) + Rings::kBytes);
    const int warp = team.team_rank(), lane = warp_lane(), items = int(rows.extent(0));
    if (warp == 0 && lane == 0) rings.init(0, kWarpgroupWarps, held ? 8 : 2 * 32, kWarpgroupWarps * 32);
    team.team_barrier();
    if (warp == 0) {
      for (int n = 0; n < items; ++n) {
        rings.wait_q_free(n);
        for (int w = 0; w < kWarpgroupWarps; ++w)
          warpgroup_stage_rows<fp16_t>([&](int r) { return &rows(n, r, 0); }, count(n),
                                       slots + Rings::q_slot(n) * kSlotElements, w, lane);
        if (held)
          pipeline_hold_for_copies(rings.q_full_barrier(n));
        else
          pipeline_arrive_on_copies(rings.q_full_barrier(n));
        if (lane == 0) handed[Rings::q_slot(n)] = 100 + n;
        if (held) __syncwarp();  // as the producer's partial tiles: every lane's hold before the arrivals
        pipeline_arrive(rings.q_full_barrier(n), !held || lane < 8);
      }
    } else if (warp >= kWarpgroupWarps) {
      const int thread = (warp - kWarpgroupWarps) * 32 + lane;
      for (int n = 0; n < items; ++n) {
        rings.wait_q_full(n);
        const fp16_t* slot = slots + Rings::q_slot(n) * kSlotElements;
        for (int i = thread; i < kSlotElements; i += kWarpgroupWarps * 32) {
          const int r = i / kWarpgroupHead, d = i % kWarpgroupHead;
          rows_out(n, r, d) = to_float(slot[warpgroup_tile_offset<kRows>(r, d) / 2]);
        }
        if (thread == 0) items_out(n) = handed[Rings::q_slot(n)];
        rings.q_read(n, true);
      }
    }
#else
    (void)team;
#endif
  }
};

void check_ringed_row_copies(bool held) {
  if (!warpgroup_mma_available<test::Space>()) GTEST_SKIP() << "the rings need an sm_90a build";
  constexpr int kItems = 5, kRows = RingedRowCopies::kRows;
  const RingedRowCopies copies{decltype(RingedRowCopies::rows)("rows", kItems, kRows, kWarpgroupHead),
                               decltype(RingedRowCopies::rows_out)("rows_out", kItems, kRows, kWarpgroupHead),
                               decltype(RingedRowCopies::items_out)("items_out", kItems), held};
  auto host_rows = Kokkos::create_mirror_view(copies.rows);
  for (int n = 0; n < kItems; ++n)
    for (int r = 0; r < kRows; ++r)
      for (int d = 0; d < kWarpgroupHead; ++d) host_rows(n, r, d) = from_float<fp16_t>(RingedRowCopies::value(n, r, d));
  Kokkos::deep_copy(copies.rows, host_rows);
  test::Policy policy(1, 2 * kWarpgroupWarps, 32);
  policy.set_scratch_size(0, Kokkos::PerTeam(RingedRowCopies::kScratchBytes));
  allow_team_scratch(policy, copies);
  Kokkos::parallel_for(policy, copies);
  const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copies.rows_out);
  const auto items = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copies.items_out);
  for (int n = 0; n < kItems; ++n) {
    EXPECT_EQ(items(n), 100 + n);
    for (int r = 0; r < kRows; ++r)
      for (int d = 0; d < kWarpgroupHead; ++d)
        ASSERT_EQ(out(n, r, d), r < RingedRowCopies::count(n) ? RingedRowCopies::value(n, r, d) : 0.0f)
            << "item " << n << " row " << r << " d " << d;
  }
}

TEST(TileRings, CopiedRowsReachTheConsumersSlotAfterSlot) { check_ringed_row_copies(false); }

TEST(TileRings, HeldPhasesWaitForTheCopiesTheyHold) { check_ringed_row_copies(true); }

// The bulk copies' box rows: a box a block where blocks divide the tile (in whole 8-row swizzle
// atoms), a box a tile where blocks are multiples of it, none otherwise, nor without a tile (a plan
// of no warpgroups asks with 0 keys).
TEST(CacheTileBoxRows, BoxesNeverStraddleBlocks) {
  for (const int block : {8, 16, 32, 64, 128}) EXPECT_EQ(cache_tile_box_rows(block, 128), block);
  EXPECT_EQ(cache_tile_box_rows(128, 64), 64);
  EXPECT_EQ(cache_tile_box_rows(256, 128), 128);
  for (const int block : {0, 1, 4, 5, 24, 96, 200, 544}) EXPECT_EQ(cache_tile_box_rows(block, 128), 0) << block;
  for (const int block : {1, 16, 64}) EXPECT_EQ(cache_tile_box_rows(block, 0), 0) << block;
}

TEST(FastDivisor, MatchesIntegerDivision) {
  const auto check = [](int d, int n) {
    int remainder = -1;
    const int quotient = FastDivisor(d).divmod(n, remainder);
    ASSERT_EQ(quotient, n / d) << n << " / " << d;
    ASSERT_EQ(remainder, n % d) << n << " % " << d;
  };
  constexpr int kTop = std::numeric_limits<int>::max();
  for (int d = 1; d <= 600; ++d) {
    for (int n = 0; n < 4 * 1024; ++n) check(d, n);
    for (int n = kTop; n > kTop - 4 * 1024; --n) check(d, n);  // the top of the range
  }
  for (const int d : {1000, 4097, 65535, 65536, 1 << 20, 999983, (1 << 30) - 1, 1 << 30})
    for (const int n : {0, 1, d - 1, d, d + 1, 123456789, kTop}) check(d, n);
}

// Threads of a team, or (GPU) the kernels' layout of warps of 32 vector lanes.
TEST(TeamVote, EveryThreadLearnsWhetherAnyThreadOfItsTeamVoted) {
  const bool host = host_backend<test::Space>();
  const int teams = 8;
  std::vector<std::pair<int, int>> shapes = {{host ? std::min(2, test::Space().concurrency()) : 128, 1}};
  if (!host) shapes.push_back({4, 32});
  for (const auto& [threads, lanes] : shapes) {
    const TeamVotes votes{decltype(TeamVotes::learned)("learned", teams, threads, lanes)};
    Kokkos::parallel_for(test::Policy(teams, threads, lanes), votes);
    const auto learned = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), votes.learned);
    for (int t = 0; t < teams; ++t)
      for (int r = 0; r < threads; ++r)
        for (int l = 0; l < lanes; ++l)
          EXPECT_EQ(learned(t, r, l), t % 4 == 0 ? 0 : 1)
              << threads << " threads of " << lanes << " lanes: team " << t << ", thread " << r << ", lane " << l;
  }
}

TEST(TeamArrival, TheLastTeamSeesEveryTeamsWritesAndResetsTheCounter) {
  const int teams = host_backend<test::Space>() ? 16 : 2048, threads = host_backend<test::Space>() ? 1 : 64;
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, test::Memory> values("values", teams, threads);
  Kokkos::View<std::int64_t*, test::Memory> total("total", 1);
  Kokkos::View<std::int32_t*, test::Memory> lasts("lasts", 1);
  Kokkos::View<std::int32_t*, test::Memory> counter("counter", 1);
  const std::int64_t n = std::int64_t(teams) * threads;
  for (int launch = 0; launch < 3; ++launch) {  // each launch finds the counter back at zero
    Kokkos::deep_copy(values, 0);
    Kokkos::deep_copy(total, 0);
    Kokkos::deep_copy(lasts, 0);
    Kokkos::parallel_for(test::Policy(teams, threads), SumAfterLastArrival{values, total, lasts, counter.data()});
    const auto total_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), total);
    const auto lasts_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lasts);
    const auto counter_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counter);
    EXPECT_EQ(total_host(0), n * (n + 1) / 2) << "launch " << launch;
    EXPECT_EQ(lasts_host(0), 1) << "launch " << launch;
    EXPECT_EQ(counter_host(0), 0) << "launch " << launch;
  }
}

TEST(VectorLanes, SumAddsEachThreadsLanes) {
  const int threads = host_backend<test::Space>() ? 1 : 4, lanes = host_backend<test::Space>() ? 1 : 16;
  Kokkos::View<float**, Kokkos::LayoutRight, test::Memory> out("out", threads, lanes);
  Kokkos::parallel_for(test::Policy(1, threads, lanes), LaneSums{out, lanes});
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int t = 0; t < threads; ++t) {
    const float lane_total = float(lanes * 100 * t + lanes * (lanes - 1) / 2);
    for (int l = 0; l < lanes; ++l) EXPECT_EQ(host(t, l), lane_total + float(lanes)) << "thread " << t << " lane " << l;
  }
}

// team_gemm.hpp: Kokkos Kernels' team products against the host's sums, on shapes that leave
// remainders of every register block (rows, keys and head elements not multiples of 4 or 8).
#if defined(KATTN_KOKKOS_KERNELS)
struct TeamGemmProducts {
  Kokkos::View<float*, test::Memory> q, k, v, alpha, scores, acc;  // in: q, k, v, alpha, acc; out: scores, acc
  int block_m, count, head_size;

  KOKKOS_INLINE_FUNCTION void operator()(const test::Policy::member_type& team) const {
    FloatScratch<test::Space> sq(team.team_scratch(0), block_m * head_size),
        sk(team.team_scratch(0), count * head_size), sv(team.team_scratch(0), count * head_size),
        ss(team.team_scratch(0), block_m * count), sacc(team.team_scratch(0), block_m * head_size),
        salpha(team.team_scratch(0), block_m);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m * head_size), [&](int i) {
      sq(i) = q(i);
      sacc(i) = acc(i);
    });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, count * head_size), [&](int i) {
      sk(i) = k(i);
      sv(i) = v(i);
    });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m), [&](int r) { salpha(r) = alpha(r); });
    team.team_barrier();
    team_gemm_scores(team, block_m, count, head_size, sq.data(), sk.data(), ss.data());
    team.team_barrier();
    // The scores as the weights: acc = alpha · acc + S · V.
    team_gemm_accumulate(team, block_m, count, head_size, sacc.data(), salpha.data(), ss.data(), sv.data());
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m * count), [&](int i) { scores(i) = ss(i); });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, block_m * head_size), [&](int i) { acc(i) = sacc(i); });
  }
};
#endif

TEST(TeamGemm, ScoresAndAccumulationMatchTheHost) {
#if defined(KATTN_KOKKOS_KERNELS)
  if (!team_gemm_available<test::Space>()) GTEST_SKIP() << "Kokkos Kernels' products serve host backends only";
  const std::tuple<int, int, int> shapes[] = {{16, 32, 128}, {5, 7, 80}, {1, 1, 64}, {13, 64, 96}};
  for (const auto& [block_m, count, head_size] : shapes) {
    const auto fill = [](int n, float scale, int mod) {
      std::vector<float> values(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) values[std::size_t(i)] = scale * float(i % mod - mod / 2);
      return values;
    };
    const std::vector<float> q = fill(block_m * head_size, 0.125f, 7), k = fill(count * head_size, 0.25f, 5),
                             v = fill(count * head_size, 0.5f, 3), alpha = fill(block_m, 0.5f, 4),
                             acc = fill(block_m * head_size, 1.0f, 6);
    const auto upload = [](const std::vector<float>& values) {
      Kokkos::View<float*, test::Memory> view("values", values.size());
      Kokkos::deep_copy(view, Kokkos::View<const float*, Kokkos::HostSpace>(values.data(), values.size()));
      return view;
    };
    const TeamGemmProducts products{
        upload(q),   upload(k), upload(v), upload(alpha), upload(fill(block_m * count, 0, 1)),
        upload(acc), block_m,   count,     head_size};
    test::Policy policy(1, Kokkos::AUTO);
    const auto floats = [](int n) { return scratch_array_bytes(std::size_t(n), sizeof(float)); };
    policy.set_scratch_size(0, Kokkos::PerTeam(2 * floats(block_m * head_size) + 2 * floats(count * head_size) +
                                               floats(block_m * count) + floats(block_m)));
    Kokkos::parallel_for(policy, products);
    const auto scores = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), products.scores);
    const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), products.acc);
    for (int r = 0; r < block_m; ++r) {
      for (int j = 0; j < count; ++j) {
        double dot = 0;
        for (int d = 0; d < head_size; ++d)
          dot += double(q[std::size_t(r * head_size + d)]) * k[std::size_t(j * head_size + d)];
        ASSERT_NEAR(scores(r * count + j), dot, 1e-4 * (1 + std::abs(dot))) << block_m << "x" << count << " r " << r;
      }
      for (int d = 0; d < head_size; ++d) {
        double sum = double(alpha[std::size_t(r)]) * acc[std::size_t(r * head_size + d)];
        for (int j = 0; j < count; ++j) sum += double(scores(r * count + j)) * v[std::size_t(j * head_size + d)];
        ASSERT_NEAR(out(r * head_size + d), sum, 1e-4 * (1 + std::abs(sum))) << block_m << "x" << count << " d " << d;
      }
    }
  }
#else
  GTEST_SKIP() << "built without Kokkos Kernels";
#endif
}

}  // namespace
}  // namespace kattn
