// The seeded workload generator: a WorkloadSpec becomes a valid HostProblem, the same one for
// the same spec on every machine (std::mt19937_64 with explicit integer arithmetic).
#pragma once

#include "kattn/problem/host_problem.hpp"
#include "kattn/workload/scenario.hpp"

namespace kattn {

HostProblem generate_problem(const WorkloadSpec& spec);

}  // namespace kattn
