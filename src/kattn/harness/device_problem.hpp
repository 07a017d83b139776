// A problem resident in device memory: inputs, output and parameters, ready for attention().
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/core/storage_types.hpp"
#include "kattn/harness/aligned_view.hpp"
#include "kattn/problem/attention_inputs.hpp"
#include "kattn/problem/host_problem.hpp"

#include <cstdint>
#include <vector>

namespace kattn {

template <class Q, class Cache, class Out, class Memory = MemorySpace>
struct DeviceProblem {
  AttentionInputs<Q, Cache, Memory> inputs;
  AttentionOutput<Out, Memory> out;
  AttentionParams params;
  AlignedStorage<Memory> storage;  // what synthesized q, caches and out alias (aligned_view.hpp)
};

// Copies a validated host problem to Space's memory (built for every backend: core/backends.hpp),
// converting values to the storage types (which must be the problem's: see dispatch_storage).
template <class Q, class Cache, class Out, class Space = ExecutionSpace>
DeviceProblem<Q, Cache, Out, typename Space::memory_space> upload_problem(const HostProblem& problem);

// Copies only the index tensors of `layout` (its q/k/v may be empty) and fills q, K and V on the
// device with deterministic pseudo-random values in [-1, 1): for benchmarks whose caches would be
// too large to build on the host. q, the caches and out start on 512-byte boundaries, as a torch
// caller's do, inside the problem's `storage`: keep the problem while its views are used.
template <class Q, class Cache, class Out>
DeviceProblem<Q, Cache, Out> synthesize_problem(const HostProblem& layout, std::uint64_t seed);

// synthesize_problem on caches another problem keeps (a serving simulator's KV pool, filled
// once): uploads the index tensors of `layout`, fills q, allocates out, and takes k_cache and
// v_cache from `caches` (whose extents must match the layout's geometry).
template <class Q, class Cache, class Out>
DeviceProblem<Q, Cache, Out> synthesize_queries(const HostProblem& layout, const DeviceProblem<Q, Cache, Out>& caches,
                                                std::uint64_t seed);

// out's values as float, [num_tokens, num_q_heads, head_size] (waits for the kernels writing it).
template <class Out, class Memory>
std::vector<float> download_out(const AttentionOutput<Out, Memory>& out) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::vector<float> values(host.span());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = to_float(host.data()[i]);
  return values;
}

// The metadata a call computes on this problem, which the tuner asks the table about (uploads
// only cu_seqlens_q and seq_lens).
BatchMetadata problem_batch_metadata(const HostProblem& problem);

}  // namespace kattn
