#include "kattn/simulation/kernel_step_timer.hpp"

#include "kattn/attention.hpp"
#include "kattn/kernels/device_problem.hpp"
#include "kattn/simulation/step_batch_layout.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>

namespace kattn::sim {
namespace {

template <class Q, class Cache, class Out>
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
    pool_ = synthesize_problem<Q, Cache, Out>(step_layout(one_token, config), options.seed).inputs;
  }

  std::string description() const override {
    return std::string("kattn::attention on ") + ExecutionSpace::name() + ", one layer timed";
  }

  double attention_us(const StepBatch& batch) override {
    const HostProblem layout = step_layout(batch, config_);
    const DeviceProblem<Q, Cache, Out> d = synthesize_queries<Q, Cache, Out>(layout, pool_, options_.seed + ++steps_);
    AttentionOptions options;
    options.check_values = false;  // the scheduler built the index tensors, as a server's would
    for (int i = 0; i < options_.warmup; ++i) attention(d.inputs, d.params, d.out, options);
    Kokkos::fence();
    double total_us = 0.0;
    for (int i = 0; i < options_.runs; ++i) {
      Kokkos::Timer timer;
      attention(d.inputs, d.params, d.out, options);
      Kokkos::fence();
      total_us += timer.seconds() * 1e6;
    }
    return total_us / options_.runs;
  }

 private:
  ModelConfig config_;
  KernelTimerOptions options_;
  AttentionInputs<Q, Cache> pool_;
  std::uint64_t steps_ = 0;
};

}  // namespace

std::unique_ptr<StepTimer> make_kernel_step_timer(const ModelConfig& config, const KernelTimerOptions& options) {
  check_model_config(config);
  if (options.warmup < 0 || options.runs < 1) throw std::invalid_argument("kernel timer needs warmup >= 0, runs >= 1");
  return dispatch_storage(config.dtype, config.dtype, config.dtype, [&](auto q, auto cache, auto out) {
    using Timer = KernelStepTimer<decltype(q), decltype(cache), decltype(out)>;
    return std::unique_ptr<StepTimer>(new Timer(config, options));
  });
}

}  // namespace kattn::sim
