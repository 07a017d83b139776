// What `kattn bench` and `kattn tune` measure, and how: the least work of a problem; the host call
// to completion of kattn::attention, fenced before and after each run; and of a plan's run(): its
// host call to completion, its host time alone, and its kernel time from device events.
#pragma once

#include "kattn/attention.hpp"
#include "kattn/core/stream_instance.hpp"
#include "kattn/problem/host_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace kattn::cli {

// Bytes a kernel must move at least (q, out, and every K/V element of every sequence once) and
// the FLOPs of the two products (2 × 2 × head_size per query-key pair and query head).
struct Work {
  double bytes = 0.0;
  double flops = 0.0;
};

Work work_of(const HostProblem& p, std::size_t element_bytes, std::size_t cache_bytes);

struct Timing {
  double mean_us = 0.0;
  double stddev_us = 0.0;
  double min_us = 0.0;
  double median_us = 0.0;
  double p90_us = 0.0;
};

Timing summarize(const std::vector<double>& samples_us);

// Untimed calls; `plan` is the plan of the last one.
template <class Device>
void warm_up(const Device& d, const AttentionOptions& options, int calls, LaunchPlan& plan) {
  for (int i = 0; i < calls; ++i) plan = attention(d.inputs, d.params, d.out, options);
  Kokkos::fence();
}

// `runs` timed calls, each from the host call to completion (µs); `plan` is the plan that ran.
template <class Device>
std::vector<double> timed_runs(const Device& d, const AttentionOptions& options, int runs, LaunchPlan& plan) {
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    Kokkos::Timer timer;
    plan = attention(d.inputs, d.params, d.out, options);
    Kokkos::fence();
    samples.push_back(timer.seconds() * 1e6);
  }
  return samples;
}

template <class Device>
Timing time_runs(const Device& d, const AttentionOptions& options, int warmup, int runs, LaunchPlan& plan) {
  warm_up(d, options, warmup, plan);
  return summarize(timed_runs(d, options, runs, plan));
}

// Timings of a call that enqueues launches (a plan's run(), made once outside): `call` from the host
// call to completion (fenced before and after), `host` the call alone (the device finishes after),
// `kernel` the device time of its launches from events, the L2 flushed before each run (as
// triton.testing.do_bench times the baselines).
struct RunTimings {
  Timing call, host, kernel;
};

// Bytes written between kernel-timed runs to flush the L2 (0 on the host).
std::size_t l2_flush_bytes();

// Device time of what `enqueue` puts on `space`, after the L2 was flushed by writing
// l2_flush_bytes() (as triton.testing.do_bench times the baselines). A short kernel pays its ramp,
// its tail and what the flush left in the L2: time_stream_read measures that floor.
class KernelClock {
 public:
  explicit KernelClock(const ExecutionSpace& space)
      : space_(space), flush_("kattn::l2_flush", l2_flush_bytes()), events_(space) {}
  template <class Enqueue>
  double time_us(const Enqueue& enqueue) {
    Kokkos::deep_copy(space_, flush_, char(++flushes_));
    events_.start();
    enqueue();
    return events_.stop_us();
  }

 private:
  ExecutionSpace space_;
  Kokkos::View<char*, MemorySpace> flush_;
  DeviceEvents events_;
  int flushes_ = 0;
};

// RunTimings of what `enqueue` puts on `space` (after `warmup` untimed calls).
template <class Enqueue>
RunTimings time_enqueued(const ExecutionSpace& space, int warmup, int runs, const Enqueue& enqueue) {
  for (int i = 0; i < warmup; ++i) enqueue();
  space.fence();
  std::vector<double> call, host, kernel;
  for (int i = 0; i < runs; ++i) {
    Kokkos::Timer timer;
    enqueue();
    host.push_back(timer.seconds() * 1e6);
    space.fence();
    call.push_back(timer.seconds() * 1e6);
  }
  KernelClock clock(space);
  for (int i = 0; i < runs; ++i) kernel.push_back(clock.time_us(enqueue));
  return {summarize(call), summarize(host), summarize(kernel)};
}

// A plan's run(), and the same run captured once as a graph (capture_run) and replayed: what a
// serving loop that replays its decode steps waits (the launch cached, paper 6.2).
struct PlanTimings {
  RunTimings run, replay;
};

template <class Device>
PlanTimings time_plan_runs(const Device& d, const AttentionPlan& plan, int warmup, int runs) {
  const ExecutionSpace space;
  const RunTimings eager = time_enqueued(space, warmup, runs, [&] { run(plan, d.inputs, d.out, space); });
  const AttentionGraph graph = capture_run(plan, d.inputs, d.out, space);
  // The first replay instantiates the graph: never timed.
  return {eager, time_enqueued(space, warmup > 0 ? warmup : 1, runs, [&] { graph.replay(); })};
}

// A plain team kernel that reads `bytes` once with 16-byte loads from a contiguous buffer, timed as
// run() is (one launch up to 2 GiB): what Kokkos and the device allow a call that must read as much,
// for its kernel time, its host call to completion and the host time of its launch.
RunTimings time_stream_read(std::size_t bytes, int runs);

// "2026-11-23" (UTC), for the provenance of written results.
std::string today();

}  // namespace kattn::cli
