// The partial softmax state of one query row (running max and exp-sum), updated tile by tile.
// The same type merges segment partials in the parallel tiled softmax (paper 4.5).
#pragma once

#include "kattn/core/compat.hpp"

namespace kattn {

struct SoftmaxState {
  float max = -compat::infinity();
  float sum = 0.0f;

  // Moves the state to a new running max that includes `tile_max` and returns the factor by
  // which the accumulated output must be rescaled. A state that has seen only -inf scores
  // (nothing attended yet) rescales by 0, never by NaN.
  KOKKOS_INLINE_FUNCTION float rescale_to(float tile_max) {
    const float new_max = compat::fmax(max, tile_max);
    const float alpha = (max == -compat::infinity()) ? 0.0f : compat::exp(max - new_max);
    sum *= alpha;
    max = new_max;
    return alpha;
  }

  // Exponent of a score relative to the running max; 0 for a masked (-inf) score.
  KOKKOS_INLINE_FUNCTION float weight(float score) const {
    return (score == -compat::infinity()) ? 0.0f : compat::exp(score - max);
  }

  // 1/sum for the final normalisation; 0 for a row that attended to nothing, so it yields zeros.
  // On CUDA by the hardware reciprocal (1 ulp, where sum is at least 1 wherever a row attended:
  // its largest logit's weight is): the division's IEEE sequence had cost a kernel's item ~18
  // instructions a row.
  KOKKOS_INLINE_FUNCTION float inverse_sum() const {
#if defined(__CUDA_ARCH__)
    float inverse;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(inverse) : "f"(sum));
    return sum > 0.0f ? inverse : 0.0f;
#else
    return sum > 0.0f ? 1.0f / sum : 0.0f;
#endif
  }
};

}  // namespace kattn
