// Small problems shared by the tests.
#pragma once

#include "kattn/kernels/device_problem.hpp"
#include "kattn/workload/generator.hpp"

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
