// Kokkos 4.6 cannot put a CUDA team kernel with launch bounds into a graph: its global-memory
// launch (the one graph nodes take) returns the bounded kernel as `void*`, which nvcc rejects as
// an ambiguous overload. For policies that name their bounds (TeamPolicy<Cuda, LaunchBounds<M, N>,
// ...>, as the pipelined Q-block kernel's does) this gives the kernel its own type, as Kokkos'
// other launch mechanisms do; every other launch keeps Kokkos' code. Elsewhere it does nothing.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION / 100 == 406
namespace Kokkos::Impl {

template <class Functor, unsigned MaxThreads, unsigned MinBlocks, class... Rest>
struct CudaParallelLaunchKernelFunc<
    ParallelFor<Functor, Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<MaxThreads, MinBlocks>, Rest...>,
                Kokkos::Cuda>,
    Kokkos::LaunchBounds<MaxThreads, MinBlocks>, Experimental::CudaLaunchMechanism::GlobalMemory> {
  using Driver =
      ParallelFor<Functor, Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<MaxThreads, MinBlocks>, Rest...>,
                  Kokkos::Cuda>;
  static std::decay_t<decltype(cuda_parallel_launch_global_memory<Driver, MaxThreads, MinBlocks>)> get_kernel_func() {
    return cuda_parallel_launch_global_memory<Driver, MaxThreads, MinBlocks>;
  }
};

}  // namespace Kokkos::Impl
#endif
