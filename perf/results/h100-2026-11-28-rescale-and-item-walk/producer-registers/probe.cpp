// The producer-warpgroup kernel of producer-on-land.patch (one instantiation: fp16, two warpgroups of
// rows and a producer, no score features) for ptxas's register report, as land/probe.cpp of
// perf/results/h100-2026-11-28-softmax-beside-pv: nvcc_wrapper ... -Xptxas -v -c probe.cpp.
#include <Kokkos_Core.hpp>
#include "kattn/detail/kernels/kernel_args.hpp"
#include "kattn/detail/kernels/qblock_mma_kernel.hpp"
using Args = kattn::KernelArgs<kattn::fp16_t, kattn::fp16_t, kattn::fp16_t, Kokkos::CudaSpace>;
template <class Kernel>
void launch(const Kernel& kernel) {
  Kokkos::parallel_for("probe", typename Kernel::Policy(1, Kernel::kTeamThreads / 32, 32), kernel);
}
template void launch(
    const kattn::QBlockMmaKernel<Kokkos::Cuda, Args, false, 128, true, true, 2, true, kattn::PlainScores>&);
