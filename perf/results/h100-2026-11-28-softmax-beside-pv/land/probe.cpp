// One instantiation each of the warpgroup prefill kernels (one and two warpgroups, fp16, no score
// features), for reading their registers and SASS without the 30-minute build of attention.cpp:
//   /opt/kokkos-cuda/bin/nvcc_wrapper -DKATTN_WARPGROUP_MMA -gencode=arch=compute_90a,code=sm_90a -O3
//     -DNDEBUG -extended-lambda -std=c++17 -Isrc -isystem /opt/kokkos-cuda/include -Xptxas -v
//     -c probe.cpp -o probe.o
// then, where cuobjdump is (the device): sass.sh probe.o (20 s of ptxas here).
#include <Kokkos_Core.hpp>

#include "kattn/detail/kernels/kernel_args.hpp"
#include "kattn/detail/kernels/qblock_mma_kernel.hpp"

using Args = kattn::KernelArgs<kattn::fp16_t, kattn::fp16_t, kattn::fp16_t, Kokkos::CudaSpace>;

template <class Kernel>
void launch(const Kernel& kernel) {
  Kokkos::parallel_for("probe", Kokkos::TeamPolicy<Kokkos::Cuda>(1, 4, 32), kernel);
}
template void launch(const kattn::QBlockMmaKernel<Kokkos::Cuda, Args, false, 128, true, true, 2, kattn::PlainScores>&);
template void launch(const kattn::QBlockMmaKernel<Kokkos::Cuda, Args, false, 128, true, true, 1, kattn::PlainScores>&);
