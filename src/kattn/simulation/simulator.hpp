// The serving simulation: a trace through the scheduler, each step timed by a StepTimer, on a
// simulated clock (docs/simulation.md).
#pragma once

#include "kattn/simulation/model_config.hpp"
#include "kattn/simulation/step_timer.hpp"
#include "kattn/simulation/trace.hpp"

#include <vector>

namespace kattn::sim {

struct StepRecord {
  double start_s = 0.0;
  double end_s = 0.0;
  int num_decodes = 0;
  int num_prefill_seqs = 0;
  int num_prefill_tokens = 0;
  double attention_us_per_layer = 0.0;  // what the timer gave
  double attention_us = 0.0;            // x num_layers
  bool replayed = false;                // attention ran as a captured graph (--graph-replay)
  double eager_us_per_layer = 0.0;      // replayed steps: the same step's eager call
  double other_us = 0.0;                // the config's model of the rest of the step
  int kv_blocks_used = 0;               // after scheduling, before the step's finished requests free theirs
  int num_preempted = 0;
};

struct TokenRecord {
  double time_s = 0.0;  // end of the step that sampled it
  int step = 0;
  double attention_us = 0.0;  // attention time elapsed since the previous token (or the arrival)
};

struct RequestRecord {
  Request request;
  int num_preemptions = 0;
  std::vector<TokenRecord> tokens;

  double ttft_s() const { return tokens.front().time_s - request.arrival_s; }
  double mean_itl_s() const;            // 0 for a single token
  double ttft_attention_share() const;  // attention time in [arrival, first token] / TTFT
  double itl_attention_share() const;   // attention time in (first token, last token] / that span; 0 if one token
};

struct SimulationResult {
  std::vector<StepRecord> steps;
  std::vector<RequestRecord> requests;  // in arrival order
  double end_s = 0.0;

  double total_attention_us() const;
  double total_busy_us() const;  // attention + other, over all steps
  int peak_kv_blocks() const;
  int total_preemptions() const;
  long long total_tokens_generated() const;
};

// Runs until every request finished. Throws std::logic_error if the scheduler stalls.
SimulationResult simulate(const ModelConfig& config, const std::vector<Request>& requests, StepTimer& timer);

}  // namespace kattn::sim
