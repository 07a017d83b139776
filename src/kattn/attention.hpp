// kattn's entry point: paged attention over a vLLM-layout KV cache on the default execution space.
//
//   problem (inputs + params) -> validation -> batch metadata -> launch plan -> kernel -> out
//
// Throws InvalidProblem for bad input and NotSupported for features not implemented yet; in
// both cases nothing is written to `out`.
#pragma once

#include "kattn/core/error.hpp"
#include "kattn/core/storage_types.hpp"
#include "kattn/kernels/attention_inputs.hpp"
#include "kattn/problem/attention_params.hpp"
#include "kattn/tuning/launch_plan.hpp"

namespace kattn {

// Q is float, fp16_t or bf16_t; Cache and Out are Q or fp8_e4m3_t. Inputs and output live in
// kattn::MemorySpace. Returns the plan that ran.
template <class Q, class Cache, class Out>
LaunchPlan attention(const AttentionInputs<Q, Cache>& inputs, const AttentionParams& params,
                     const AttentionOutput<Out>& out, const AttentionOptions& options = {});

}  // namespace kattn
