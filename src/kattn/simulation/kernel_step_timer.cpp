#include "kattn/simulation/kernel_step_timer.hpp"

#include "kattn/attention.hpp"
#include "kattn/kernels/decode_graph.hpp"
#include "kattn/kernels/device_problem.hpp"
#include "kattn/simulation/step_batch_layout.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

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

// The batch sizes graphs are captured for: 1, 2, 4, then multiples of 8 (vLLM's capture sizes).
int captured_batch_size(int num_seqs) {
  if (num_seqs <= 4) return num_seqs <= 1 ? 1 : num_seqs <= 2 ? 2 : 4;
  return (num_seqs + 7) / 8 * 8;
}

int power_of_two_at_least(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// The fixed buffers of one captured decode graph, and the graph over them.
template <class T>
class GraphSlot {
 public:
  GraphSlot(const AttentionInputs<T, T>& pool, const AttentionParams& params, int capacity, int max_seq_len,
            std::optional<Variant> variant)
      : q_("graph q", capacity, pool.q.extent(1), pool.q.extent(2)),
        out_("graph out", capacity, pool.q.extent(1), pool.q.extent(2)),
        block_table_("graph block_table", capacity, (max_seq_len + pool.k_cache.extent(1) - 1) / pool.k_cache.extent(1)),
        cu_seqlens_q_("graph cu_seqlens_q", capacity + 1),
        seq_lens_("graph seq_lens", capacity),
        table_host_(Kokkos::create_mirror_view(block_table_)),
        seq_lens_host_(Kokkos::create_mirror_view(seq_lens_)) {
    const auto cu = Kokkos::create_mirror_view(cu_seqlens_q_);  // one token per row, real or padding
    for (std::size_t i = 0; i < cu.extent(0); ++i) cu(i) = std::int32_t(i);
    Kokkos::deep_copy(cu_seqlens_q_, cu);
    Kokkos::deep_copy(seq_lens_, 1);
    AttentionInputs<T, T> buffers = pool;
    buffers.q = q_;
    buffers.block_table = block_table_;
    buffers.cu_seqlens_q = cu_seqlens_q_;
    buffers.seq_lens = seq_lens_;
    AttentionOptions options;
    options.variant = variant;
    graph_ = std::make_unique<DecodeGraph<T>>(buffers, params, out_, max_seq_len, options);
  }

  // The step's tensors into the buffers; the rows past its sequences are padding: one token on
  // block 0 (DecodeGraph's convention). Block-table columns past the graph's contexts are never read.
  void load(const HostProblem& step, const AttentionInputs<T, T>& step_inputs) {
    const Geometry& g = step.geometry;
    Kokkos::deep_copy(table_host_, 0);
    Kokkos::deep_copy(seq_lens_host_, 1);
    const int columns = std::min(g.max_blocks_per_seq, int(table_host_.extent(1)));
    for (int s = 0; s < g.num_seqs; ++s) {
      seq_lens_host_(s) = step.seq_lens[std::size_t(s)];
      for (int b = 0; b < columns; ++b)
        table_host_(s, b) = step.block_table[std::size_t(s) * std::size_t(g.max_blocks_per_seq) + std::size_t(b)];
    }
    Kokkos::deep_copy(block_table_, table_host_);
    Kokkos::deep_copy(seq_lens_, seq_lens_host_);
    Kokkos::deep_copy(Kokkos::subview(q_, std::make_pair(0, g.num_seqs), Kokkos::ALL, Kokkos::ALL), step_inputs.q);
  }

  void replay() const { graph_->replay(); }

 private:
  Kokkos::View<T***, Kokkos::LayoutRight, MemorySpace> q_;
  AttentionOutput<T> out_;
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, MemorySpace> block_table_;
  Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace> cu_seqlens_q_, seq_lens_;
  // Host staging of a step's block table and lengths, made once (load runs every replayed step).
  typename decltype(block_table_)::HostMirror table_host_;
  typename decltype(seq_lens_)::HostMirror seq_lens_host_;
  std::unique_ptr<DecodeGraph<T>> graph_;
};

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
    pool_ = synthesize_problem<T, T, T>(step_layout(one_token, config), options.seed).inputs;
  }

  std::string description() const override {
    std::string text = std::string("kattn::attention on ") + ExecutionSpace::name() + ", one layer timed";
    if (options_.variant) text += ", variant " + std::string(to_string(*options_.variant));
    if (options_.graph_replay)
      text += "; decode-only steps replayed as captured graphs (" + std::to_string(graphs_.size()) + " captured)";
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
    if (!options_.graph_replay || batch.num_decodes() != int(batch.sequences.size())) return eager_us;
    GraphSlot<T>& slot = graph_for(layout, d.params);
    slot.load(layout, d.inputs);
    last_eager_us_ = eager_us;
    return time_calls(options_, [&] { slot.replay(); });
  }

  std::optional<double> last_eager_us() const override { return last_eager_us_; }

 private:
  GraphSlot<T>& graph_for(const HostProblem& layout, const AttentionParams& params) {
    const int capacity = captured_batch_size(layout.geometry.num_seqs);
    const int longest = *std::max_element(layout.seq_lens.begin(), layout.seq_lens.end());
    const int max_seq_len = power_of_two_at_least(longest);
    std::unique_ptr<GraphSlot<T>>& slot = graphs_[{capacity, max_seq_len}];
    if (!slot) slot = std::make_unique<GraphSlot<T>>(pool_, params, capacity, max_seq_len, options_.variant);
    return *slot;
  }

  ModelConfig config_;
  KernelTimerOptions options_;
  AttentionInputs<T, T> pool_;
  std::uint64_t steps_ = 0;
  std::map<std::pair<int, int>, std::unique_ptr<GraphSlot<T>>> graphs_;  // by (batch size, context bound)
  std::optional<double> last_eager_us_;
};

}  // namespace

std::unique_ptr<StepTimer> make_kernel_step_timer(const ModelConfig& config, const KernelTimerOptions& options) {
  check_model_config(config);
  if (options.warmup < 0 || options.runs < 1) throw std::invalid_argument("kernel timer needs warmup >= 0, runs >= 1");
  if (options.graph_replay && options.variant && *options.variant != Variant::split_kv)
    throw std::invalid_argument("graph replay captures split_kv decode steps; variant " +
                                std::string(to_string(*options.variant)) + " cannot be replayed");
  return dispatch_storage(config.dtype, config.dtype, config.dtype, [&](auto q, auto cache, auto out) -> std::unique_ptr<StepTimer> {
    using T = decltype(q);
    if constexpr (std::is_same_v<T, decltype(cache)> && std::is_same_v<T, decltype(out)>)
      return std::unique_ptr<StepTimer>(new KernelStepTimer<T>(config, options));
    else
      throw std::logic_error("a model config has one dtype for q, cache and out");
  });
}

}  // namespace kattn::sim
