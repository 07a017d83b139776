// A decode step captured once and replayed (paper 6.2). The split_kv launches of a batch of
// `capacity` decode sequences (one query token each) over fixed buffers are recorded as a Kokkos
// graph (a CUDA graph on CUDA); each replay reads the buffers' current contents. A serving loop
// writes a step's q, block table, cu_seqlens_q and seq_lens into the buffers and replays: no
// planning, no batch-metadata reduction, no host round trip, one graph launch.
//
// The launch shape is fixed at capture: partitions for contexts of up to `max_seq_len` keys, and
// `capacity` tokens. A step with fewer sequences pads the batch up to `capacity` (as vLLM pads to
// its captured sizes): padding sequences of one query token and seq_len 1 on block 0, whose
// output rows are ignored. A step whose contexts exceed `max_seq_len` needs a graph captured for
// longer ones (the partitions past max_seq_len would be missing); nothing checks this on replay.
#pragma once

#include "kattn/kernels/attention_inputs.hpp"
#include "kattn/kernels/workspace.hpp"
#include "kattn/problem/attention_params.hpp"
#include "kattn/tuning/launch_plan.hpp"

#include <Kokkos_Graph.hpp>

#include <optional>

namespace kattn {

// T: float, fp16_t or bf16_t (q, cache and out of one type).
template <class T>
class DecodeGraph {
 public:
  // Checks the buffers as kattn::attention does (shapes; values are the caller's, as with
  // check_values off) and captures. The plan comes from the tuning table for a decode batch of
  // capacity sequences at max_seq_len, with the options' overrides; its variant must be split_kv
  // (the default here). Throws InvalidProblem / NotSupported as attention() does.
  DecodeGraph(const AttentionInputs<T, T>& buffers, const AttentionParams& params, const AttentionOutput<T>& out,
              int max_seq_len, const AttentionOptions& options = {});

  // Runs the captured launches on the buffers' current contents; asynchronous like attention().
  void replay() const { graph_->submit(); }
  const LaunchPlan& plan() const { return plan_; }

 private:
  LaunchPlan plan_;
  Workspace workspace_;  // its own: the shared one may move
  std::optional<Kokkos::Experimental::Graph<ExecutionSpace>> graph_;
};

}  // namespace kattn
