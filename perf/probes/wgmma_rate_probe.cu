// Probe: how fast the tensor cores of one SM run m64n128k16 warpgroup products (the prefill
// kernel's Q·Kᵀ and P·V slices, fp16 in, fp32 out) when 1, 2 or 3 warpgroups issue them, as one
// dependent chain a group (8 products into one accumulator: a Q·Kᵀ of head 128) or two chains with
// their slices alternating (Q·Kᵀ beside P·V), each group waited for before the next, or the next
// group issued before the last is waited for; with the other warpgroups running a softmax's
// exponentials beside one that issues. Plain CUDA, no Kokkos: it isolates the products from the
// copies and the softmax. Operands come from shared memory: zeros, or random fp16 in [-1, 1)
// (Random). Usage (docs/performance.md has the runs):
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o probe perf/probes/wgmma_rate_probe.cu && ./probe
// Prints, per case, SM cycles a product (clock64 over a block's loop; one block an SM), against
// the 64 cycles of a product at the dense fp16 rate (4096 FLOP a cycle an SM).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cuda_check.hpp"

constexpr int kGroups = 512;              // groups of products a warpgroup issues
constexpr int kSharedBytes = 120 * 1024;  // A and B tiles; more than half an SM's: one block an SM

// A 128-byte-swizzled shared-memory matrix descriptor (as kattn's warpgroup_mma.hpp).
__device__ std::uint64_t descriptor(unsigned address) {
  return std::uint64_t((address & 0x3FFFF) >> 4) | (std::uint64_t(1) << 16) | (std::uint64_t(1024 >> 4) << 32) |
         (std::uint64_t(1) << 62);
}

#define D4(d, j) "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
#define D32(d, j) \
  D4(d, j), D4(d, j + 1), D4(d, j + 2), D4(d, j + 3), D4(d, j + 4), D4(d, j + 5), D4(d, j + 6), D4(d, j + 7)
#define D64_REGISTERS                                                                                          \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
  "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "  \
  "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
__device__ void product(float (&d)[16][4], std::uint64_t a, std::uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " D64_REGISTERS "%64, %65, 1, 1, 1, 0, 0;\n"
               : D32(d, 0), D32(d, 8)
               : "l"(a), "l"(b));
}
// The same with A from registers and B transposed (N-major), as kattn's P·V.
__device__ void product_rs(float (&d)[16][4], const std::uint32_t (&a)[4], std::uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " D64_REGISTERS
               "{%64, %65, %66, %67}, %68, 1, 1, 1, 1;\n"
               : D32(d, 0), D32(d, 8)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
}
// 2^x by the special-function unit, as kattn's softmax takes it (one MUFU.EX2, subnormals flushed).
__device__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// Fills the block's tiles: zeros, or two fp16 a word with exponents below 15 (|x| < 1).
__device__ void fill_tiles(unsigned char* tiles, bool random) {
  for (int i = threadIdx.x; i < kSharedBytes / 4; i += blockDim.x) {
    const unsigned h = (unsigned(i) * 2654435761u) ^ (unsigned(i) >> 7) * 40503u;
    reinterpret_cast<unsigned*>(tiles)[i] = random ? (h & 0xBBFFBBFFu) : 0u;
  }
  __syncthreads();
}
__device__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
template <int Tiles>
__device__ void hold(float (&x)[Tiles][4]) {
  for (int j = 0; j < Tiles; ++j)
    for (int i = 0; i < 4; ++i) asm volatile("" : "+f"(x[j][i])::"memory");
}

// Chains: 1 (8 products into d) or 2 (8 into d and 8 into e, alternating; RegistersA: e's from
// registers, B transposed, as P·V). Ahead: the next group goes out before the last is waited for
// (wait_group 1), else each group is waited for (0). Beside: warpgroups past the first run
// exponentials and adds (a softmax's instructions) instead of products until the first is done.
template <int Chains, bool Ahead, bool RegistersA = false, bool Beside = false, bool Random = false>
__global__ void __launch_bounds__(RegistersA ? 256 : 384, 1) products(long long* cycles, float* sink) {
  extern __shared__ __align__(1024) unsigned char tiles[];
  fill_tiles(tiles, Random);
  const unsigned base = unsigned(__cvta_generic_to_shared(tiles));
  const std::uint64_t a = descriptor(base), b = descriptor(base + 16 * 1024), c = descriptor(base + 32 * 1024);
  float d[16][4] = {}, e[16][4] = {};
  const std::uint32_t p[4] = {Random ? 0x3A1BB62Cu ^ threadIdx.x : 0u, Random ? 0x2F3EB81Du : 0u,
                              Random ? 0xB4093A77u : 0u, Random ? 0x38C1AC02u ^ blockIdx.x : 0u};
  volatile int* done = reinterpret_cast<volatile int*>(tiles + kSharedBytes - 16);
  if (threadIdx.x == 0) *done = 0;
  __syncthreads();
  if (Beside && threadIdx.x >= 128) {  // a softmax's work on the other warpgroups' registers
    float x[64];
    for (int i = 0; i < 64; ++i) x[i] = float(threadIdx.x + i) * 1e-3f;
    while (!*done) {
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < 64; ++i) {
        x[i] = exp2_approx(fmaf(x[i], 0.5f, -0.25f));
        sum += x[i];
      }
      if (sum == 12345.0f) sink[threadIdx.x] = sum;
    }
    return;
  }
  const long long start = clock64();
  for (int g = 0; g < kGroups; ++g) {
    hold(d);
    if (Chains == 2) hold(e);
    fence();
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      product(d, a + 2 * k, b + 2 * k);
      if (Chains == 2 && RegistersA) product_rs(e, p, c + 128 * k);
      if (Chains == 2 && !RegistersA) product(e, a + 2 * k, c + 2 * k);
    }
    commit();
    if (Ahead)
      wait<1>();
    else
      wait<0>();
  }
  wait<0>();
  hold(d);
  hold(e);
  if (!Beside) __syncthreads();  // every issuing warpgroup done: the time is all of theirs
  const long long stop = clock64();
  if (Beside && threadIdx.x == 0) *done = 1;
  if (threadIdx.x == 0) cycles[blockIdx.x] = stop - start;
  float x = 0.0f;
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 4; ++i) x += d[j][i] + e[j][i];
  if (x != 0.0f) sink[threadIdx.x] = x;  // never (zeros), but the products stay live
}

// Launches the kernel on every SM twice (the first a warm-up) and gives the mean over the blocks
// of the cycles each block wrote.
template <class Kernel>
double mean_cycles(Kernel kernel, int threads, int sms, long long* cycles, float* sink) {
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes));
  kernel<<<sms, threads, kSharedBytes>>>(cycles, sink);
  kernel<<<sms, threads, kSharedBytes>>>(cycles, sink);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long long host[1024], total = 0;
  CHECK(cudaMemcpy(host, cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
  for (int s = 0; s < sms; ++s) total += host[s];
  return double(total) / sms;
}

template <int Chains, bool Ahead, bool RegistersA = false, bool Beside = false, bool Random = false>
void run(int warpgroups, int sms, long long* cycles, float* sink) {
  const double block_cycles =
      mean_cycles(products<Chains, Ahead, RegistersA, Beside, Random>, 128 * warpgroups, sms, cycles, sink);
  const int issuing = Beside ? 1 : warpgroups;
  const double per_product = block_cycles / (double(kGroups) * 8 * Chains * issuing);
  std::printf("%s warpgroups %d chains %d%s %-13s%s %6.1f cycles a product (64 at the peak rate: %3.0f %%)\n",
              Random ? "random" : "zeros ", warpgroups, Chains, RegistersA ? " (P·V-like)" : "",
              Ahead ? "issued ahead" : "each waited", Beside ? ", the others exponentials" : "", per_product,
              100.0 * 64.0 / per_product);
}

// The prefill step's schedule on its own: each of two warpgroups issues Q·Kᵀ and P·V (16
// interleaved products, P·V's A from registers) then runs a softmax's arithmetic on the scores
// (64 exponentials, adds and a maximum a thread), kSteps times. Turns: the warpgroups issue in
// turns (named barriers 1 and 2, FlashAttention-3's ping-pong), else each as it comes (free); Products:
// false leaves the products out (the softmax's own time). Gives the cycles a step of both.
template <bool Turns, bool Products>
__global__ void __launch_bounds__(256, 1) steps(long long* cycles, float* sink) {
  constexpr int kSteps = 256;
  extern __shared__ __align__(1024) unsigned char tiles[];
  fill_tiles(tiles, false);
  const unsigned base = unsigned(__cvta_generic_to_shared(tiles));
  const std::uint64_t a = descriptor(base), b = descriptor(base + 16 * 1024), c = descriptor(base + 32 * 1024);
  const int warpgroup = threadIdx.x / 128;
  float s[16][4] = {}, o[16][4] = {};
  std::uint32_t p[4] = {0, 0, 0, 0};
  float row_max = 0.0f, row_sum = 0.0f;
  if (Turns && warpgroup == 1) asm volatile("bar.arrive 1, 256;" ::: "memory");
  const long long start = clock64();
  for (int step = 0; step < kSteps; ++step) {
    if (Products) {
      if (Turns) asm volatile("bar.sync %0, 256;" ::"r"(1 + warpgroup) : "memory");
      hold(s);
      hold(o);
      fence();
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        product(s, a + 2 * k, b + 2 * k);
        product_rs(o, p, c + 128 * k);
      }
      commit();
      if (Turns) asm volatile("bar.arrive %0, 256;" ::"r"(2 - warpgroup) : "memory");
      wait<0>();
      hold(s);
      hold(o);
    }
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) row_max = fmaxf(row_max, s[j][i]);
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        s[j][i] = exp2_approx(fmaf(s[j][i], 0.125f, -row_max));
        row_sum += s[j][i];
      }
    p[0] = __float_as_uint(s[0][0]) ^ __float_as_uint(s[15][3]);  // the weights feed the next P·V
  }
  __syncthreads();
  const long long stop = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = (stop - start) / kSteps;
  if (row_sum == 12345.0f) sink[threadIdx.x] = row_sum + o[0][0];
}

template <bool Turns, bool Products>
void run_steps(int sms, long long* cycles, float* sink) {
  const long long step_cycles = (long long)mean_cycles(steps<Turns, Products>, 256, sms, cycles, sink);
  std::printf("two warpgroups' steps, %-9s %-16s %6lld cycles a step (their 32 products: 2048 at the peak rate)\n",
              Turns ? "in turns" : "free", Products ? "with products" : "softmax alone", step_cycles);
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs\n", prop.name, sms);
  long long* cycles;
  float* sink;
  CHECK(cudaMalloc(&cycles, sizeof(long long) * sms));
  CHECK(cudaMalloc(&sink, sizeof(float) * 384));
  for (int warpgroups = 1; warpgroups <= 3; ++warpgroups) {
    run<1, false>(warpgroups, sms, cycles, sink);
    run<1, true>(warpgroups, sms, cycles, sink);
    run<2, false>(warpgroups, sms, cycles, sink);
    run<2, true>(warpgroups, sms, cycles, sink);
    if (warpgroups <= 2) run<2, false, true>(warpgroups, sms, cycles, sink);  // its registers: 2 at most
  }
  run<1, false, false, true>(2, sms, cycles, sink);
  run<2, false, true, true>(2, sms, cycles, sink);
  run<1, false, false, false, true>(1, sms, cycles, sink);
  run<2, false, true, false, true>(1, sms, cycles, sink);
  run<1, false, false, false, true>(2, sms, cycles, sink);
  run<2, false, true, false, true>(2, sms, cycles, sink);
  run<2, false, true, true, true>(2, sms, cycles, sink);
  run_steps<false, false>(sms, cycles, sink);
  run_steps<false, true>(sms, cycles, sink);
  run_steps<true, true>(sms, cycles, sink);
  CHECK(cudaFree(cycles));
  CHECK(cudaFree(sink));
}
