// Writes a Q-block launch's tensor maps (tiles/team_bulk_copy.hpp: the cache's, the query and
// output rows'), encoded on the host, into the workspace, where that launch's copies read them: a
// map must sit in global memory, and Kokkos' kernel parameter is not __grid_constant__. One team,
// launched before the Q-block kernel where the workspace does not hold them yet (part_launch.hpp).
#pragma once

#include "kattn/detail/tiles/team_bulk_copy.hpp"

namespace kattn {

template <class Space>
struct TileMapsKernel {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;

  CacheTileMaps tile_maps{};
  CacheTileMaps* tile_maps_to = nullptr;  // null: none to write
  RowTileMaps row_maps{};
  RowTileMaps* row_maps_to = nullptr;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (tile_maps_to) publish_tile_maps(team, tile_maps, tile_maps_to);
    if (row_maps_to) publish_tile_maps(team, row_maps, row_maps_to);
  }
};

}  // namespace kattn
