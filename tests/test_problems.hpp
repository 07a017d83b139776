// Small problems shared by the tests.
#pragma once

#include "kattn/batch/batch_metadata.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/workload/generator.hpp"

#include <algorithm>

namespace kattn::test {

// A valid mixed batch: a decode, a chunked prefill with context and a prefill without context.
inline HostProblem small_mixed_problem(DType dtype = DType::fp32, int block_size = 4) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.dtype = dtype;
  spec.block_size = block_size;
  spec.sequences = {{9, 1}, {13, 5}, {6, 6}};
  spec.seed = 7;
  return generate_batch(spec);
}

// The next step on the same shapes: every context 3 keys shorter where it has them, new queries
// (one plan serves both).
inline HostProblem next_step(HostProblem step) {
  for (int s = 0; s < step.geometry.num_seqs; ++s) {
    const int query_len = step.cu_seqlens_q[std::size_t(s) + 1] - step.cu_seqlens_q[std::size_t(s)];
    int& seq_len = step.seq_lens[std::size_t(s)];
    seq_len = std::max(query_len, seq_len - 3);
  }
  for (float& x : step.q) x = -x;
  return step;
}

// A plan's metadata from exact host copies of the batch, or from the bounds a server knows.
inline BatchMetadata exact_metadata(const HostProblem& p) {
  return host_batch_metadata(p.cu_seqlens_q.data(), p.seq_lens.data(), p.geometry.num_seqs);
}

inline BatchMetadata bounds_of(const HostProblem& p) {
  int max_query_len = 0;
  for (int s = 0; s < p.geometry.num_seqs; ++s)
    max_query_len = std::max(max_query_len, p.cu_seqlens_q[std::size_t(s) + 1] - p.cu_seqlens_q[std::size_t(s)]);
  return bounded_batch_metadata(p.geometry.num_seqs, p.geometry.num_tokens, max_query_len,
                                *std::max_element(p.seq_lens.begin(), p.seq_lens.end()));
}

// A server's step: the next step's q and index tensors written into the buffers a graph was
// captured on (the inputs hold read-only views; a server writes through its own handles).
template <class View>
auto writable(const View& view) {
  return Kokkos::View<typename View::non_const_data_type, typename View::array_layout, MemorySpace,
                      Kokkos::MemoryUnmanaged>(const_cast<typename View::non_const_value_type*>(view.data()),
                                               view.layout());
}

template <class Q, class Cache, class Out>
void copy_indices_and_q(const DeviceProblem<Q, Cache, Out>& from, const DeviceProblem<Q, Cache, Out>& to) {
  Kokkos::deep_copy(writable(to.inputs.q), from.inputs.q);
  Kokkos::deep_copy(writable(to.inputs.block_table), from.inputs.block_table);
  Kokkos::deep_copy(writable(to.inputs.cu_seqlens_q), from.inputs.cu_seqlens_q);
  Kokkos::deep_copy(writable(to.inputs.seq_lens), from.inputs.seq_lens);
}

}  // namespace kattn::test
