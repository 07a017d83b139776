// The execution space kattn's public entry points run on. A build picks it with
// KATTN_EXECUTION_SPACE (the `serial` preset sets Kokkos::Serial); otherwise Kokkos' default space
// is used. The launch path below them takes its space as a template parameter and is built for
// every enabled backend (docs/design.md#backends): the queries here take one too, defaulting to
// this space.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

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

// True when Space's kernels run on the host (OpenMP, Serial).
template <class Space = ExecutionSpace>
constexpr bool host_backend() {
  return Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible;
}

// True when Space is the build's GPU backend: a CUDA or HIP build also runs kernels on Serial.
template <class Space = ExecutionSpace>
constexpr bool device_backend() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same<Space, Kokkos::Cuda>::value;
#elif defined(KOKKOS_ENABLE_HIP)
  return std::is_same<Space, Kokkos::HIP>::value;
#else
  return false;
#endif
}

// The compute units whose teams run side by side: a CUDA device's multiprocessors, else (host
// backends, HIP, whose kernels ask none of this yet) the space's concurrency, a unit a thread.
template <class Space = ExecutionSpace>
int compute_units() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Space, Kokkos::Cuda>::value) return Space().cuda_device_prop().multiProcessorCount;
#endif
  return Space().concurrency();
}

}  // namespace kattn
