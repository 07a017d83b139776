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

// True when the kernels run on the host (OpenMP, Serial).
constexpr bool host_backend() { return Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible; }

}  // namespace kattn
