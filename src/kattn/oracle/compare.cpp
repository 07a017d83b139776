#include "kattn/oracle/compare.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kattn {

Tolerance tolerance_for(DType dtype) {
  switch (dtype) {
    case DType::fp32:
      return {1e-5, 1e-4};
    case DType::fp16:
      return {1e-3, 2e-3};
    case DType::bf16:
      return {8e-3, 1.6e-2};
    case DType::fp8_e4m3:
      return {4e-3, 7e-2};
  }
  throw std::logic_error("tolerance_for: unknown dtype");
}

Tolerance tolerance_for(const HostProblem& problem) {
  Tolerance tol = tolerance_for(problem.out_dtype());
  double weight_rounding = 0.0;  // half an ulp of q's type, relative
  if (problem.dtype == DType::fp16) weight_rounding = std::ldexp(1.0, -11);
  if (problem.dtype == DType::bf16) weight_rounding = std::ldexp(1.0, -8);
  double max_v = 0.0;
  for (float v : problem.v_cache) max_v = std::max(max_v, double(std::fabs(v)));
  const double out_units = problem.fp8_out ? double(problem.params.out_scale) : 1.0;
  tol.atol += weight_rounding * max_v * double(problem.params.v_scale) / out_units;
  return tol;
}

Comparison compare_to_reference(const std::vector<float>& out, const std::vector<double>& reference, DType dtype) {
  return compare_to_reference(out, reference, tolerance_for(dtype));
}

Comparison compare_to_reference(const std::vector<float>& out, const std::vector<double>& reference,
                                const HostProblem& problem) {
  return compare_to_reference(out, reference, tolerance_for(problem));
}

Comparison compare_to_reference(const std::vector<float>& out, const std::vector<double>& reference,
                                const Tolerance& tol) {
  if (out.size() != reference.size())
    throw std::invalid_argument("compare_to_reference: output has " + std::to_string(out.size()) +
                                " elements, reference " + std::to_string(reference.size()));
  Comparison c;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double error = std::fabs(double(out[i]) - reference[i]);
    if (!(error <= tol.atol + tol.rtol * std::fabs(reference[i]))) ++c.failures;  // NaN fails too
    if (std::isnan(error)) {
      c.max_abs_error = c.max_rel_error = NAN;
      continue;
    }
    c.max_abs_error = std::max(c.max_abs_error, error);
    c.max_rel_error = std::max(c.max_rel_error, error / std::max(std::fabs(reference[i]), tol.atol));
  }
  return c;
}

PrecisionComparison compare_to_same_precision(const std::vector<float>& out, const std::vector<double>& oracle,
                                              const std::vector<double>& reference, DType out_dtype) {
  if (out.size() != oracle.size() || reference.size() != oracle.size())
    throw std::invalid_argument("compare_to_same_precision: output, oracle and reference have " +
                                std::to_string(out.size()) + ", " + std::to_string(oracle.size()) + " and " +
                                std::to_string(reference.size()) + " elements");
  int mantissa_bits = 0;  // stored bits of the output's type
  switch (out_dtype) {
    case DType::fp32:
      mantissa_bits = 23;
      break;
    case DType::fp16:
      mantissa_bits = 10;
      break;
    case DType::bf16:
      mantissa_bits = 7;
      break;
    case DType::fp8_e4m3:
      mantissa_bits = 3;
      break;
  }
  PrecisionComparison c;
  double largest = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double error = std::fabs(double(out[i]) - oracle[i]);
    c.max_abs_error = std::isnan(error) || std::isnan(c.max_abs_error) ? NAN : std::max(c.max_abs_error, error);
    c.reference_error = std::max(c.reference_error, std::fabs(reference[i] - oracle[i]));
    largest = std::max(largest, std::fabs(oracle[i]));
  }
  c.floor = std::ldexp(largest, -(mantissa_bits + 1));
  return c;
}

}  // namespace kattn
