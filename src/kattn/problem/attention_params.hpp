// Scalar and per-head parameters of the attention computation (the vLLM argument set).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kattn {

struct Fp8Scales {
  float k_scale = 1.0f;    // dequantisation scale of the fp8 K cache
  float v_scale = 1.0f;    // dequantisation scale of the fp8 V cache
  float out_scale = 1.0f;  // quantisation scale of an fp8 output
};

struct AttentionParams {
  double softmax_scale = 0.0;  // usually 1/sqrt(head_size); must be finite and > 0
  bool causal = true;          // causal by absolute position (context + query index)
  int window_left = -1;        // sliding window: keys at most this many positions back; -1 = none
  float softcap = 0.0f;        // cap * tanh(s / cap) on the scores; 0 = off
  std::vector<float> alibi_slopes;  // [num_q_heads] or empty
  std::vector<float> sinks;         // [num_q_heads] per-head sink logits, or empty
  std::optional<Fp8Scales> fp8;     // fp8 KV cache / output, or none

  // The features set here that the kernels do not implement yet, comma separated (empty if
  // none), so a kernel can reject them with one clear message.
  std::string unsupported_features() const;
};

}  // namespace kattn
