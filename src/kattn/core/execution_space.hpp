// The execution space kattn's kernels run on. A build picks it with KATTN_EXECUTION_SPACE
// (the `serial` preset sets Kokkos::Serial); otherwise Kokkos' default space is used.
#pragma once

#include <Kokkos_Core.hpp>

namespace kattn {

#ifdef KATTN_EXECUTION_SPACE
using ExecutionSpace = KATTN_EXECUTION_SPACE;
#else
using ExecutionSpace = Kokkos::DefaultExecutionSpace;
#endif
using MemorySpace = ExecutionSpace::memory_space;

using TeamPolicy = Kokkos::TeamPolicy<ExecutionSpace>;

// Kernels launch "light weight": their functors travel as kernel arguments. Kokkos' CUDA default
// for functors over 512 bytes is constant memory, whose reuse makes the host wait for the
// previous such kernel to finish before each launch.
template <class Policy>
auto light_weight(const Policy& policy) {
  return Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

// True when the kernels run on the host (OpenMP, Serial).
constexpr bool host_backend() { return Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible; }

}  // namespace kattn
