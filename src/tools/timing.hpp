// What `kattn bench` and `kattn tune` measure, and how: the least work of a problem and the host
// call to completion of kattn::attention, fenced before and after each run.
#pragma once

#include "kattn/attention.hpp"
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

// "2026-11-23" (UTC), for the provenance of written results.
std::string today();

}  // namespace kattn::cli
