// A vLLM-like scheduler (docs/simulation.md): continuous batching, the running decodes first, then
// prefill chunks under a token budget, blocks from a fixed pool, and preemption by recomputation.
#pragma once

#include "kattn/simulation/block_allocator.hpp"
#include "kattn/simulation/model_config.hpp"
#include "kattn/simulation/trace.hpp"

#include <cstdint>
#include <deque>
#include <vector>

namespace kattn::sim {

// One request's progress. Its known tokens are the prompt and what it generated so far; those
// whose KV is in the cache are computed. After a preemption nothing is computed: the prompt and
// the generated tokens are recomputed as a prefill.
struct RequestState {
  Request request;
  int num_generated = 0;
  int num_computed = 0;
  int num_preemptions = 0;
  bool finished = false;
  std::vector<std::int32_t> blocks;  // the request's block table row

  int num_known() const { return request.prompt_len + num_generated; }
  int num_pending() const { return num_known() - num_computed; }
  // A decode computes the last sampled token; everything else pending is prefill.
  bool is_decode() const { return num_generated > 0 && num_pending() == 1; }
};

// One sequence of a step: `new_tokens` query tokens after `context_len` cached ones.
struct ScheduledSequence {
  int request = 0;  // index into Scheduler::states()
  int context_len = 0;
  int new_tokens = 0;
  bool decode = false;
  std::vector<std::int32_t> blocks;  // covers context_len + new_tokens tokens

  int seq_len() const { return context_len + new_tokens; }
};

// A step's batch in kattn's order: decodes first, then prefill chunks.
struct StepBatch {
  std::vector<ScheduledSequence> sequences;
  std::vector<int> preempted;  // requests preempted while this step was scheduled

  bool empty() const { return sequences.empty(); }
  int num_tokens() const;
  int num_decodes() const;
  int num_prefill_tokens() const { return num_tokens() - num_decodes(); }
};

class Scheduler {
 public:
  // Throws std::invalid_argument for a request that could never fit in the KV capacity.
  Scheduler(const ModelConfig& config, const std::vector<Request>& requests);

  // Admits the requests that arrived by `now_s` and schedules one step (possibly empty).
  StepBatch schedule(double now_s);
  // The step ran: its tokens are computed; a sequence whose pending tokens are all computed
  // samples a token. Returns the requests that sampled one; finished requests free their blocks.
  std::vector<int> complete(const StepBatch& batch);

  bool all_finished() const { return num_finished_ == int(states_.size()); }
  double next_arrival_s() const;  // of the first request not admitted yet; infinity if none
  const std::vector<RequestState>& states() const { return states_; }
  const BlockAllocator& allocator() const { return allocator_; }

 private:
  int grant(std::size_t position, int wanted, StepBatch& batch, std::vector<bool>& scheduled);
  void preempt(std::size_t position, StepBatch& batch);
  void add(int request, int new_tokens, StepBatch& batch, std::vector<bool>& scheduled);

  ModelConfig config_;
  std::vector<RequestState> states_;  // in arrival order
  BlockAllocator allocator_;
  std::size_t next_arrival_ = 0;
  std::deque<int> waiting_;   // arrived, holding no blocks; preempted requests go to the front
  std::vector<int> running_;  // holding blocks, in admission order
  int num_finished_ = 0;
};

}  // namespace kattn::sim
