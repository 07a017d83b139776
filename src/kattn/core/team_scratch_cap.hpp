// Team scratch beyond 48 KB on CUDA with Kokkos 4.6.
//
// A CUDA block gets 48 KB of shared memory unless its kernel opts into more (an H100 block may
// take 227 KB: sharedMemPerBlockOptin, with cudaFuncAttributeMaxDynamicSharedMemorySize set on
// the kernel). Kokkos 4.6 checks every team's scratch against the 48 KB and never opts in, so its
// TeamPolicy::scratch_size_max(0) is 40,936 bytes. Later Kokkos releases do both steps themselves
// (kokkos/kokkos#9012: the checks against the opt-in size, the attribute set before a launch that
// needs it); on 4.6 this header does them for kattn's launches:
//   kokkos_team_scratch_max()      Kokkos' own cap, as before any lift: what the planner fits every
//                                  variant's tiles to but the tensor-core split-KV kernel's;
//   team_scratch_limit()           what a team may ask for (Kokkos is initialised): lifts Kokkos'
//                                  check once (its copy of the device's properties takes the opt-in
//                                  size), then Kokkos' scratch_size_max(0): the register-row kernel
//                                  (QBlockMmaKernel) double-buffers its tiles where they fit;
//   split_kv_scratch_limit()       what the tensor-core split-KV kernel's rings may take: past the
//                                  cap, up to a third of the lifted limit (three teams an SM);
//   allow_team_scratch(policy, f)  before each launch of a functor type (allow_team_scratch_in_graph
//                                  for a graph node): its kernel, as Kokkos will launch it, may take
//                                  that much dynamically.
// Elsewhere (host backends, HIP, other Kokkos versions) the lift and the opt-in do nothing and
// both limits are Kokkos' cap.
// The lifted check is process-wide: another library's Kokkos kernel that asks for more than
// 48 KB now passes Kokkos' check and fails at its launch instead (docs/design.md).
#pragma once

#include "kattn/core/execution_space.hpp"

#include <cstddef>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION / 100 == 406
#define KATTN_LIFT_TEAM_SCRATCH_CAP 1
#include <Kokkos_Graph.hpp>
#endif

namespace kattn {

#ifdef KATTN_LIFT_TEAM_SCRATCH_CAP
namespace scratch_cap_detail {
using Kokkos::Impl::Experimental::CudaLaunchMechanism;

// The kernel Kokkos launches a ParallelFor of this policy and functor through by `Mechanism`.
template <class Policy, class Functor, CudaLaunchMechanism Mechanism>
auto kernel_of() {
  using Driver = Kokkos::Impl::ParallelFor<Functor, Policy, Kokkos::Cuda>;
  return Kokkos::Impl::CudaParallelLaunchKernelFunc<Driver, typename Policy::launch_bounds,
                                                    Mechanism>::get_kernel_func();
}

template <class Kernel>
void allow_opt_in_size(Kernel kernel) {
  const cudaDeviceProp& device = Kokkos::Impl::CudaInternal::m_deviceProp;
  cudaFuncAttributes attributes;
  KOKKOS_IMPL_CUDA_SAFE_CALL(cudaFuncGetAttributes(&attributes, kernel));
  const int dynamic_bytes = int(device.sharedMemPerBlockOptin) - int(attributes.sharedSizeBytes);
  if (dynamic_bytes > attributes.maxDynamicSharedSizeBytes)
    KOKKOS_IMPL_CUDA_SAFE_CALL(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic_bytes));
}

// The teams of the policy's kernel one SM runs at once: its registers and, beside the team's
// scratch, the 8 · (team size + 2) bytes Kokkos' ParallelFor takes for itself.
template <class Policy, class Functor>
int teams_an_sm(const Policy& policy) {
  using Driver = Kokkos::Impl::ParallelFor<Functor, Policy, Kokkos::Cuda>;
  constexpr CudaLaunchMechanism deduced = Kokkos::Impl::DeduceCudaLaunchMechanism<Driver>::launch_mechanism;
  const int team_size = policy.team_size();
  const std::size_t shared = sizeof(double) * std::size_t(team_size + 2) + policy.scratch_size(0, team_size);
  int teams = 0;
  KOKKOS_IMPL_CUDA_SAFE_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &teams, kernel_of<Policy, Functor, deduced>(), team_size * policy.impl_vector_length(), shared));
  return teams;
}
// Kokkos sizes a team (team_size_max) by the kernel of the mechanism it deduces, and launches a
// graph node of a constant-memory functor from global memory: both kernels may take it.
template <bool InGraph, class Policy, class Functor>
void allow(const Policy&, const Functor&) {
  if constexpr (std::is_same_v<typename Policy::execution_space, Kokkos::Cuda>) {
    using Driver = Kokkos::Impl::ParallelFor<Functor, Policy, Kokkos::Cuda>;
    constexpr CudaLaunchMechanism deduced = Kokkos::Impl::DeduceCudaLaunchMechanism<Driver>::launch_mechanism;
    static const bool allowed = [] {
      allow_opt_in_size(kernel_of<Policy, Functor, deduced>());
      if constexpr (InGraph && deduced == CudaLaunchMechanism::ConstantMemory)
        allow_opt_in_size(kernel_of<Policy, Functor, CudaLaunchMechanism::GlobalMemory>());
      return true;
    }();
    (void)allowed;
  }
}
}  // namespace scratch_cap_detail
#endif

template <class Space = ExecutionSpace>
std::size_t kokkos_team_scratch_max() {
  static const std::size_t cap = std::size_t(Kokkos::TeamPolicy<Space>::scratch_size_max(0));
  return cap;
}

template <class Space = ExecutionSpace>
std::size_t team_scratch_limit() {
  (void)kokkos_team_scratch_max<Space>();  // Kokkos' own cap, recorded before the lift
#ifdef KATTN_LIFT_TEAM_SCRATCH_CAP
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    static const bool lifted = [] {
      cudaDeviceProp& device = Kokkos::Impl::CudaInternal::m_deviceProp;
      if (device.sharedMemPerBlockOptin > device.sharedMemPerBlock)
        device.sharedMemPerBlock = device.sharedMemPerBlockOptin;
      return true;
    }();
    (void)lifted;
  }
#endif
  return std::size_t(Kokkos::TeamPolicy<Space>::scratch_size_max(0));
}

// Teams of 4 warps with rings of 2 tiles a warp (70 KB at head 128) past the cap, three an SM, ran
// batch-1 decodes 2-9 % faster on the H100 than the 2-warp teams the cap allows; one 4-warp team
// an SM (rings of 4 tiles) had run no faster: a third keeps three teams on an SM, so that one's
// copies overlap another's arithmetic.
template <class Space = ExecutionSpace>
std::size_t split_kv_scratch_limit() {
  const std::size_t third = team_scratch_limit<Space>() / 3;
  return third > kokkos_team_scratch_max<Space>() ? third : kokkos_team_scratch_max<Space>();
}

template <class Policy, class Functor>
void allow_team_scratch(const Policy& policy, const Functor& functor) {
#ifdef KATTN_LIFT_TEAM_SCRATCH_CAP
  scratch_cap_detail::allow<false>(policy, functor);
#else
  (void)policy, (void)functor;
#endif
}

// The same for a launch as a node of a Kokkos graph (then_parallel_for), whose policy type differs.
template <class Policy, class Functor>
void allow_team_scratch_in_graph(const Policy& policy, const Functor& functor) {
#ifdef KATTN_LIFT_TEAM_SCRATCH_CAP
  scratch_cap_detail::allow<true>(Kokkos::Experimental::require(policy, Kokkos::Impl::KernelInGraphProperty{}),
                                  functor);
#else
  (void)policy, (void)functor;
#endif
}

// The teams of a launch of this policy and functor (allowed its scratch as above) that the device
// runs at once, every SM full; 0 where that is not known (other backends and Kokkos versions).
template <class Policy, class Functor>
int resident_teams(const Policy& policy, const Functor& functor) {
#ifdef KATTN_LIFT_TEAM_SCRATCH_CAP
  if constexpr (std::is_same_v<typename Policy::execution_space, Kokkos::Cuda>) {
    allow_team_scratch(policy, functor);
    return scratch_cap_detail::teams_an_sm<Policy, Functor>(policy) *
           Kokkos::Impl::CudaInternal::m_deviceProp.multiProcessorCount;
  }
#endif
  (void)policy, (void)functor;
  return 0;
}

}  // namespace kattn
