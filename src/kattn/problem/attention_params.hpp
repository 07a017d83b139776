// Scalar parameters of the attention computation (the vLLM argument set); the per-head and
// per-sequence feature tensors (ALiBi slopes, sinks, prefix lengths, qq-bias) travel with the
// problem's tensors.
#pragma once

namespace kattn {

struct AttentionParams {
  double softmax_scale = 0.0;  // usually 1/sqrt(head_size); must be finite and > 0
  bool causal = true;          // causal by absolute position (context + query index)
  int window_left = -1;        // sliding window: a query at position p sees keys p - window_left .. p; -1 = none
  float softcap = 0.0f;        // cap * tanh(s / cap) on the scaled scores; 0 = off
  // Dequantisation: K and V are multiplied by these as they are loaded (vLLM's k/v descale; 1 for
  // caches that are not quantised). An fp8 output holds out / out_scale, clamped to ±448.
  float k_scale = 1.0f;
  float v_scale = 1.0f;
  float out_scale = 1.0f;
};

}  // namespace kattn
