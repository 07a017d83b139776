#include "kattn/simulation/kernel_step_timer.hpp"

#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/simulation/step_batch_layout.hpp"
#include "kattn/simulation/step_graph.hpp"

#include <Kokkos_Core.hpp>

#include <map>
#include <memory>
#include <stdexcept>
#include <type_traits>

namespace kattn::sim {
namespace {

// Mean microseconds of `runs` calls of `call` after `warmup` untimed ones, host to completion.
template <class Call>
double time_calls(const KernelTimerOptions& o, const Call& call) {
  for (int i = 0; i < o.warmup; ++i) call();
  Kokkos::fence();
  double total_us = 0.0;
  for (int i = 0; i < o.runs; ++i) {
    Kokkos::Timer timer;
    call();
    Kokkos::fence();
    total_us += timer.seconds() * 1e6;
  }
  return total_us / o.runs;
}

// T: the model's dtype (q, cache and out).
template <class T>
class KernelStepTimer : public StepTimer {
 public:
  KernelStepTimer(const ModelConfig& config, const KernelTimerOptions& options) : config_(config), options_(options) {
    // The pool: a layout of one token over the whole capacity, so that synthesize_problem fills
    // every block once.
    StepBatch one_token;
    ScheduledSequence seq;
    seq.new_tokens = 1;
    seq.blocks = {0};
    one_token.sequences.push_back(seq);
    pool_ = synthesize_problem<T, T, T>(step_layout(one_token, config), options.seed);
  }

  std::string description() const override {
    std::string text = std::string("kattn::attention on ") + ExecutionSpace::name() + ", one layer timed";
    if (options_.variant) text += ", variant " + std::string(to_string(*options_.variant));
    if (options_.graph_replay)
      text += "; every step also replayed as a captured graph (" + std::to_string(graphs_.size()) + " captured)";
    return text;
  }

  double attention_us(const StepBatch& batch) override {
    const HostProblem layout = step_layout(batch, config_);
    const DeviceProblem<T, T, T> d = synthesize_queries<T, T, T>(layout, pool_, options_.seed + ++steps_);
    AttentionOptions options;
    options.check_values = false;  // the scheduler built the index tensors, as a server's would
    options.variant = options_.variant;
    const double eager_us = time_calls(options_, [&] { attention(d.inputs, d.params, d.out, options); });
    last_eager_us_.reset();
    if (!options_.graph_replay) return eager_us;
    StepGraph<T>& graph = graph_for(layout, d.params);
    graph.load(layout, d.inputs);
    last_eager_us_ = eager_us;
    return time_calls(options_, [&] { graph.replay(); });
  }

  std::optional<double> last_eager_us() const override { return last_eager_us_; }

 private:
  // Captured on first use of a shape (not timed: a server captures at start-up).
  StepGraph<T>& graph_for(const HostProblem& layout, const AttentionParams& params) {
    const GraphShape shape = GraphShape::of(layout);
    AttentionOptions options;
    options.variant = options_.variant;
    return graphs_.try_emplace(shape, shape, pool_.inputs, params, options).first->second;
  }

  ModelConfig config_;
  KernelTimerOptions options_;
  DeviceProblem<T, T, T> pool_;  // the KV pool every step's queries read
  std::uint64_t steps_ = 0;
  std::map<GraphShape, StepGraph<T>> graphs_;
  std::optional<double> last_eager_us_;
};

}  // namespace

std::unique_ptr<StepTimer> make_kernel_step_timer(const ModelConfig& config, const KernelTimerOptions& options) {
  check_model_config(config);
  if (options.warmup < 0 || options.runs < 1) throw std::invalid_argument("kernel timer needs warmup >= 0, runs >= 1");
  return dispatch_storage(config.dtype, config.dtype, config.dtype,
                          [&](auto q, auto cache, auto out) -> std::unique_ptr<StepTimer> {
                            using T = decltype(q);
                            if constexpr (std::is_same_v<T, decltype(cache)> && std::is_same_v<T, decltype(out)>)
                              return std::unique_ptr<StepTimer>(new KernelStepTimer<T>(config, options));
                            else
                              throw std::logic_error("a model config has one dtype for q, cache and out");
                          });
}

}  // namespace kattn::sim
