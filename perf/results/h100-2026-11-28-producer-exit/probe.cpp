// The producer-warpgroup kernel of producer-exit.patch (one instantiation: fp16, two warpgroups of
// rows and a producer, no score features) for ptxas's report (ptxas.txt): nvcc_wrapper
// -DKATTN_WARPGROUP_MMA -gencode=arch=compute_90a,code=sm_90a -O3 -extended-lambda -std=c++17
// -Xptxas -v -c probe.cpp.
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
