// The serving simulator: block allocator, trace generators, scheduler rules, a short run on the
// kernels, and graph replay (step shapes, padded replays against the oracle, every step of a run
// replayed). No assertion depends on a measured time.
#include "kattn/core/error.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/problem/validate.hpp"
#include "kattn/simulation/block_allocator.hpp"
#include "kattn/simulation/kernel_step_timer.hpp"
#include "kattn/simulation/scheduler.hpp"
#include "kattn/simulation/simulator.hpp"
#include "kattn/simulation/step_batch_layout.hpp"
#include "kattn/simulation/step_graph.hpp"
#include "kattn/simulation/trace.hpp"
#include "kattn/workload/generator.hpp"
#include "temp_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>

namespace kattn::sim {
namespace {

ModelConfig tiny_config(int num_kv_blocks, int budget) {
  ModelConfig c;
  c.name = "tiny";
  c.geometry = model_by_name("tiny");
  c.num_layers = 2;
  c.dtype = DType::fp32;
  c.block_size = 4;
  c.num_kv_blocks = num_kv_blocks;
  c.max_num_batched_tokens = budget;
  c.max_num_seqs = 8;
  c.other_ms_per_step = 0.5;
  c.other_us_per_token = 1.0;
  return c;
}

Request request(int id, double arrival, int prompt, int output) { return Request{id, arrival, prompt, output}; }

// Every allocated block belongs to exactly one request, and an unfinished request's blocks hold its
// computed tokens (a finished one has given its blocks back).
void expect_consistent(const Scheduler& s, const ModelConfig& c) {
  std::set<int> owned;
  int count = 0;
  for (const RequestState& r : s.states()) {
    count += int(r.blocks.size());
    owned.insert(r.blocks.begin(), r.blocks.end());
    if (!r.finished) EXPECT_GE(int(r.blocks.size()) * c.block_size, r.num_computed);
    if (r.finished) EXPECT_TRUE(r.blocks.empty());
  }
  EXPECT_EQ(int(owned.size()), count);
  EXPECT_EQ(count, s.allocator().num_used());
}

TEST(BlockAllocator, HandsOutDistinctBlocksAndTakesThemBack) {
  BlockAllocator a(5);
  EXPECT_TRUE(a.can_allocate(5));
  EXPECT_FALSE(a.can_allocate(6));
  const std::vector<std::int32_t> first = a.allocate(3);
  const std::vector<std::int32_t> second = a.allocate(2);
  std::set<int> all(first.begin(), first.end());
  all.insert(second.begin(), second.end());
  EXPECT_EQ(all, (std::set<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(a.num_free(), 0);
  EXPECT_THROW(a.allocate(1), std::logic_error);
  a.free(first);
  EXPECT_EQ(a.num_used(), 2);
  EXPECT_THROW(a.free(first), std::logic_error);  // a double free
  EXPECT_THROW(a.free({7}), std::logic_error);
  EXPECT_EQ(a.allocate(3).size(), 3u);
  EXPECT_THROW(BlockAllocator(0), std::invalid_argument);
}

TEST(Trace, PoissonIsReproducibleSortedAndWithinTheLengths) {
  PoissonSpec spec;
  spec.rate_per_s = 10.0;
  spec.num_requests = 200;
  spec.prompt = parse_length_distribution("uniform:5:40");
  spec.output = parse_length_distribution("lognormal:20:0.8:1:100");
  spec.seed = 7;
  const std::vector<Request> a = poisson_trace(spec);
  const std::vector<Request> b = poisson_trace(spec);
  ASSERT_EQ(a.size(), 200u);
  double mean_gap = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(a[i].prompt_len, b[i].prompt_len);
    EXPECT_EQ(a[i].output_len, b[i].output_len);
    EXPECT_EQ(a[i].id, int(i));
    EXPECT_GE(a[i].prompt_len, 5);
    EXPECT_LE(a[i].prompt_len, 40);
    EXPECT_GE(a[i].output_len, 1);
    EXPECT_LE(a[i].output_len, 100);
    if (i > 0) EXPECT_GE(a[i].arrival_s, a[i - 1].arrival_s);
  }
  mean_gap = a.back().arrival_s / double(a.size());
  EXPECT_NEAR(mean_gap, 0.1, 0.03);  // 200 exponential gaps of mean 1/rate
  spec.seed = 8;
  EXPECT_NE(poisson_trace(spec)[0].arrival_s, a[0].arrival_s);
  EXPECT_THROW(parse_length_distribution("uniform:9"), std::invalid_argument);
  EXPECT_THROW(parse_length_distribution("normal:1:2"), std::invalid_argument);
  spec.prompt.min = 0;
  EXPECT_THROW(poisson_trace(spec), std::invalid_argument);
}

TEST(Trace, FileRoundTripSortsByArrivalAndNamesBadFields) {
  const std::string path = test::temp_path("kattn_sim_trace.json");
  write_trace(path, {request(7, 0.5, 10, 3), request(3, 0.25, 4, 9)});
  const std::vector<Request> loaded = load_trace(path);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].id, 3);  // sorted by arrival
  EXPECT_EQ(loaded[0].output_len, 9);
  EXPECT_EQ(loaded[1].arrival_s, 0.5);
  std::ofstream(path) << R"({"requests": [{"arrival_s": 0, "prompt_len": 3, "output_len": 1},
                                          {"arrival_s": 1, "prompt_len": 0, "output_len": 1}]})";
  try {
    load_trace(path);
    FAIL() << "a prompt of 0 tokens was accepted";
  } catch (const FileFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("requests[1]"), std::string::npos) << e.what();
  }
}

TEST(Trace, LatencyExperimentIsOneRequest) {
  const std::vector<Request> t = latency_experiment_trace();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].prompt_len, 500);
  EXPECT_EQ(t[0].output_len, 12800);
  EXPECT_EQ(t[0].arrival_s, 0.0);
}

TEST(Scheduler, DecodesComeFirstAndTheBudgetHolds) {
  const ModelConfig c = tiny_config(64, 10);
  // Two short requests become decodes; a long one arrives later and is chunked.
  Scheduler s(c, {request(0, 0.0, 3, 8), request(1, 0.0, 4, 8), request(2, 1.0, 25, 2)});
  StepBatch first = s.schedule(0.0);
  ASSERT_EQ(first.sequences.size(), 2u);
  EXPECT_EQ(first.num_decodes(), 0);
  EXPECT_EQ(first.num_tokens(), 7);
  s.complete(first);
  int chunks_of_long = 0, long_computed = 0;
  for (int step = 0; step < 6; ++step) {
    const StepBatch b = s.schedule(1.0);
    EXPECT_LE(b.num_tokens(), c.max_num_batched_tokens);
    bool seen_prefill = false;
    for (const ScheduledSequence& q : b.sequences) {
      if (q.decode) EXPECT_FALSE(seen_prefill) << "a decode after a prefill chunk";
      seen_prefill = seen_prefill || !q.decode;
      EXPECT_EQ(q.context_len, s.states()[std::size_t(q.request)].num_computed);
      if (q.request == 2 && !q.decode) {
        ++chunks_of_long;
        EXPECT_EQ(q.context_len, long_computed);  // chunks continue where the last one ended
        long_computed += q.new_tokens;
      }
    }
    if (step == 0) EXPECT_EQ(b.num_decodes(), 2);
    s.complete(b);
    expect_consistent(s, c);
  }
  EXPECT_EQ(chunks_of_long, 4);  // 25 tokens under a budget of 10 with 2 decodes: 8 + 8 + 8 + 1
  EXPECT_EQ(long_computed, 25);
  EXPECT_TRUE(s.states()[2].finished);  // the last chunk sampled the first token, a decode the second
}

TEST(Scheduler, PreemptsTheNewestAndItCompletesLater) {
  // 6 blocks of 4 tokens; two requests that need 5 blocks each at the end cannot both stay.
  const ModelConfig c = tiny_config(6, 32);
  Scheduler s(c, {request(0, 0.0, 8, 12), request(1, 0.0, 8, 12)});
  int steps = 0, preemptions = 0;
  bool first_preempted_second = false;
  while (!s.all_finished()) {
    ASSERT_LT(++steps, 500) << "the scheduler does not finish";
    const StepBatch b = s.schedule(0.0);
    ASSERT_FALSE(b.empty());
    EXPECT_LE(s.allocator().num_used(), c.num_kv_blocks);
    for (int r : b.preempted) {
      if (preemptions == 0) first_preempted_second = r == 1;
      ++preemptions;
      EXPECT_EQ(s.states()[std::size_t(r)].num_computed, 0);
      EXPECT_TRUE(s.states()[std::size_t(r)].blocks.empty());
    }
    s.complete(b);
    expect_consistent(s, c);
  }
  EXPECT_GE(preemptions, 1);
  EXPECT_TRUE(first_preempted_second);  // the most recently admitted goes first
  EXPECT_GT(s.states()[1].num_preemptions, 0);
  for (const RequestState& r : s.states()) EXPECT_EQ(r.num_generated, r.request.output_len);
  EXPECT_EQ(s.allocator().num_used(), 0);
  EXPECT_THROW(Scheduler(c, {request(0, 0.0, 20, 10)}), std::invalid_argument);  // can never fit
}

TEST(Scheduler, StepLayoutUsesTheAllocatorsBlocks) {
  const ModelConfig c = tiny_config(16, 32);
  Scheduler s(c, {request(0, 0.0, 5, 3), request(1, 0.0, 9, 3)});
  s.complete(s.schedule(0.0));
  const StepBatch b = s.schedule(0.0);
  const HostProblem p = step_layout(b, c);
  EXPECT_EQ(p.geometry.num_blocks, c.num_kv_blocks);
  EXPECT_EQ(p.geometry.num_seqs, 2);
  EXPECT_EQ(p.seq_lens, (std::vector<std::int32_t>{6, 10}));
  EXPECT_EQ(p.cu_seqlens_q, (std::vector<std::int32_t>{0, 1, 2}));
  for (int q = 0; q < 2; ++q) {
    const std::vector<std::int32_t>& blocks = s.states()[std::size_t(q)].blocks;
    for (std::size_t k = 0; k < blocks.size(); ++k)
      EXPECT_EQ(p.block_table[std::size_t(q * p.geometry.max_blocks_per_seq) + k], blocks[k]);
  }
  HostProblem with_values = p;  // the layout is a valid problem once it has tensors
  with_values.q.assign(std::size_t(p.geometry.q_elements()), 0.5f);
  with_values.k_cache.assign(std::size_t(p.geometry.cache_elements()), 0.25f);
  with_values.v_cache = with_values.k_cache;
  EXPECT_NO_THROW(validate(with_values));
}

TEST(Simulator, EveryRequestFinishesWithConsistentTotals) {
  const ModelConfig c = tiny_config(12, 16);
  PoissonSpec spec;
  spec.rate_per_s = 2000.0;  // arrivals faster than steps: batches mix decodes and chunks
  spec.num_requests = 6;
  spec.prompt = parse_length_distribution("uniform:3:20");
  spec.output = parse_length_distribution("uniform:2:12");
  spec.seed = 3;
  const std::vector<Request> trace = poisson_trace(spec);
  const std::unique_ptr<StepTimer> timer = make_kernel_step_timer(c, KernelTimerOptions{0, 1, 5});
  const SimulationResult r = simulate(c, trace, *timer);
  ASSERT_EQ(r.requests.size(), trace.size());
  long long tokens = 0;
  for (const RequestRecord& q : r.requests) {
    ASSERT_EQ(int(q.tokens.size()), q.request.output_len);
    tokens += q.request.output_len;
    EXPECT_GE(q.tokens.front().time_s, q.request.arrival_s);
    for (std::size_t i = 1; i < q.tokens.size(); ++i) EXPECT_GT(q.tokens[i].step, q.tokens[i - 1].step);
    EXPECT_GE(q.ttft_attention_share(), 0.0);
    EXPECT_LE(q.ttft_attention_share(), 1.0);
    EXPECT_LE(q.itl_attention_share(), 1.0);
  }
  EXPECT_EQ(r.total_tokens_generated(), tokens);
  double attention = 0.0, busy = 0.0;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const StepRecord& s = r.steps[i];
    EXPECT_DOUBLE_EQ(s.attention_us, s.attention_us_per_layer * c.num_layers);
    EXPECT_DOUBLE_EQ(s.other_us, c.other_us(s.num_decodes + s.num_prefill_tokens));
    EXPECT_NEAR((s.end_s - s.start_s) * 1e6, s.attention_us + s.other_us, 1e-6);
    EXPECT_LE(s.num_decodes + s.num_prefill_tokens, c.max_num_batched_tokens);
    EXPECT_LE(s.kv_blocks_used, c.num_kv_blocks);
    if (i > 0) EXPECT_GE(s.start_s, r.steps[i - 1].end_s);
    attention += s.attention_us;
    busy += s.attention_us + s.other_us;
  }
  EXPECT_DOUBLE_EQ(r.total_attention_us(), attention);
  EXPECT_DOUBLE_EQ(r.total_busy_us(), busy);
  EXPECT_EQ(r.end_s, r.steps.back().end_s);
}

// A step as the scheduler lays it out (decodes first), with tensor values: 3 decodes, then 3
// chunks of 30, 3 and 5 tokens after their contexts.
BatchSpec mixed_step_spec(DType dtype) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");
  spec.dtype = dtype;
  spec.block_size = 8;
  spec.sequences = {{40, 1}, {33, 1}, {17, 1}, {50, 30}, {20, 3}, {64, 5}};
  spec.seed = 31;
  spec.features.window_left = 24;
  spec.features.sinks = true;
  spec.features.softcap = 30.0f;
  return spec;
}

HostProblem step_of(const std::vector<SequenceShape>& sequences) {
  BatchSpec spec = mixed_step_spec(DType::fp32);
  spec.sequences = sequences;
  spec.with_values = false;
  return generate_batch(spec);
}

// The next step on the same cache: the sequences `kept`, contexts `shrink` keys shorter, new queries.
HostProblem next_step(const HostProblem& step, const std::vector<int>& kept, int shrink) {
  const Geometry& g = step.geometry;
  const std::size_t row = std::size_t(g.num_q_heads) * std::size_t(g.head_size);
  HostProblem next = step;
  next.geometry.num_seqs = int(kept.size());
  next.cu_seqlens_q = {0};
  next.seq_lens.clear();
  next.block_table.clear();
  next.q.clear();
  for (int s : kept) {
    const int first = step.cu_seqlens_q[std::size_t(s)], query_len = step.cu_seqlens_q[std::size_t(s) + 1] - first;
    next.cu_seqlens_q.push_back(next.cu_seqlens_q.back() + query_len);
    next.seq_lens.push_back(std::max(query_len, step.seq_lens[std::size_t(s)] - shrink));
    const auto table = step.block_table.begin() + std::ptrdiff_t(s) * g.max_blocks_per_seq;
    next.block_table.insert(next.block_table.end(), table, table + g.max_blocks_per_seq);
    for (std::size_t i = std::size_t(first) * row; i < std::size_t(first + query_len) * row; ++i)
      next.q.push_back(-step.q[i]);
  }
  next.geometry.num_tokens = next.cu_seqlens_q.back();
  return next;
}

TEST(GraphReplay, AStepsShapeRoundsItsPartsUp) {
  // 3 decodes (longest 40) -> 4 slots, 64 keys; 3 others -> 4 slots with the spare, 38 tokens ->
  // 64 rows, longest 64 keys.
  const GraphShape mixed = GraphShape::of(step_of(mixed_step_spec(DType::fp32).sequences));
  EXPECT_EQ(mixed.key(), std::make_tuple(4, 64, 4, 64, 64));
  EXPECT_EQ(mixed.num_seqs(), 8);
  EXPECT_EQ(mixed.num_tokens(), 68);
  const BatchMetadata bounds = mixed.bounds();
  EXPECT_TRUE(bounds.decodes_lead());  // the plan may run the decodes apart, as the eager call's
  EXPECT_EQ(bounds.num_decodes, 4);
  EXPECT_EQ(bounds.max_seq_len, 64);
  EXPECT_EQ(GraphShape::of(step_of({{40, 1}, {9, 1}, {3, 1}, {7, 1}, {5, 1}})).key(), std::make_tuple(8, 64, 0, 0, 0));
  EXPECT_EQ(GraphShape::of(step_of({{20, 20}})).key(), std::make_tuple(0, 0, 2, 32, 32));
  // Decodes that do not all lead run with the rest, as the eager call runs them.
  EXPECT_EQ(GraphShape::of(step_of({{50, 12}, {40, 1}})).key(), std::make_tuple(0, 0, 4, 16, 64));
}

class StepGraphReplay : public ::testing::TestWithParam<std::tuple<std::optional<Variant>, DType>> {};

// Two steps of one shape, each padded (a decode slot, the padding tokens, an empty slot in the
// second): each replay gives the step's rows as the oracle does, and zero padding rows, which saw
// no key.
TEST_P(StepGraphReplay, ReplayedRowsMatchTheOracleAndPaddingSeesNoKey) {
  const std::optional<Variant> variant = std::get<0>(GetParam());
  const DType dtype = std::get<1>(GetParam());
  const HostProblem first = generate_batch(mixed_step_spec(dtype));
  const HostProblem second = next_step(first, {0, 1, 2, 3, 5}, 3);
  constexpr int kDecodes = 3;
  dispatch_storage(dtype, dtype, dtype, [&](auto q, auto, auto) {
    using T = decltype(q);
    const DeviceProblem<T, T, T> one = upload_problem<T, T, T>(first);
    AttentionOptions options;
    options.variant = variant;
    const GraphShape shape = GraphShape::of(first);
    ASSERT_EQ(GraphShape::of(second), shape);
    StepGraph<T> graph(shape, one.inputs, one.params, options);
    // The decodes run apart exactly when the eager call runs them apart (whether they do is the
    // tuning table's choice: on the H100's both parts may get one plan, and so one launch).
    const LaunchPlan eager = attention(one.inputs, one.params, one.out, options);
    EXPECT_EQ(graph.plan().call().decodes.has_value(), eager.decodes_apart > 0);
    for (const HostProblem* step : {&first, &second}) {
      graph.load(*step, upload_problem<T, T, T>(*step).inputs);
      graph.replay();
      graph.replay();  // nothing of a replay carries over
      const std::vector<float> out = download_out(graph.out());
      const std::size_t row = out.size() / std::size_t(shape.num_tokens());
      std::vector<float> rows;
      for (int slot_row = 0; slot_row < shape.num_tokens(); ++slot_row) {
        const int token = slot_row < kDecodes ? slot_row : slot_row - (shape.decodes - kDecodes);
        const bool padding = (slot_row >= kDecodes && slot_row < shape.decodes) || token >= step->geometry.num_tokens;
        const auto begin = out.begin() + std::ptrdiff_t(std::size_t(slot_row) * row);
        const auto end = begin + std::ptrdiff_t(row);
        if (!padding)
          rows.insert(rows.end(), begin, end);
        else
          EXPECT_TRUE(std::all_of(begin, end, [](float x) { return x == 0.0f; })) << "padding row " << slot_row;
      }
      const Comparison c = compare_to_reference(rows, oracle_attention(*step), *step);
      EXPECT_TRUE(c.passed()) << c.failures << " elements off; max abs error " << c.max_abs_error;
    }
  });
}

std::vector<std::optional<Variant>> planned_and_every_variant() {
  std::vector<std::optional<Variant>> variants{std::nullopt};
  for (Variant v : all_variants()) variants.emplace_back(v);
  return variants;
}

INSTANTIATE_TEST_SUITE_P(Variants, StepGraphReplay,
                         ::testing::Combine(::testing::ValuesIn(planned_and_every_variant()),
                                            ::testing::Values(DType::fp32, DType::fp16)));

// Graph replay runs every step, decode-only and mixed, on one graph per shape captured once, and
// times each step's eager call too; on the planned launches and on a forced variant.
TEST(Simulator, GraphReplayTakesEveryStep) {
  const ModelConfig c = tiny_config(24, 16);
  const std::vector<Request> trace = {request(0, 0.0, 9, 6), request(1, 0.0, 5, 9), request(2, 0.0, 14, 4)};
  // The steps' shapes from the scheduler alone: every request arrives at 0, so the clock plays no part.
  std::set<GraphShape> shapes;
  int mixed = 0;
  for (Scheduler s(c, trace); !s.all_finished();) {
    const StepBatch b = s.schedule(0.0);
    const GraphShape shape = GraphShape::of(step_layout(b, c));
    shapes.insert(shape);
    mixed += shape.decodes > 0 && shape.other_seqs > 0;
    s.complete(b);
  }
  EXPECT_GT(mixed, 0);
  const std::optional<Variant> planned, forced = Variant::qblock_static;  // a forced variant replays too
  for (const std::optional<Variant>& variant : {planned, forced}) {
    KernelTimerOptions options{0, 1, 5};
    options.graph_replay = true;
    options.variant = variant;
    const std::unique_ptr<StepTimer> timer = make_kernel_step_timer(c, options);
    const SimulationResult r = simulate(c, trace, *timer);
    for (const StepRecord& s : r.steps) {
      EXPECT_TRUE(s.replayed);
      EXPECT_GT(s.eager_us_per_layer, 0.0);
      EXPECT_GT(s.attention_us_per_layer, 0.0);
    }
    const std::string captured = "(" + std::to_string(shapes.size()) + " captured)";
    EXPECT_NE(timer->description().find(captured), std::string::npos) << timer->description();
  }
}

}  // namespace
}  // namespace kattn::sim
