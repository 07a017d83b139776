// Judging a kernel output against the oracle with per-dtype tolerances (docs/testing.md).
#pragma once

#include "kattn/core/dtype.hpp"
#include "kattn/problem/host_problem.hpp"

#include <vector>

namespace kattn {

// An element passes when |out - ref| <= atol + rtol * |ref|. The inputs are exact in the dtype
// and the kernels accumulate in fp32, so the bound is set by rounding the output to the dtype
// (half an ulp: 2^-11 for fp16, 2^-8 for bf16, 2^-4 for fp8 e4m3 with subnormals down to 2^-9)
// plus fp32 accumulation error, with headroom. `dtype` is the output's.
struct Tolerance {
  double atol;
  double rtol;
};

Tolerance tolerance_for(DType dtype);

// The tolerance of one problem's output: tolerance_for(out dtype), with atol widened by the error
// of rounding the softmax weights to q's storage type before the P·V product (tensor-core
// kernels do, as FlashAttention and vLLM's Triton kernel do): half an ulp of q's type times the
// largest |v| (dequantised), divided by out_scale for an fp8 output, which magnifies it.
Tolerance tolerance_for(const HostProblem& problem);

struct Comparison {
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;  // |out - ref| / max(|ref|, atol), so near-zero refs do not explode
  long long failures = 0;      // elements outside the tolerance (NaN counts as a failure)
  bool passed() const { return failures == 0; }
};

Comparison compare_to_reference(const std::vector<float>& out, const std::vector<double>& reference,
                                const Tolerance& tolerance);
Comparison compare_to_reference(const std::vector<float>& out, const std::vector<double>& reference, DType dtype);
Comparison compare_to_reference(const std::vector<float>& out, const std::vector<double>& reference,
                                const HostProblem& problem);

// FlashAttention's rule for low-precision outputs, which unlike a fixed tolerance scales with the
// output (so at 64k keys, where one block of 16 keys moves an output by ~2e-4, below the fp16 and
// bf16 tolerances, it still sees a missing block): the largest |out - oracle| at most twice the
// largest |reference - oracle| of the same-precision reference (same_precision_reference), plus a
// floor of half an ulp of the largest |oracle| in the output's type (unit roundoff u times it:
// 2^-24 fp32, 2^-11 fp16, 2^-8 bf16, 2^-4 fp8), for outputs the reference happens to round
// exactly. NaN fails.
struct PrecisionComparison {
  double max_abs_error = 0.0;    // kattn's, against the oracle
  double reference_error = 0.0;  // the same-precision reference's, against the oracle
  double floor = 0.0;
  double bound() const { return 2.0 * reference_error + floor; }
  bool passed() const { return max_abs_error <= bound(); }  // false for NaN
};

PrecisionComparison compare_to_same_precision(const std::vector<float>& out, const std::vector<double>& oracle,
                                              const std::vector<double>& reference, DType out_dtype);

}  // namespace kattn
