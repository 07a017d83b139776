// A problem resident in device memory: inputs, output and parameters, ready for attention().
#pragma once

#include "kattn/kernels/attention_inputs.hpp"
#include "kattn/problem/host_problem.hpp"

#include <cstdint>

namespace kattn {

template <class Storage>
struct DeviceProblem {
  AttentionInputs<Storage> inputs;
  AttentionOutput<Storage> out;
  AttentionParams params;
};

// Copies a validated host problem to the device, converting values to Storage.
template <class Storage>
DeviceProblem<Storage> upload_problem(const HostProblem& problem);

// Copies only the index tensors of `layout` (its q/k/v may be empty) and fills q, K and V on the
// device with deterministic pseudo-random values in [-1, 1): for benchmarks whose caches would be
// too large to build on the host.
template <class Storage>
DeviceProblem<Storage> synthesize_problem(const HostProblem& layout, std::uint64_t seed);

}  // namespace kattn
