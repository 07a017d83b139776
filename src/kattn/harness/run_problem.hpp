// Runs a HostProblem through kattn::attention on Space (default: the default execution space;
// built for every backend, core/backends.hpp, on its default instance and shared workspace):
// uploads the tensors in the problem's dtype, runs, and returns out [num_tokens, num_q_heads,
// head_size] as float (values exact in the dtype).
#pragma once

#include "kattn/core/execution_space.hpp"
#include "kattn/problem/host_problem.hpp"
#include "kattn/tuning/launch_plan.hpp"

#include <vector>

namespace kattn {

struct ProblemRun {
  std::vector<float> out;
  LaunchPlan plan;
};

template <class Space = ExecutionSpace>
ProblemRun run_problem(const HostProblem& problem, const AttentionOptions& options = {});

}  // namespace kattn
