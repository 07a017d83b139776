// Control for racecheck: a correct two-slot producer/consumer handoff through mbarriers (full/empty),
// warp 0 producing into shared slots (mode 0: st.shared; mode 1: cp.async + cp.async.mbarrier.arrive.noinc),
// warp 1 consuming; mode 2: the same slots handed over by __syncthreads only; mode 3: as mode 0, but
// each warp's lanes meet at __syncwarp and lane 0 alone arrives (barrier counts 1). Prints the checksum.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
__device__ __forceinline__ unsigned smem(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void bar_init(uint64_t* b, int n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(b)), "r"(n)); }
__device__ __forceinline__ void bar_arrive(uint64_t* b) { asm volatile("{.reg .b64 s; mbarrier.arrive.shared::cta.b64 s, [%0];}" :: "r"(smem(b)) : "memory"); }
__device__ __forceinline__ void bar_wait(uint64_t* b, int parity) {
  asm volatile("{.reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W;}" :: "r"(smem(b)), "r"(parity) : "memory");
}
__global__ void handoff(const int* in, int* out, int items, int mode) {
  __shared__ __align__(16) int slots[2][32 * 4];
  __shared__ uint64_t full[2], empty[2];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) { const int count = mode == 3 ? 1 : 32; for (int s = 0; s < 2; ++s) { bar_init(&full[s], count); bar_init(&empty[s], count); } asm volatile("fence.mbarrier_init.release.cluster;"); }
  __syncthreads();
  if (mode == 2) {
    for (int n = 0; n < items; ++n) {
      if (warp == 0) for (int k = 0; k < 4; ++k) slots[n % 2][lane * 4 + k] = in[n * 128 + lane * 4 + k];
      __syncthreads();
      if (warp == 1) { int s = 0; for (int k = 0; k < 4; ++k) s += slots[n % 2][lane * 4 + k]; out[n * 32 + lane] = s; }
      __syncthreads();
    }
    return;
  }
  for (int n = 0; n < items; ++n) {
    const int slot = n % 2, round = n / 2;
    if (warp == 0) {
      if (n >= 2) bar_wait(&empty[slot], (round - 1) & 1);
      if (mode == 0 || mode == 3) {
        for (int k = 0; k < 4; ++k) slots[slot][lane * 4 + k] = in[n * 128 + lane * 4 + k];
        if (mode == 3) __syncwarp();
        if (mode == 0 || lane == 0) bar_arrive(&full[slot]);
      } else {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem(&slots[slot][lane * 4])), "l"(in + n * 128 + lane * 4) : "memory");
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(smem(&full[slot])) : "memory");
      }
    } else if (warp == 1) {
      bar_wait(&full[slot], round & 1);
      int s = 0;
      for (int k = 0; k < 4; ++k) s += slots[slot][lane * 4 + k];
      out[n * 32 + lane] = s;
      if (mode == 3) __syncwarp();
      if (mode != 3 || lane == 0) bar_arrive(&empty[slot]);
    }
  }
}
int main(int argc, char** argv) {
  const int items = 6; int *in, *out; cudaMallocManaged(&in, items * 128 * 4); cudaMallocManaged(&out, items * 32 * 4);
  for (int i = 0; i < items * 128; ++i) in[i] = i;
  for (int mode = argc > 1 ? atoi(argv[1]) : 0; mode < (argc > 1 ? atoi(argv[1]) + 1 : 4); ++mode) {
    handoff<<<1, 64>>>(in, out, items, mode); cudaDeviceSynchronize();
    long long sum = 0, want = 0; for (int i = 0; i < items * 32; ++i) sum += out[i]; for (int i = 0; i < items * 128; ++i) want += i;
    printf("mode %d sum %lld want %lld %s\n", mode, sum, want, cudaGetErrorString(cudaGetLastError()));
  }
}
