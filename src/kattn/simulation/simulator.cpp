#include "kattn/simulation/simulator.hpp"

#include "kattn/simulation/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kattn::sim {

double RequestRecord::mean_itl_s() const {
  if (tokens.size() < 2) return 0.0;
  return (tokens.back().time_s - tokens.front().time_s) / double(tokens.size() - 1);
}

double RequestRecord::ttft_attention_share() const {
  const double ttft_us = ttft_s() * 1e6;
  return ttft_us > 0.0 ? tokens.front().attention_us / ttft_us : 0.0;
}

double RequestRecord::itl_attention_share() const {
  const double span_us = (tokens.back().time_s - tokens.front().time_s) * 1e6;
  if (tokens.size() < 2 || span_us <= 0.0) return 0.0;
  double attention_us = 0.0;
  for (std::size_t i = 1; i < tokens.size(); ++i) attention_us += tokens[i].attention_us;
  return attention_us / span_us;
}

double SimulationResult::total_attention_us() const {
  double total = 0.0;
  for (const StepRecord& s : steps) total += s.attention_us;
  return total;
}

double SimulationResult::total_busy_us() const {
  double total = 0.0;
  for (const StepRecord& s : steps) total += s.attention_us + s.other_us;
  return total;
}

int SimulationResult::peak_kv_blocks() const {
  int peak = 0;
  for (const StepRecord& s : steps) peak = std::max(peak, s.kv_blocks_used);
  return peak;
}

int SimulationResult::total_preemptions() const {
  int total = 0;
  for (const RequestRecord& r : requests) total += r.num_preemptions;
  return total;
}

long long SimulationResult::total_tokens_generated() const {
  long long total = 0;
  for (const RequestRecord& r : requests) total += (long long)r.tokens.size();
  return total;
}

SimulationResult simulate(const ModelConfig& config, const std::vector<Request>& requests, StepTimer& timer) {
  Scheduler scheduler(config, requests);
  const std::vector<RequestState>& states = scheduler.states();
  SimulationResult result;
  for (const RequestState& s : states) result.requests.push_back(RequestRecord{s.request, 0, {}});
  // Attention time each unfinished request has seen since its last token (or its arrival): the
  // overlap of its wait with each step, in proportion to the step's attention part.
  std::vector<double> attention_since_token(states.size(), 0.0);
  double clock = 0.0;
  while (!scheduler.all_finished()) {
    const StepBatch batch = scheduler.schedule(clock);
    if (batch.empty()) {
      const double next = scheduler.next_arrival_s();
      if (!std::isfinite(next) || next <= clock) throw std::logic_error("the scheduler stalled with work left");
      clock = next;
      continue;
    }
    StepRecord step;
    step.start_s = clock;
    step.num_decodes = batch.num_decodes();
    step.num_prefill_seqs = int(batch.sequences.size()) - step.num_decodes;
    step.num_prefill_tokens = batch.num_prefill_tokens();
    step.attention_us_per_layer = timer.attention_us(batch);
    if (const std::optional<double> eager = timer.last_eager_us()) {
      step.replayed = true;
      step.eager_us_per_layer = *eager;
    }
    step.attention_us = step.attention_us_per_layer * config.num_layers;
    step.other_us = config.other_us(batch.num_tokens());
    step.kv_blocks_used = scheduler.allocator().num_used();
    step.num_preempted = int(batch.preempted.size());
    step.end_s = clock + (step.attention_us + step.other_us) * 1e-6;
    const double duration_s = step.end_s - step.start_s;
    for (std::size_t r = 0; r < states.size(); ++r) {
      const double arrival = states[r].request.arrival_s;
      if (states[r].finished || arrival >= step.end_s) continue;
      const double overlap = duration_s > 0.0 ? (step.end_s - std::max(arrival, step.start_s)) / duration_s : 1.0;
      attention_since_token[r] += step.attention_us * overlap;
    }
    const int step_index = int(result.steps.size());
    for (int r : scheduler.complete(batch)) {
      result.requests[std::size_t(r)].tokens.push_back(
          TokenRecord{step.end_s, step_index, attention_since_token[std::size_t(r)]});
      attention_since_token[std::size_t(r)] = 0.0;
    }
    result.steps.push_back(step);
    clock = step.end_s;
  }
  result.end_s = clock;
  for (std::size_t r = 0; r < states.size(); ++r) result.requests[r].num_preemptions = states[r].num_preemptions;
  return result;
}

}  // namespace kattn::sim
