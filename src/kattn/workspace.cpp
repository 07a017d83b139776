#include "kattn/workspace.hpp"

#include <string>

namespace kattn {

Workspace& Workspace::instance() {
  static Workspace* workspace = [] {
    auto* created = new Workspace();
    Kokkos::push_finalize_hook([created] { created->release(); });
    return created;
  }();
  return *workspace;
}

std::size_t Workspace::Layout::reserve(std::size_t count, std::size_t element_bytes) {
  constexpr std::size_t kAlignment = 256;  // every array starts on a fresh cache-line group
  const std::size_t offset = bytes_;
  bytes_ += (count * element_bytes + kAlignment - 1) / kAlignment * kAlignment;
  return offset;
}

std::size_t Workspace::Layout::reserve_counters(std::size_t count) {
  const std::size_t first = counters_;
  counters_ += count;
  return first;
}

Workspace::Buffers Workspace::commit(const Layout& layout) {
  if (buffer_.extent(0) < layout.bytes() || counters_.extent(0) < layout.counters())
    Kokkos::fence();  // kernels of earlier calls, on any instance, may still use the old buffers
  if (buffer_.extent(0) < layout.bytes())
    buffer_ = decltype(buffer_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kattn::workspace")),
                                layout.bytes() + layout.bytes() / 4);  // room to grow before the next allocation
  if (counters_.extent(0) < layout.counters())
    counters_ = decltype(counters_)("kattn::workspace_counters", layout.counters() + layout.counters() / 4);  // zeros
  return {buffer_.data(), counters_.data()};
}

const SideInstance& Workspace::side() {
  if (!side_) side_ = std::make_shared<const SideInstance>(ExecutionSpace());
  return *side_;
}

}  // namespace kattn
