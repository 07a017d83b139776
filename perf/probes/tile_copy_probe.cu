// Probe: how fast one team an SM can bring the two-warpgroup prefill's K/V tiles (128 keys × head
// 128 of one KV head, K and V: 64 KB a step) from a paged cache into shared memory, by kattn's
// cp.async rows (every thread its rows, 16-byte chunks, the products' 128-byte swizzle) or by the
// tensor memory accelerator (each warp's lane 0 the boxes of its cache blocks: block slots × 64
// elements, in the same swizzle; tensor maps as kernel parameters or in global memory), at cache
// block sizes 16 to 128. Plain CUDA, no Kokkos, no arithmetic: a ring of `stages` tiles, each
// waited for by the whole block and released by a block barrier, as the lockstep kernel steps.
// 132 blocks of 256 threads, one an SM (its ring's shared memory); block b streams the 64 tiles of
// an 8192-key sequence of KV head b % 8, whose 32 MB of K and V stay in the L2 after the warm-ups
// (as prefill b1 8192's do). Usage:
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o probe perf/probes/tile_copy_probe.cu && ./probe
// Prints, per copy form, block size and ring depth, the mean of 20 launches (events), the bytes an
// SM took a cycle and the cycles a step (the SM clock from cudaDevAttrClockRate), and how long a
// step's copy issue held a warp (clock64 around it, lane 0 of every warp, the last run's mean): a
// warp that issues copies cannot issue anything else meanwhile.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "cuda_check.hpp"

constexpr int kHeads = 8, kHead = 128, kRowBytes = kHead * 2, kSlotBytes = kHeads * kRowBytes;
constexpr int kTileKeys = 128, kHalfBytes = kTileKeys * 128, kTileBytes = 2 * kHalfBytes;  // one of K or V
constexpr int kStageBytes = 2 * kTileBytes, kKeys = 8192, kTiles = kKeys / kTileKeys, kThreads = 256;

__device__ inline unsigned smem_address(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }

// kattn's TeamTileCopy::copy_swizzled_pair: thread rows lane/8 + 4·warp + 32·i, chunk lane % 8 of
// each 128-byte half at chunk ^ (row % 8), K and V of a row from one block lookup.
__device__ inline void copy_rows(const char* k, const char* v, const int* table, int block_size, int kv_head, int tile,
                                 unsigned to) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, chunk = lane % 8;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = lane / 8 + 4 * warp + 32 * i, key = tile * kTileKeys + row;
    const int block = table[key / block_size], slot = key % block_size;
    const std::int64_t from = (std::int64_t(block) * block_size + slot) * kSlotBytes + kv_head * kRowBytes + chunk * 16;
    const unsigned row_to = to + unsigned(row * 128 + ((chunk ^ (row % 8)) * 16));
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(row_to + h * kHalfBytes),
                   "l"(k + from + h * 128));
      asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(row_to + kTileBytes + h * kHalfBytes),
                   "l"(v + from + h * 128));
    }
  }
  asm volatile("cp.async.commit_group;");
}

__device__ inline void box(unsigned to, const CUtensorMap* map, int element, int kv_head, int slot, int block,
                           unsigned barrier) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];" ::"r"(to),
      "l"(map), "r"(element), "r"(kv_head), "r"(slot), "r"(block), "r"(barrier)
      : "memory");
}

// Warp w's lane 0: the boxes of blocks w, w + 8, ... of the tile (box_rows slots each), K and V.
__device__ inline void copy_boxes(const CUtensorMap* k_map, const CUtensorMap* v_map, const int* table, int block_size,
                                  int box_rows, int kv_head, int tile, unsigned to, unsigned barrier) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(kStageBytes) : "memory");
  if (lane != 0) return;
  for (int b = warp; b * box_rows < kTileKeys; b += kThreads / 32) {
    const int key = tile * kTileKeys + b * box_rows;
    const int block = table[key / block_size], slot = key % block_size;
    const unsigned at = to + unsigned(b * box_rows * 128);
    box(at, k_map, 0, kv_head, slot, block, barrier);
    box(at + kHalfBytes, k_map, 64, kv_head, slot, block, barrier);
    box(at + kTileBytes, v_map, 0, kv_head, slot, block, barrier);
    box(at + kTileBytes + kHalfBytes, v_map, 64, kv_head, slot, block, barrier);
  }
}

__device__ inline void wait_parity(unsigned barrier, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nprobe_wait:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra probe_wait;\n}\n" ::"r"(barrier),
      "r"(parity)
      : "memory");
}

// How a tile comes: kattn's cp.async rows, or boxes whose tensor maps are kernel parameters
// (__grid_constant__, as CUTLASS passes them) or sit in global memory (as kattn's kernels, whose
// Kokkos functor cannot carry them, read them from the workspace).
enum class Form { rows, boxes_param_maps, boxes_global_maps };

template <Form F, int Stages>
__global__ void __launch_bounds__(kThreads)
    stream(const __grid_constant__ CUtensorMap k_map, const __grid_constant__ CUtensorMap v_map,
           const CUtensorMap* global_maps, const char* k, const char* v, const int* table, int block_size, int box_rows,
           float* sink, unsigned long long* issue_cycles) {
  constexpr bool Tma = F != Form::rows;
  extern __shared__ __align__(1024) char dynamic_smem[];
  __shared__ __align__(8) unsigned long long barriers[Stages];
  const int kv_head = blockIdx.x % kHeads;
  // The ring on a 1024-byte boundary (the swizzle's period; the launch gives 1024 bytes to spare).
  const unsigned base = smem_address(dynamic_smem), ring = (base + 1023u) & ~1023u, full = smem_address(barriers);
  const char* smem = dynamic_smem + (ring - base);
  if (Tma && threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(full + 8 * s));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (F == Form::boxes_global_maps && threadIdx.x % 32 == 0) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(global_maps) : "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(global_maps + 1) : "memory");
  }
  __syncthreads();
  const auto issue = [&](int tile) {
    const int s = tile % Stages;
    if constexpr (Tma)
      copy_boxes(F == Form::boxes_global_maps ? global_maps : &k_map,
                 F == Form::boxes_global_maps ? global_maps + 1 : &v_map, table, block_size, box_rows, kv_head, tile,
                 ring + s * kStageBytes, full + 8 * s);
    else
      copy_rows(k, v, table, block_size, kv_head, tile, ring + s * kStageBytes);
  };
  for (int t = 0; t < Stages - 1; ++t) issue(t);
  float acc = 0.0f;
  long long issuing = 0;  // SM cycles this thread spent in its copies' issue, over the tiles
  for (int t = 0; t < kTiles; ++t) {
    if (t + Stages - 1 < kTiles) {
      const long long before = clock64();
      issue(t + Stages - 1);  // into the slot of tile t - 1, released by the barrier that ended its step
      issuing += clock64() - before;
    } else if (!Tma)
      asm volatile("cp.async.commit_group;");
    if constexpr (Tma) {
      wait_parity(full + 8 * (t % Stages), unsigned(t / Stages) & 1u);
    } else {
      asm volatile("cp.async.wait_group %0;" ::"n"(Stages - 1));
      __syncthreads();
    }
    acc += float(smem[(t % Stages) * kStageBytes + threadIdx.x * 16]);
    __syncthreads();  // every thread is done with tile t's slot
  }
  if (acc == 12345.0f) sink[blockIdx.x] = acc;  // never true: keeps the reads
  // How long a step's issue held a warp (its lane 0), summed over the warps and blocks.
  if (threadIdx.x % 32 == 0) atomicAdd(issue_cycles, (unsigned long long)(issuing / (kTiles - Stages + 1)));
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// [num_blocks][block_size][kHeads][kHead] of 2-byte elements, boxes of box_rows slots × 64 elements.
CUtensorMap encode(EncodeTiled encode_tiled, char* data, int num_blocks, int block_size, int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[4] = {kHead, kHeads, cuuint64_t(block_size), cuuint64_t(num_blocks)};
  const cuuint64_t strides[3] = {kRowBytes, kSlotBytes, cuuint64_t(block_size) * kSlotBytes};
  const cuuint32_t box_dims[4] = {64, 1, cuuint32_t(box_rows), 1}, steps[4] = {1, 1, 1, 1};
  if (encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, data, dims, strides, box_dims, steps,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (block %d)\n", block_size);
    std::exit(1);
  }
  return map;
}

int main() {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
  const auto encode_tiled = reinterpret_cast<EncodeTiled>(function);
  int sms = 0, clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const std::size_t cache_bytes = std::size_t(kKeys) * kSlotBytes;
  char *k, *v;
  int* table;
  float* sink;
  CUtensorMap* global_maps;  // 64-byte aligned, as cudaMalloc's every allocation
  CHECK(cudaMalloc(&global_maps, 2 * sizeof(CUtensorMap)));
  unsigned long long* issue_cycles;  // the last run's, summed over warps and blocks
  CHECK(cudaMalloc(&issue_cycles, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&k, cache_bytes));
  CHECK(cudaMalloc(&v, cache_bytes));
  CHECK(cudaMemset(k, 1, cache_bytes));
  CHECK(cudaMemset(v, 1, cache_bytes));
  CHECK(cudaMalloc(&table, kKeys * sizeof(int)));
  CHECK(cudaMalloc(&sink, 4096));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("# %d SMs, SM clock %.0f MHz; a step's tiles %d KB; one block an SM\n", sms, clock_khz / 1e3,
              kStageBytes / 1024);
  const auto run = [&](const char* form, auto kernel, int stages, int block_size, int box_rows, const CUtensorMap& km,
                       const CUtensorMap& vm) {
    const int shared = stages * kStageBytes + 1024;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    float total = 0.0f;
    const int runs = 20;
    for (int r = 0; r < runs + 3; ++r) {
      CHECK(cudaMemset(issue_cycles, 0, sizeof(unsigned long long)));  // before the timed launch
      CHECK(cudaEventRecord(start));
      kernel<<<sms, kThreads, shared>>>(km, vm, global_maps, k, v, table, block_size, box_rows, sink, issue_cycles);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0.0f;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (r >= 3) total += ms;
    }
    CHECK(cudaGetLastError());
    const double us = 1e3 * total / runs, cycles = us * clock_khz / 1e3;
    unsigned long long issue = 0;
    CHECK(cudaMemcpy(&issue, issue_cycles, sizeof(issue), cudaMemcpyDeviceToHost));
    std::printf(
        "%-8s block %3d stages %d: %8.1f us, %6.1f bytes/cycle an SM, %5.0f cycles a step, a warp's issue %5.0f\n",
        form, block_size, stages, us, double(kTiles) * kStageBytes / cycles, cycles / kTiles,
        double(issue) / (sms * (kThreads / 32)));
  };
  for (int block_size : {16, 32, 64, 128}) {
    const int num_blocks = kKeys / block_size;
    std::vector<int> ids(num_blocks);
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), std::mt19937(7));  // pages in random order, as the bench's caches
    CHECK(cudaMemcpy(table, ids.data(), ids.size() * sizeof(int), cudaMemcpyHostToDevice));
    const int box_rows = std::min(block_size, kTileKeys);
    const CUtensorMap km = encode(encode_tiled, k, num_blocks, block_size, box_rows);
    const CUtensorMap vm = encode(encode_tiled, v, num_blocks, block_size, box_rows);
    const CUtensorMap maps[2] = {km, vm};
    CHECK(cudaMemcpy(global_maps, maps, sizeof(maps), cudaMemcpyHostToDevice));
    run("cp.async", stream<Form::rows, 2>, 2, block_size, box_rows, km, vm);
    run("cp.async", stream<Form::rows, 3>, 3, block_size, box_rows, km, vm);
    run("tma", stream<Form::boxes_param_maps, 2>, 2, block_size, box_rows, km, vm);
    run("tma", stream<Form::boxes_param_maps, 3>, 3, block_size, box_rows, km, vm);
    run("tma-gmap", stream<Form::boxes_global_maps, 2>, 2, block_size, box_rows, km, vm);
    run("tma-gmap", stream<Form::boxes_global_maps, 3>, 3, block_size, box_rows, km, vm);
  }
}
