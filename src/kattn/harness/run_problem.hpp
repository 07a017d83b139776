// Runs a HostProblem through kattn::attention on the default execution space: uploads the
// tensors in the problem's dtype, runs, and returns out [num_tokens, num_q_heads, head_size] as
// float (values exact in the dtype).
#pragma once

#include "kattn/problem/host_problem.hpp"
#include "kattn/tuning/launch_plan.hpp"

#include <vector>

namespace kattn {

struct ProblemRun {
  std::vector<float> out;
  LaunchPlan plan;
};

ProblemRun run_problem(const HostProblem& problem, const AttentionOptions& options = {});

}  // namespace kattn
