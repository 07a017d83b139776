// The judge: plain dense attention per sequence and head in double precision. It shares no
// tiling or online-softmax code with the kernels.
#pragma once

#include "kattn/problem/host_problem.hpp"

#include <vector>

namespace kattn {

// Returns out [num_tokens, num_q_heads, head_size] in the units of the output (divided by
// out_scale for an fp8 output, before its rounding). Validates the problem first.
std::vector<double> oracle_attention(const HostProblem& problem);

}  // namespace kattn
