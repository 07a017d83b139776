// Small problems shared by the tests.
#pragma once

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

}  // namespace kattn::test
