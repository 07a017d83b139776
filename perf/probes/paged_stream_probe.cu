// Probe: how fast a split-KV grid streams a paged KV cache, with each partition's tiles fixed in
// advance (kattn's SplitKvMmaKernel) or claimed at run time from a pool per KV head. Plain CUDA,
// no Kokkos: it isolates the copy pattern (16-key K and V tiles of one KV head, cp.async rings
// per warp, 128-byte lines) from the attention arithmetic, which a dependent FMA chain a tile
// stands in for. Usage (docs/performance.md has the runs):
//   nvcc -O3 -arch=sm_90 -o probe perf/probes/paged_stream_probe.cu && ./probe [context]
// Times are CUDA events around one launch, the L2 flushed before each run (as `kattn bench`).
#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "cuda_check.hpp"

constexpr int kBlock = 16, kHeads = 8, kHead = 128, kTileKeys = 16;
constexpr int kRowBytes = kHead * 2, kSlotBytes = kHeads * kRowBytes, kBlockBytes = kBlock * kSlotBytes;
constexpr int kTileBytes = kTileKeys * kRowBytes;  // one of K or V

struct Config {
  int warps, stages, partitions, chunk_tiles;  // partitions a (sequence, KV head); chunk_tiles 0: static partitions
  int spin;                                    // dependent FMAs a lane runs a tile (the arithmetic's stand-in)
  bool prefetch_256 = false;                   // the L2's 256-byte prefetch on each row's first line
};

// The L2 prefetch hint of a copy: 128 bytes (kattn's), or 256 on the first line of each 256 bytes.
template <int Prefetch>
__device__ inline void copy16(unsigned to, const char* from) {
  if constexpr (Prefetch == 256)
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(to), "l"(from));
  else
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(to), "l"(from));
}

// Lane l copies rows l/8 + 4r (r < 4) and 16-byte chunks l%8 + 8c (c < 2) of a tile's K and V.
__device__ inline void stage_tile(const char* k, const char* v, const int* table, int kv_head, int tile, unsigned k_to,
                                  unsigned v_to, bool prefetch_256) {
  const int lane = threadIdx.x % 32;
  const int block = table[tile];  // 16-key tiles are whole blocks of 16
  const std::int64_t base = std::int64_t(block) * kBlockBytes + kv_head * kRowBytes + (lane % 8) * 16;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int row = lane / 8 + 4 * r;
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const std::int64_t from = base + std::int64_t(row) * kSlotBytes + c * 128;
      const unsigned to = unsigned(row * kRowBytes + (lane % 8) * 16 + c * 128);
      if (c == 0 && prefetch_256) {
        copy16<256>(k_to + to, k + from);
        copy16<256>(v_to + to, v + from);
      } else {
        copy16<128>(k_to + to, k + from);
        copy16<128>(v_to + to, v + from);
      }
    }
  }
  asm volatile("cp.async.commit_group;");
}

template <int Stages>
__device__ inline void wait_stage() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Stages - 1));
  __syncwarp();
}

template <int Stages>
__global__ void stream(const char* k, const char* v, const int* tables, int tiles_per_head, Config cfg, int* claims,
                       float* sink) {
  extern __shared__ __align__(128) char smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Teams as kattn's split-KV grid: partitions fastest, then KV heads, then sequences.
  const int partition = blockIdx.x % cfg.partitions, kv_head = blockIdx.x / cfg.partitions % kHeads;
  const int seq = blockIdx.x / (cfg.partitions * kHeads);
  const int* table = tables + std::int64_t(seq) * tiles_per_head;
  int* const pool = claims + seq * kHeads + kv_head;
  char* ring = smem + warp * Stages * 2 * kTileBytes;
  const unsigned ring_to = unsigned(__cvta_generic_to_shared(ring));
  const int per_part = (tiles_per_head + cfg.partitions - 1) / cfg.partitions;
  const int first = partition * per_part, end = min(first + per_part, tiles_per_head);

  // Tile i of this warp: static, tiles first + warp + i * warps; claimed, chunks of chunk_tiles
  // tiles taken from the head's pool one chunk ahead of use.
  int chunk_start = 0, next_start = 0;
  const bool claimed = cfg.chunk_tiles > 0;
  auto claim = [&]() {
    int s = 0;
    if (lane == 0) s = atomicAdd(pool, cfg.chunk_tiles);
    return __shfl_sync(0xffffffffu, s, 0);
  };
  if (claimed) {
    chunk_start = claim();
    next_start = claim();
  }
  auto tile_of = [&](int i, bool& valid) {
    if (!claimed) {
      const int t = first + warp + i * cfg.warps;
      valid = t < end;
      return t;
    }
    const int in_chunk = i % cfg.chunk_tiles;
    if (i > 0 && in_chunk == 0) {  // the next chunk starts: claim the one after it
      chunk_start = next_start;
      next_start = claim();
    }
    const int t = chunk_start + in_chunk;
    valid = t < tiles_per_head;
    return t;
  };

  float acc = 0.0f;
  bool valid_at[Stages];
  int staged = 0;
  const auto stage_next = [&] {  // the next tile into its ring slot (an empty group past the last)
    bool valid;
    const int t = tile_of(staged, valid);
    valid_at[staged % Stages] = valid;
    const unsigned to = ring_to + (staged % Stages) * 2 * kTileBytes;
    if (valid)
      stage_tile(k, v, table, kv_head, t, to, to + kTileBytes, cfg.prefetch_256);
    else
      asm volatile("cp.async.commit_group;");
    ++staged;
  };
  while (staged < Stages - 1) stage_next();
  for (int i = 0;; ++i) {
    stage_next();
    if (!valid_at[i % Stages]) break;
    wait_stage<Stages>();
    const char* tile = ring + (i % Stages) * 2 * kTileBytes;
    const float4 kx = *reinterpret_cast<const float4*>(tile + lane * 16);
    const float4 vx = *reinterpret_cast<const float4*>(tile + kTileBytes + lane * 16);
    float x = kx.x + vx.y;
    for (int s = 0; s < cfg.spin; ++s) x = fmaf(x, 0.999f, 0.5f);
    acc += x;
    __syncwarp();
  }
  asm volatile("cp.async.wait_all;");
  if (acc == 12345.0f) sink[blockIdx.x] = acc;  // never true: keeps the loads
}

// The stream floor: every byte of K and V read once with 16-byte loads, a grid of 4224 × 128 threads.
__global__ void plain_read(const float4* k, const float4* v, std::size_t n, float* sink) {
  float acc = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float4 a = k[i], b = v[i];
    acc += a.x + b.y;
  }
  if (acc == 12345.0f) sink[blockIdx.x] = acc;
}

int main(int argc, char** argv) {
  // probe [context [batch [partition_keys [warps stages chunk_tiles spin]]]]: the sweep below, or one configuration.
  const int context = argc > 1 ? std::atoi(argv[1]) : 131072;
  const int batch = argc > 2 ? std::atoi(argv[2]) : 1;
  const int partition_keys = argc > 3 ? std::atoi(argv[3]) : 4096;
  const int tiles_per_head = context / kTileKeys;
  const int num_blocks = batch * (context / kBlock);
  const std::size_t cache_bytes = std::size_t(num_blocks) * kBlockBytes;
  // KATTN_PROBE_OFFSET bytes past cudaMalloc's alignment, as a Kokkos View's data lies 128 bytes
  // past its allocation (its header).
  const int offset = std::getenv("KATTN_PROBE_OFFSET") ? std::atoi(std::getenv("KATTN_PROBE_OFFSET")) : 0;
  char *k, *v, *flush;
  int *table, *claims;
  float* sink;
  CHECK(cudaMalloc(&k, cache_bytes + offset));
  CHECK(cudaMalloc(&v, cache_bytes + offset));
  CHECK(cudaMemset(k, 0, cache_bytes + offset));
  CHECK(cudaMemset(v, 0, cache_bytes + offset));
  k += offset, v += offset;
  const std::size_t flush_bytes = 256u << 20;
  CHECK(cudaMalloc(&flush, flush_bytes));
  std::vector<int> ids(num_blocks);
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), std::mt19937(7));  // pages in random order, as the bench's caches
  CHECK(cudaMalloc(&table, num_blocks * sizeof(int)));
  CHECK(cudaMemcpy(table, ids.data(), num_blocks * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&claims, batch * kHeads * sizeof(int)));
  CHECK(cudaMalloc(&sink, 1 << 20));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const double bytes = 2.0 * cache_bytes;

  // Events around one launch (20 runs after 3 warm-ups, the L2 flushed before each), then the
  // host's launch to completion (cudaLaunchKernel + cudaStreamSynchronize) over 20 more.
  struct Timing {
    double mean, min, host;
  };
  const auto time_launch = [&](auto&& reset, auto&& launch) {
    std::vector<float> times;
    for (int r = 0; r < 23; ++r) {
      CHECK(cudaMemsetAsync(flush, r, flush_bytes));
      reset();
      CHECK(cudaEventRecord(start));
      launch();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (r >= 3) times.push_back(ms * 1000.0f);
    }
    CHECK(cudaGetLastError());
    double host = 0.0;
    for (int r = 0; r < 20; ++r) {
      CHECK(cudaMemsetAsync(flush, r, flush_bytes));
      reset();
      CHECK(cudaDeviceSynchronize());
      const auto t0 = std::chrono::steady_clock::now();
      launch();
      CHECK(cudaStreamSynchronize(0));
      host += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    std::sort(times.begin(), times.end());
    return Timing{std::accumulate(times.begin(), times.end(), 0.0) / times.size(), times.front(), host / 20};
  };

  const auto run = [&](const char* name, Config cfg) {
    const int teams = batch * kHeads * cfg.partitions;
    const int smem = cfg.warps * cfg.stages * 2 * kTileBytes;
    auto kernel = cfg.stages == 2 ? stream<2> : cfg.stages == 4 ? stream<4> : stream<8>;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    const Timing t =
        time_launch([&] { CHECK(cudaMemsetAsync(claims, 0, batch * kHeads * sizeof(int))); },
                    [&] { kernel<<<teams, 32 * cfg.warps, smem>>>(k, v, table, tiles_per_head, cfg, claims, sink); });
    std::printf(
        "%-32s warps %d stages %d partitions %3d chunk %2d spin %4d teams %5d: events mean %7.1f min %7.1f us "
        "(%.2f TB/s), launch to done %6.1f us\n",
        name, cfg.warps, cfg.stages, cfg.partitions, cfg.chunk_tiles, cfg.spin, teams, t.mean, t.min,
        bytes / t.mean * 1e-6, t.host);
  };

  std::printf("context %d, batch %d, %d KV heads, head %d, block %d: %.1f MB of K and V, %d bytes past alignment\n",
              context, batch, kHeads, kHead, kBlock, bytes / 1e6, offset);
  {
    const Timing t =
        time_launch([] {},
                    [&] {
                      plain_read<<<4224, 128>>>(reinterpret_cast<const float4*>(k), reinterpret_cast<const float4*>(v),
                                                cache_bytes / 16, sink);
                    });
    std::printf("%-32s events mean %7.1f min %7.1f us (%.2f TB/s), launch to done %6.1f us\n",
                "plain read (stream floor)", t.mean, t.min, bytes / t.mean * 1e-6, t.host);
  }
  const int parts = std::max(1, context / partition_keys);
  if (argc > 7) {
    const bool prefetch_256 =
        std::getenv("KATTN_PROBE_PREFETCH") && std::atoi(std::getenv("KATTN_PROBE_PREFETCH")) == 256;
    run(prefetch_256 ? "one configuration, L2::256B" : "one configuration",
        {std::atoi(argv[4]), std::atoi(argv[5]), parts, std::atoi(argv[6]), std::atoi(argv[7]), prefetch_256});
    return 0;
  }
  for (int spin : {0, 256, 512, 1024}) {
    run("static (kattn's assignment)", {2, 2, parts, 0, spin});
    run("static, 4 stages", {2, 4, parts, 0, spin});
    run("static, 4 warps", {4, 2, parts, 0, spin});
    run("claimed, chunks of 4 tiles", {2, 2, parts, 4, spin});
  }
  return 0;
}
