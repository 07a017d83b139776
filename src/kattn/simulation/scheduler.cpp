#include "kattn/simulation/scheduler.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace kattn::sim {
namespace {

int blocks_for(int tokens, int block_size) { return (tokens + block_size - 1) / block_size; }

}  // namespace

int StepBatch::num_tokens() const {
  int total = 0;
  for (const ScheduledSequence& s : sequences) total += s.new_tokens;
  return total;
}

int StepBatch::num_decodes() const {
  return int(std::count_if(sequences.begin(), sequences.end(), [](const ScheduledSequence& s) { return s.decode; }));
}

Scheduler::Scheduler(const ModelConfig& config, const std::vector<Request>& requests)
    : config_(config), allocator_(config.num_kv_blocks) {
  check_model_config(config);
  for (const Request& r : requests) {
    // The last sampled token is never computed: prompt + output - 1 tokens at most are cached.
    if (blocks_for(r.prompt_len + r.output_len - 1, config.block_size) > config.num_kv_blocks)
      throw std::invalid_argument("request " + std::to_string(r.id) + " needs more KV blocks than the " +
                                  std::to_string(config.num_kv_blocks) + " of the model config");
    RequestState s;
    s.request = r;
    states_.push_back(s);
  }
  std::stable_sort(states_.begin(), states_.end(), [](const RequestState& a, const RequestState& b) {
    return a.request.arrival_s < b.request.arrival_s;
  });
}

double Scheduler::next_arrival_s() const {
  return next_arrival_ < states_.size() ? states_[next_arrival_].request.arrival_s
                                        : std::numeric_limits<double>::infinity();
}

void Scheduler::preempt(std::size_t position, StepBatch& batch) {
  const int r = running_[position];
  RequestState& s = states_[std::size_t(r)];
  allocator_.free(s.blocks);
  s.blocks.clear();
  s.num_computed = 0;
  ++s.num_preemptions;
  running_.erase(running_.begin() + std::ptrdiff_t(position));
  waiting_.push_front(r);
  batch.preempted.push_back(r);
}

// Blocks for up to `wanted` more tokens of the running request at `position`: as many tokens as
// fit, preempting the most recently admitted request not scheduled in this step until at least
// one fits. Returns the tokens granted; 0 when the request preempted itself.
int Scheduler::grant(std::size_t position, int wanted, StepBatch& batch, std::vector<bool>& scheduled) {
  const int r = running_[position];
  RequestState& s = states_[std::size_t(r)];
  for (;;) {
    const int room = (int(s.blocks.size()) + allocator_.num_free()) * config_.block_size - s.num_computed;
    if (room >= 1) {
      const int granted = std::min(wanted, room);
      const int more = blocks_for(s.num_computed + granted, config_.block_size) - int(s.blocks.size());
      if (more > 0) {
        const std::vector<std::int32_t> ids = allocator_.allocate(more);
        s.blocks.insert(s.blocks.end(), ids.begin(), ids.end());
      }
      return granted;
    }
    std::size_t victim = running_.size() - 1;
    while (scheduled[std::size_t(running_[victim])]) --victim;  // stops at `position` at the latest
    preempt(victim, batch);
    if (victim == position) return 0;
  }
}

void Scheduler::add(int request, int new_tokens, StepBatch& batch, std::vector<bool>& scheduled) {
  const RequestState& s = states_[std::size_t(request)];
  ScheduledSequence seq;
  seq.request = request;
  seq.context_len = s.num_computed;
  seq.new_tokens = new_tokens;
  seq.decode = s.is_decode();
  seq.blocks = s.blocks;
  batch.sequences.push_back(std::move(seq));
  scheduled[std::size_t(request)] = true;
}

StepBatch Scheduler::schedule(double now_s) {
  while (next_arrival_ < states_.size() && states_[next_arrival_].request.arrival_s <= now_s)
    waiting_.push_back(int(next_arrival_++));
  StepBatch batch;
  std::vector<bool> scheduled(states_.size(), false);
  int budget = config_.max_num_batched_tokens;

  // Running decodes first, one token each, in admission order.
  for (std::size_t i = 0; i < running_.size() && budget > 0;) {
    const int r = running_[i];
    if (!states_[std::size_t(r)].is_decode()) {
      ++i;
      continue;
    }
    if (grant(i, 1, batch, scheduled) == 0) continue;  // preempted itself: running_[i] is the next one
    add(r, 1, batch, scheduled);
    --budget;
    ++i;
  }
  // Then the chunks of partially prefilled running requests (preempting as decodes do).
  for (std::size_t i = 0; i < running_.size() && budget > 0;) {
    const int r = running_[i];
    if (scheduled[std::size_t(r)]) {
      ++i;
      continue;
    }
    const int granted = grant(i, std::min(states_[std::size_t(r)].num_pending(), budget), batch, scheduled);
    if (granted == 0) continue;
    add(r, granted, batch, scheduled);
    budget -= granted;
    ++i;
  }
  // Then waiting requests in order, admitted with the free blocks only: admission never preempts,
  // and a step that preempted admits nothing (as vLLM), so a victim does not return at once.
  while (budget > 0 && batch.preempted.empty() && !waiting_.empty() && int(running_.size()) < config_.max_num_seqs) {
    const int r = waiting_.front();
    RequestState& s = states_[std::size_t(r)];
    const int granted = std::min({s.num_pending(), budget, allocator_.num_free() * config_.block_size});
    if (granted == 0) break;
    s.blocks = allocator_.allocate(blocks_for(granted, config_.block_size));
    waiting_.pop_front();
    running_.push_back(r);
    add(r, granted, batch, scheduled);
    budget -= granted;
  }
  return batch;
}

std::vector<int> Scheduler::complete(const StepBatch& batch) {
  std::vector<int> sampled;
  for (const ScheduledSequence& seq : batch.sequences) {
    RequestState& s = states_[std::size_t(seq.request)];
    s.num_computed += seq.new_tokens;
    if (s.num_pending() > 0) continue;  // a prefill chunk that is not the last
    ++s.num_generated;
    sampled.push_back(seq.request);
    if (s.num_generated < s.request.output_len) continue;
    s.finished = true;
    ++num_finished_;
    allocator_.free(s.blocks);
    s.blocks.clear();
    running_.erase(std::find(running_.begin(), running_.end(), seq.request));
  }
  return sampled;
}

}  // namespace kattn::sim
