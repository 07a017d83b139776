// Scalar parameters of the attention computation (the vLLM argument set); the per-head and
// per-sequence feature tensors (ALiBi slopes, sinks, prefix lengths, qq-bias) travel with the
// problem's tensors.
#pragma once

#include <optional>
#include <string>

namespace kattn {

struct Fp8Scales {
  float k_scale = 1.0f;    // dequantisation scale of the fp8 K cache
  float v_scale = 1.0f;    // dequantisation scale of the fp8 V cache
  float out_scale = 1.0f;  // quantisation scale of an fp8 output
};

struct AttentionParams {
  double softmax_scale = 0.0;  // usually 1/sqrt(head_size); must be finite and > 0
  bool causal = true;          // causal by absolute position (context + query index)
  int window_left = -1;        // sliding window: a query at position p sees keys p - window_left .. p; -1 = none
  float softcap = 0.0f;        // cap * tanh(s / cap) on the scaled scores; 0 = off
  std::optional<Fp8Scales> fp8;     // fp8 KV cache / output, or none

  // The features set here that the kernels do not implement yet, comma separated (empty if
  // none), so a kernel can reject them with one clear message.
  std::string unsupported_features() const;
};

}  // namespace kattn
