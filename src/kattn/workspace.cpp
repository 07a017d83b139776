#include "kattn/workspace.hpp"

#include "kattn/core/backends.hpp"

#include <cstring>
#include <string>

namespace kattn {

template <class Space>
BasicWorkspace<Space>& BasicWorkspace<Space>::instance() {
  static BasicWorkspace* workspace = [] {
    auto* created = new BasicWorkspace();
    Kokkos::push_finalize_hook([created] { created->release(); });
    return created;
  }();
  return *workspace;
}

std::size_t WorkspaceLayout::reserve(std::size_t count, std::size_t element_bytes) {
  constexpr std::size_t kAlignment = 256;  // every array starts on a fresh cache-line group
  const std::size_t offset = bytes_;
  bytes_ += (count * element_bytes + kAlignment - 1) / kAlignment * kAlignment;
  return offset;
}

std::size_t WorkspaceLayout::reserve_counters(std::size_t count) {
  const std::size_t first = counters_;
  counters_ += count;
  return first;
}

bool PublishedMaps::holds(const void* at, const void* bytes, std::size_t size) {
  const Call& before = calls_[current_ ^ 1];
  bool held = false;
  for (int m = 0; m < before.count; ++m) {
    const Map& map = before.maps[m];
    held = held || (map.at == at && map.size == size && std::memcmp(map.bytes, bytes, size) == 0);
  }
  Call& call = calls_[current_];
  if (size <= kMapBytes && call.count < kCallMaps) {
    Map& map = call.maps[call.count++];
    map.at = at;
    map.size = size;
    std::memcpy(map.bytes, bytes, size);
  }
  return held;
}

template <class Space>
WorkspaceBuffers BasicWorkspace<Space>::commit(const WorkspaceLayout& layout) {
  if (buffer_.extent(0) < layout.bytes() || counters_.extent(0) < layout.counters())
    Kokkos::fence();  // kernels of earlier calls, on any instance, may still use the old buffers
  if (buffer_.extent(0) < layout.bytes()) {
    published_.forget();  // a new buffer (it may take the old one's address) holds nothing
    buffer_ = decltype(buffer_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kattn::workspace")),
                                layout.bytes() + layout.bytes() / 4);  // room to grow before the next allocation
  }
  if (counters_.extent(0) < layout.counters())
    counters_ = decltype(counters_)("kattn::workspace_counters", layout.counters() + layout.counters() / 4);  // zeros
  return {buffer_.data(), counters_.data(), &published_};
}

template <class Space>
const SideInstance<Space>& BasicWorkspace<Space>::side() {
  if (!side_) side_ = std::make_shared<const SideInstance<Space>>(Space());
  return *side_;
}

#define KATTN_INSTANTIATE(Space) template class BasicWorkspace<Space>;
KATTN_FOR_EACH_BACKEND(KATTN_INSTANTIATE)
#undef KATTN_INSTANTIATE

}  // namespace kattn
