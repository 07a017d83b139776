// The seeded workload generator: a WorkloadSpec becomes a valid HostProblem, the same one for
// the same spec on every machine (std::mt19937_64 with explicit integer arithmetic).
#pragma once

#include "kattn/problem/host_problem.hpp"
#include "kattn/workload/scenario.hpp"

#include <vector>

namespace kattn {

struct SequenceShape {
  int seq_len = 1;    // context + query
  int query_len = 1;  // new tokens; 1 = decode, seq_len = prefill without context
};

// A batch with explicit sequences; block allocation and tensor values come from the seed.
struct BatchSpec {
  ModelGeometry model;
  DType dtype = DType::fp16;
  int block_size = 16;
  std::vector<SequenceShape> sequences;
  bool permute_blocks = true;
  bool causal = true;
  std::uint64_t seed = 1;
  bool with_values = true;  // false: index tensors only, q/k/v left empty (benchmarks fill them on the device)
  FeatureSpec features;
};

HostProblem generate_batch(const BatchSpec& spec);

// The batch of a workload: sequence shapes drawn from the spec (decodes first).
BatchSpec draw_batch(const WorkloadSpec& spec);

// generate_batch(draw_batch(spec)).
HostProblem generate_problem(const WorkloadSpec& spec);

}  // namespace kattn
