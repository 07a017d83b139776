// The host side of the bulk tile copies (tiles/team_bulk_copy.hpp): the tensor maps of a call's K
// and V caches, encoded by the CUDA driver (cuTensorMapEncodeTiled, reached through the runtime's
// entry-point query, so that kattn links no driver library of its own).
#pragma once

#include "kattn/core/arch.hpp"
#include "kattn/detail/shapes/tile_shapes.hpp"
#include "kattn/detail/tiles/paged_kv.hpp"
#include "kattn/detail/tiles/team_bulk_copy.hpp"
#include "kattn/problem/geometry.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda.h>
#include <cuda_runtime_api.h>
#endif

namespace kattn {

#if defined(KOKKOS_ENABLE_CUDA)
namespace tile_maps_detail {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver's encoder, looked up once; null where the driver lacks it.
inline EncodeTiled encoder() {
  static const EncodeTiled encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return EncodeTiled(nullptr);
    return reinterpret_cast<EncodeTiled>(function);
  }();
  return encode;
}

// A map of Rank dimensions (dims and box innermost first, byte strides of the outer ones) over
// 2-byte elements in the 128-byte swizzle, or false where the copy engine cannot take it.
template <int Rank>
bool encode_tiled(const void* data, const cuuint64_t (&dims)[Rank], const cuuint64_t (&strides)[Rank - 1],
                  const cuuint32_t (&box)[Rank], std::uint64_t (&map)[16]) {
  static_assert(sizeof(CUtensorMap) == sizeof(map), "a tensor map is 128 bytes");
  cuuint32_t steps[Rank];
  for (cuuint32_t& step : steps) step = 1;
  for (const cuuint64_t stride : strides)
    if (stride % 16 != 0 || stride >= (cuuint64_t(1) << 40)) return false;
  if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0) return false;
  CUtensorMap encoded;
  if (encoder()(&encoded, CU_TENSOR_MAP_DATA_TYPE_UINT16, Rank, const_cast<void*>(data), dims, strides, box, steps,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;
  std::memcpy(map, &encoded, sizeof(map));
  return true;
}

// One cache's map: [num_blocks][block_size][num_kv_heads][head_size] of 2-byte elements, boxes of
// box_rows slots × 1 head × 64 elements.
template <class Storage>
bool encode(const PagedKvAccessor<Storage>& cache, const Geometry& g, int box_rows, std::uint64_t (&map)[16]) {
  const cuuint64_t dims[4] = {cuuint64_t(g.head_size), cuuint64_t(g.num_kv_heads), cuuint64_t(g.block_size),
                              cuuint64_t(g.num_blocks)};
  const cuuint64_t strides[3] = {cuuint64_t(cache.stride_head) * sizeof(Storage),
                                 cuuint64_t(cache.stride_slot) * sizeof(Storage),
                                 cuuint64_t(cache.stride_block) * sizeof(Storage)};
  const cuuint32_t box[4] = {64, 1, cuuint32_t(box_rows), 1};
  return encode_tiled(cache.data, dims, strides, box, map);
}

// One row tensor's map: a LayoutRight [tokens][heads][head_size] view of 2-byte elements, boxes of
// 64 head elements × `heads` heads × `tokens` tokens.
template <class View>
bool encode_rows(const View& rows, int heads, int tokens, std::uint64_t (&map)[16]) {
  static_assert(std::is_same<typename View::array_layout, Kokkos::LayoutRight>::value, "a row's elements contiguous");
  const cuuint64_t dims[3] = {cuuint64_t(rows.extent(2)), cuuint64_t(rows.extent(1)), cuuint64_t(rows.extent(0))};
  const cuuint64_t strides[2] = {cuuint64_t(rows.stride_1()) * 2, cuuint64_t(rows.stride_0()) * 2};
  const cuuint32_t box[3] = {64, cuuint32_t(heads), cuuint32_t(tokens)};
  return rows.extent(0) > 0 && encode_tiled(rows.data(), dims, strides, box, map);
}

}  // namespace tile_maps_detail
#endif

// The maps of the K and V caches for the bulk copies of tiles of `tile_keys` keys, or nothing where
// they do not apply here (no TMA in this build, a head other than the products', a block size
// without box rows, strides the copy engine cannot take, or a driver without the encoder): the
// kernel then copies by rows.
template <class Space, class Storage>
std::optional<CacheTileMaps> encode_cache_tile_maps(const PagedKvAccessor<Storage>& k,
                                                    const PagedKvAccessor<Storage>& v, const Geometry& g,
                                                    int tile_keys) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (warpgroup_mma_available<Space>() && sizeof(Storage) == 2) {
    const int box_rows = cache_tile_box_rows(g.block_size, tile_keys);
    CacheTileMaps maps{};
    if (g.head_size == kWarpgroupHead && box_rows > 0 && g.num_blocks > 0 && tile_maps_detail::encoder() &&
        tile_maps_detail::encode(k, g, box_rows, maps.k) && tile_maps_detail::encode(v, g, box_rows, maps.v))
      return maps;
  }
#endif
  (void)k, (void)v, (void)g, (void)tile_keys;
  return std::nullopt;
}

// The maps of the query rows `q` and output rows `out` (LayoutRight [tokens][query heads][head]
// views of 2-byte elements) for Q blocks of block_q tokens × queries_per_kv heads = one
// warpgroup's 64 rows, or nothing where they do not apply (no TMA in this build, another head, other
// blocks, rows the copy engine cannot take, or a driver without the encoder): the kernel then
// stages and stores its rows by lanes.
template <class Space, class QView, class OutView>
std::optional<RowTileMaps> encode_row_tile_maps(const QView& q, const OutView& out, const Geometry& g, int block_q) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (warpgroup_mma_available<Space>() && sizeof(typename QView::value_type) == 2 &&
                sizeof(typename OutView::value_type) == 2) {
    const int heads = g.queries_per_kv();
    RowTileMaps maps{};
    if (g.head_size == kWarpgroupHead && int(q.extent(2)) == g.head_size && int(out.extent(2)) == g.head_size &&
        heads * block_q == kWarpgroupRows && tile_maps_detail::encoder() &&
        tile_maps_detail::encode_rows(q, heads, block_q, maps.q) &&
        tile_maps_detail::encode_rows(out, heads, block_q, maps.out))
      return maps;
  }
#endif
  (void)q, (void)out, (void)g, (void)block_q;
  return std::nullopt;
}

}  // namespace kattn
