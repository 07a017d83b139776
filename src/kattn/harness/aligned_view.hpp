// Views whose data starts on a 512-byte boundary, as PyTorch's tensors do (vLLM's KV cache among
// them). A Kokkos View's data lies 128 bytes past its allocation, behind the allocation's header,
// so each 256-byte row of a head-128 fp16 cache would straddle two 256-byte blocks of the address
// space: on the H100 that cost the paged decodes 3-5 % and a plain read 3 % against the same bytes
// aligned (docs/performance.md). The harness allocates the inputs it benchmarks this way, so that
// kattn reads memory laid out as its callers' is.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kattn {

constexpr std::size_t kInputAlignment = 512;  // PyTorch's CUDA allocator's

// The allocations aligned views alias: whoever holds the views must hold these.
template <class Memory>
using AlignedStorage = std::vector<Kokkos::View<char*, Memory>>;

// A View of `extents` (uninitialised) at the first kInputAlignment-byte boundary of an allocation
// appended to `storage`; the view itself does not own it.
template <class View, class Memory, class... Extents>
View aligned_view(AlignedStorage<Memory>& storage, const std::string& label, Extents... extents) {
  using Value = typename View::non_const_value_type;
  std::size_t count = 1;
  ((count *= std::size_t(extents)), ...);
  const Kokkos::View<char*, Memory> bytes(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                          count * sizeof(Value) + kInputAlignment);
  storage.push_back(bytes);
  const std::uintptr_t at =
      (reinterpret_cast<std::uintptr_t>(bytes.data()) + kInputAlignment - 1) / kInputAlignment * kInputAlignment;
  return View(reinterpret_cast<Value*>(at), extents...);
}

}  // namespace kattn
