// The judge: plain dense attention per sequence and head in double precision. It shares no
// tiling or online-softmax code with the kernels.
#pragma once

#include "kattn/problem/host_problem.hpp"

#include <vector>

namespace kattn {

// Returns out [num_tokens, num_q_heads, head_size] in the units of the output (divided by
// out_scale for an fp8 output, before its rounding). Validates the problem first.
std::vector<double> oracle_attention(const HostProblem& problem);

// What an implementation working in the problem's precision gets at best, the yardstick of
// compare_to_same_precision: the oracle's arithmetic with the two roundings such a kernel cannot
// avoid, each softmax weight exp(s - max) rounded to q's type before the P·V product (as
// FlashAttention's and vLLM's kernels round P; the normalising sum stays exact) and the output
// rounded to its type. (The inputs are exact in their types already.)
std::vector<double> same_precision_reference(const HostProblem& problem);

}  // namespace kattn
