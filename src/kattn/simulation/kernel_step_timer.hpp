// The step timer that runs kattn::attention on the build's execution space.
#pragma once

#include "kattn/simulation/model_config.hpp"
#include "kattn/simulation/step_timer.hpp"
#include "kattn/tuning/launch_plan.hpp"

#include <cstdint>
#include <memory>
#include <optional>

namespace kattn::sim {

struct KernelTimerOptions {
  int warmup = 1;  // untimed calls per step before the timed ones (the later layers of a step run warm)
  int runs = 1;    // timed calls per step; the step's time is their mean
  std::uint64_t seed = 1;
  // Every step also runs as a captured graph (paper 6.2; kattn::capture_run), one per padded step
  // shape (sim::GraphShape), captured on first use; the step's time is the replay's, and its eager
  // call's is kept beside it.
  bool graph_replay = false;
  // Every call on this variant (the paper's Figure 9 compares kernel versions); empty = planned.
  std::optional<Variant> variant;
};

// Allocates one layer's KV cache of the model's full capacity and fills it once; each step then
// uploads its index tensors, fills q, and times the call from the host to completion (fenced,
// without the host copies that check index values: the scheduler built them). With graph_replay,
// each step, decode-only or mixed, then writes its index tensors and q into the buffers of the
// graph of its shape (step_graph.hpp: sequences, tokens and contexts rounded up, padding that
// sees no key) and times the replays (uploads excluded, as for the eager call).
std::unique_ptr<StepTimer> make_kernel_step_timer(const ModelConfig& config, const KernelTimerOptions& options);

}  // namespace kattn::sim
