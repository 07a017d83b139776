// A scheduled step as a kattn problem layout: the allocator's block ids in the block table, a
// KV cache of the full capacity, and no tensor values (a timer fills them on the device).
#pragma once

#include "kattn/problem/host_problem.hpp"
#include "kattn/simulation/model_config.hpp"
#include "kattn/simulation/scheduler.hpp"

namespace kattn::sim {

// Decodes first, then chunks (the batch's order); seq_len = context + new tokens; causal.
// Throws std::invalid_argument for an empty batch.
HostProblem step_layout(const StepBatch& batch, const ModelConfig& config);

}  // namespace kattn::sim
