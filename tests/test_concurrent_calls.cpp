// Many callers at once: host threads, each with its own problem (shapes, dtype, variant), its own
// plan and, on GPUs, its own stream, call kattn concurrently — the C++ plan/run API, the C API's
// plans, and one-shot calls of which two share the default stream — for a bounded number of
// iterations; every output must match the oracle (no call sees another's workspace), each refused
// call must leave `out` untouched with a message naming the field, each thread's message must be
// its own, and a watchdog turns a deadlock into a failure. The threads are what the backend can launch from
// (docs/c-api.md#kokkos-the-device-and-the-stream): any on Kokkos 4; on Kokkos 3's OpenMP the
// masters of OpenMP::partition_master; on Kokkos 3's Serial one thread, which interleaves them.
#include "c_api_args.hpp"
#include "kattn/attention.hpp"
#include "kattn/core/stream_instance.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "test_problems.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace kattn {
namespace {

enum class Api { cpp_plan, c_plan, c_one_shot };

struct CallerSpec {
  const char* name;
  Api api;
  DType dtype;
  const char* model;
  std::vector<SequenceShape> sequences;
  bool host_copies;  // a plan fitted to the batch's host copies, else to its bounds only
  bool own_stream;   // GPU builds: a stream of its own, else the default one (host builds take none)
};

// Different shapes, dtypes and APIs; the two one-shot callers share the default stream (and, on a
// host build, so does everyone), whose workspace kattn must keep to one call at a time.
const CallerSpec kCallers[] = {
    {"C++ plan, host copies, fp32",
     Api::cpp_plan,
     DType::fp32,
     "tiny",
     {{40, 1}, {33, 1}, {50, 12}, {20, 20}, {64, 5}},
     true,
     true},
    {"C++ plan, bounds, fp16 MQA decodes",
     Api::cpp_plan,
     DType::fp16,
     "mqa-small",
     {{90, 1}, {17, 1}, {64, 1}, {5, 1}},
     false,
     true},
    {"C API plan, host copies, bf16", Api::c_plan, DType::bf16, "tiny", {{30, 1}, {70, 16}, {24, 24}}, true, true},
    {"C API plan, bounds, fp16", Api::c_plan, DType::fp16, "tiny", {{55, 7}, {81, 1}, {12, 12}}, false, true},
    {"C API one-shot, fp32 MQA, default stream",
     Api::c_one_shot,
     DType::fp32,
     "mqa-small",
     {{60, 1}, {44, 9}},
     false,
     false},
    {"C API one-shot, fp16, default stream",
     Api::c_one_shot,
     DType::fp16,
     "tiny",
     {{100, 1}, {35, 35}, {9, 1}},
     false,
     false},
};
constexpr int kIterations = 6;  // calls per caller, alternating between its two steps

// The watchdog's limit: KATTN_TEST_WATCHDOG_SECONDS if set, else 300 s, far beyond a normal run (only
// a deadlock gets there); a tool that slows every call down, such as compute-sanitizer, needs more.
// 0 when the variable is not a positive number of seconds.
int watchdog_seconds() {
  const char* text = std::getenv("KATTN_TEST_WATCHDOG_SECONDS");
  if (text == nullptr) return 300;
  char* end = nullptr;
  const long seconds = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && seconds > 0 && seconds <= std::numeric_limits<int>::max() ? int(seconds) : 0;
}

// Caller i's stream: on GPU builds one created for it and kept for the process, as kattn keeps an
// instance for every stream it has seen until Kokkos is finalised; null (the default instance) on
// host builds. Called from the test's thread only.
void* stream_of_caller([[maybe_unused]] std::size_t i) {
  if (host_backend()) return nullptr;
#ifdef KATTN_GPU_RUNTIME
  static std::vector<KATTN_GPU_RUNTIME(Stream_t)> streams;
  while (streams.size() <= i) {
    KATTN_GPU_RUNTIME(Stream_t) stream{};
    if (KATTN_GPU_RUNTIME(StreamCreateWithFlags)(&stream, KATTN_GPU_RUNTIME(StreamNonBlocking)) !=
        KATTN_GPU_RUNTIME(Success))
      throw std::runtime_error("cannot create a stream");
    streams.push_back(stream);
  }
  return streams[i];
#else
  return nullptr;
#endif
}

// One caller: two steps of one shape (the second with new queries and shorter contexts, so that
// one plan serves both), their oracle outputs, and its device buffers, stream and plan. Only one
// thread ever iterates a caller, and it keeps its failures for the test's thread to report.
class Caller {
 public:
  Caller(const CallerSpec& spec, std::uint64_t seed) : spec_(spec) {
    BatchSpec batch;
    batch.model = model_by_name(spec.model);
    batch.dtype = spec.dtype;
    batch.block_size = 8;
    batch.sequences = spec.sequences;
    batch.seed = seed;
    steps_[0] = generate_batch(batch);
    steps_[1] = test::next_step(steps_[0]);
    expected_ = {oracle_attention(steps_[0]), oracle_attention(steps_[1])};
  }
  virtual ~Caller() = default;

  const char* name() const { return spec_.name; }
  const std::vector<std::string>& failures() const { return failures_; }

  // Runs step iteration % 2 and checks it; never throws (it runs on a thread of its own).
  void iterate(int iteration) noexcept {
    const int step = iteration % 2;
    try {
      const Comparison c = compare_to_reference(call(step), expected_[std::size_t(step)], steps_[std::size_t(step)]);
      if (!c.passed())
        fail(iteration,
             std::to_string(c.failures) + " elements off the oracle, max abs error " + std::to_string(c.max_abs_error));
    } catch (const std::exception& e) {
      fail(iteration, e.what());
    }
  }

 protected:
  // `out` of step `step` after a refused call (if the API has one) and the call itself.
  virtual std::vector<float> call(int step) = 0;

  void fail(int iteration, const std::string& what) {
    failures_.push_back("iteration " + std::to_string(iteration) + ": " + what);
  }

  const CallerSpec spec_;
  std::array<HostProblem, 2> steps_;

 private:
  std::array<std::vector<double>, 2> expected_;
  std::vector<std::string> failures_;
};

template <class Q, class Cache, class Out>
class TypedCaller final : public Caller {
 public:
  TypedCaller(const CallerSpec& spec, std::uint64_t seed, std::size_t index, Variant variant)
      : Caller(spec, seed),
        buffers_{upload_problem<Q, Cache, Out>(steps_[0]), upload_problem<Q, Cache, Out>(steps_[1])},
        stream_(spec.own_stream ? stream_of_caller(index) : nullptr),
        space_(instance_for_stream(stream_)),
        variant_(variant) {}
  ~TypedCaller() override {
    if (c_plan_) kattn_plan_destroy(c_plan_);
  }

 protected:
  std::vector<float> call(int step) override {
    const DeviceProblem<Q, Cache, Out>& d = buffers_[std::size_t(step)];
    Kokkos::deep_copy(space_, d.out, from_float<Out>(std::numeric_limits<float>::quiet_NaN()));
    kattn_attention_args a = test::args_of(steps_[std::size_t(step)], d);
    a.stream = stream_;
    if (spec_.api == Api::cpp_plan) {
      if (!plan_) plan_ = std::make_unique<AttentionPlan>(make_cpp_plan());
      run(*plan_, d.inputs, d.out, space_);
      return download(d.out);
    }
    if (spec_.api == Api::c_plan && !c_plan_) make_c_plan();
    refuse(a, d.out);
    const kattn_status status = spec_.api == Api::c_plan ? kattn_plan_run(c_plan_, &a) : kattn_unified_attention(&a);
    if (status != KATTN_SUCCESS) throw std::runtime_error(std::string("call failed: ") + kattn_last_error());
    if (*kattn_last_error() != '\0')
      throw std::runtime_error(std::string("a success left the message ") + kattn_last_error());
    return download(d.out);
  }

 private:
  AttentionPlan make_cpp_plan() {
    AttentionOptions options;
    options.variant = variant_;
    options.tile_size = 16;  // several partitions or segments a sequence: the workspace is used
    options.num_segments = 3;
    const DeviceProblem<Q, Cache, Out>& d = buffers_[0];
    const BatchMetadata batch = spec_.host_copies ? test::exact_metadata(steps_[0]) : test::bounds_of(steps_[0]);
    return plan_attention(d.inputs, d.params, batch, workspace_, options);
  }

  void make_c_plan() {
    const kattn_attention_args a = test::args_of(steps_[0], buffers_[0]);
    const kattn_batch_host copies{sizeof(kattn_batch_host), steps_[0].cu_seqlens_q.data(), steps_[0].seq_lens.data()};
    if (kattn_plan_create(&a, spec_.host_copies ? &copies : nullptr, &c_plan_) != KATTN_SUCCESS)
      throw std::runtime_error(std::string("kattn_plan_create failed: ") + kattn_last_error());
  }

  // A call of the caller's API with one argument wrong: it must fail with a message naming the
  // field while the other threads' calls run, and write nothing.
  void refuse(kattn_attention_args a, const AttentionOutput<Out>& out) {
    a.softmax_scale = -1.0;
    const kattn_status status = spec_.api == Api::c_plan ? kattn_plan_run(c_plan_, &a) : kattn_unified_attention(&a);
    if (status != KATTN_ERROR_INVALID_ARGUMENT ||
        std::string(kattn_last_error()).find("softmax_scale") == std::string::npos)
      throw std::runtime_error("a refused call returned " + std::to_string(status) + ", message '" +
                               kattn_last_error() + "'");
    for (float x : download(out))
      if (!std::isnan(x)) throw std::runtime_error("a refused call wrote out");
  }

  // out's values, copied on the caller's instance (other callers' work goes on meanwhile).
  std::vector<float> download(const AttentionOutput<Out>& out) const {
    const auto host = Kokkos::create_mirror_view(out);
    Kokkos::deep_copy(space_, host, out);
    space_.fence();
    std::vector<float> values(host.span());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = to_float(host.data()[i]);
    return values;
  }

  std::array<DeviceProblem<Q, Cache, Out>, 2> buffers_;
  void* stream_;
  ExecutionSpace space_;
  Variant variant_;
  Workspace workspace_;  // the C++ plan's own
  std::unique_ptr<AttentionPlan> plan_;
  kattn_plan* c_plan_ = nullptr;
};

std::unique_ptr<Caller> make_caller(std::size_t index, Variant variant) {
  const CallerSpec& spec = kCallers[index];
  return dispatch_storage(spec.dtype, spec.dtype, spec.dtype, [&](auto q, auto cache, auto out) {
    using Typed = TypedCaller<decltype(q), decltype(cache), decltype(out)>;
    return std::unique_ptr<Caller>(std::make_unique<Typed>(spec, 100 + index, index, variant));
  });
}

// Aborts the process when the callers have not finished within `seconds`: a deadlock then fails
// the test with this message instead of hanging it.
class Watchdog {
 public:
  explicit Watchdog(int seconds)
      : thread_([this, seconds] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!finished_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) {
            std::fprintf(stderr,
                         "ConcurrentCallers: the callers did not finish within %d s: deadlock "
                         "(KATTN_TEST_WATCHDOG_SECONDS sets the limit)\n",
                         seconds);
            std::abort();
          }
        }) {}
  ~Watchdog() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    finished_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread thread_;  // last: starts once the members it uses exist
};

// Runs body(thread, threads) on up to `wanted` host threads at once, as many as the backend can
// launch from. Kokkos 4 launches from any thread (a GPU instance per stream runs on its own; a
// host instance runs one kernel at a time under its lock). Kokkos 3's OpenMP launches only from a
// master thread: OpenMP::partition_master makes each partition of its pool one, and nests the
// partition's kernels; its Serial keeps one global team state, so one thread runs everything.
void on_concurrent_threads(int wanted, const std::function<void(int, int)>& body) {
#if KOKKOS_VERSION >= 40000
  std::vector<std::thread> threads;
  for (int t = 0; t < wanted; ++t) threads.emplace_back(body, t, wanted);
  for (std::thread& t : threads) t.join();
#elif defined(KOKKOS_ENABLE_OPENMP)
  const int partitions = std::min(wanted, Kokkos::OpenMP::concurrency());
  if (!std::is_same_v<ExecutionSpace, Kokkos::OpenMP> || partitions < 2) return body(0, 1);
  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(2);
  Kokkos::OpenMP::partition_master(body, partitions, 1);
  omp_set_max_active_levels(levels);
#else
  body(0, 1);
#endif
}

class ConcurrentCallers : public ::testing::TestWithParam<Variant> {};

// The C++ callers plan with the variant; the C API's plan as their tables say.
TEST_P(ConcurrentCallers, EveryCallMatchesTheOracleAndEveryRefusedCallWritesNothing) {
  const int seconds = watchdog_seconds();
  ASSERT_GT(seconds, 0) << "KATTN_TEST_WATCHDOG_SECONDS='" << std::getenv("KATTN_TEST_WATCHDOG_SECONDS")
                        << "': not a positive number of seconds";
  std::vector<std::unique_ptr<Caller>> callers;  // problems, oracle outputs and uploads on this thread
  for (std::size_t i = 0; i < std::size(kCallers); ++i) callers.push_back(make_caller(i, GetParam()));
  {
    const Watchdog watchdog(seconds);
    on_concurrent_threads(int(callers.size()), [&callers](int thread, int threads) {
      for (int iteration = 0; iteration < kIterations; ++iteration)  // a thread's callers take turns
        for (std::size_t c = std::size_t(thread); c < callers.size(); c += std::size_t(threads))
          callers[c]->iterate(iteration);
    });
  }
  for (const std::unique_ptr<Caller>& caller : callers)
    for (const std::string& failure : caller->failures()) ADD_FAILURE() << caller->name() << ": " << failure;
}

INSTANTIATE_TEST_SUITE_P(AllVariants, ConcurrentCallers, ::testing::ValuesIn(all_variants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(to_string(info.param));
                         });

// Calls refused by the C API's own checks, which come before Kokkos is touched (so any thread may
// make them), from several threads at once: each thread's kattn_last_error() names the field of
// its own call, never another thread's.
TEST(ConcurrentCallsChecks, EachThreadKeepsItsOwnErrorMessage) {
  const HostProblem p = test::small_mixed_problem();
  const auto d = upload_problem<float, float, float>(p);
  struct Refusal {
    const char* field;
    std::function<void(kattn_attention_args&)> mutate;
    kattn_status status;
  };
  const std::vector<Refusal> refusals = {
      {"v_cache_strides[0]", [](kattn_attention_args& a) { a.v_cache_strides[0] = -1; }, KATTN_ERROR_INVALID_ARGUMENT},
      {"num_tokens", [](kattn_attention_args& a) { a.num_tokens = -1; }, KATTN_ERROR_INVALID_ARGUMENT},
      {"window_right", [](kattn_attention_args& a) { a.window_right = 3; }, KATTN_ERROR_NOT_SUPPORTED},
      {"q_dtype", [](kattn_attention_args& a) { a.q_dtype = 7; }, KATTN_ERROR_INVALID_ARGUMENT}};
  constexpr int kCalls = 20000;  // a microsecond or two each: the threads overlap for many time slices
  std::vector<int> wrong(refusals.size(), 0);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < refusals.size(); ++t)
    threads.emplace_back([&, t] {
      kattn_attention_args a = test::args_of(p, d);
      refusals[t].mutate(a);
      ++ready;
      while (ready < int(refusals.size())) std::this_thread::yield();  // all start together
      for (int call = 0; call < kCalls; ++call)
        if (kattn_unified_attention(&a) != refusals[t].status ||
            std::string(kattn_last_error()).find(refusals[t].field) == std::string::npos)
          ++wrong[t];
    });
  for (std::thread& thread : threads) thread.join();
  for (std::size_t t = 0; t < refusals.size(); ++t)
    EXPECT_EQ(wrong[t], 0) << "calls refused for " << refusals[t].field << " without their status or message";
}

// Where Kokkos cannot launch from every thread (Kokkos 3's OpenMP), a call from another thread is
// refused before anything is allocated: NOT_SUPPORTED naming the thread, `out` and *plan untouched.
TEST(ConcurrentCallsChecks, ACallFromAThreadKokkosCannotLaunchFromIsNotSupported) {
  if (launches_from_any_thread()) GTEST_SKIP() << "Kokkos launches from any thread here";
  const HostProblem p = test::small_mixed_problem();
  const auto d = upload_problem<float, float, float>(p);
  Kokkos::deep_copy(d.out, 7.0f);
  const kattn_attention_args a = test::args_of(p, d);
  kattn_plan* plan = nullptr;
  ASSERT_EQ(kattn_plan_create(&a, nullptr, &plan), KATTN_SUCCESS) << kattn_last_error();
  kattn_plan* const sentinel = plan;
  kattn_plan* made_there = sentinel;
  std::vector<std::pair<kattn_status, std::string>> results;  // each call's status and its thread's message
  std::thread([&] {
    const kattn_status one_shot = kattn_unified_attention(&a);
    results.emplace_back(one_shot, kattn_last_error());
    const kattn_status run = kattn_plan_run(plan, &a);
    results.emplace_back(run, kattn_last_error());
    const kattn_status create = kattn_plan_create(&a, nullptr, &made_there);
    results.emplace_back(create, kattn_last_error());
  }).join();
  kattn_plan_destroy(plan);
  for (const auto& [status, message] : results) {
    EXPECT_EQ(status, KATTN_ERROR_NOT_SUPPORTED) << message;
    EXPECT_NE(message.find("thread"), std::string::npos) << message;
  }
  EXPECT_EQ(made_there, sentinel);
  for (float x : download_out(d.out)) ASSERT_EQ(x, 7.0f) << "out was written";
}

}  // namespace
}  // namespace kattn
