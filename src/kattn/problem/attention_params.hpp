// Scalar parameters of the attention computation (the vLLM argument set); the per-head and
// per-sequence feature tensors (ALiBi slopes, sinks, prefix lengths, qq-bias) travel with the
// problem's tensors.
#pragma once

namespace kattn {

// Where ALiBi measures a key's distance from: bias = slope * (key position - origin). kattn's own
// convention is the query's position; vLLM's Triton unified_attention takes the sequence's context
// length (seq_len - query_len), one origin for every query of the sequence. A row's softmax does
// not change when all its logits move together, so the two agree unless a sink joins the row.
enum class AlibiOrigin { query_position, context_length };

struct AttentionParams {
  double softmax_scale = 0.0;  // usually 1/sqrt(head_size); must be finite and > 0
  bool causal = true;          // causal by absolute position (context + query index)
  int window_left = -1;        // sliding window: a query at position p sees keys p - window_left .. p; -1 = none
  float softcap = 0.0f;        // cap * tanh(s / cap) on the scaled scores; 0 = off
  AlibiOrigin alibi_origin = AlibiOrigin::query_position;  // the C API and the PyTorch op: context_length
  // Dequantisation: K and V are multiplied by these as they are loaded (vLLM's k/v descale; 1 for
  // caches that are not quantised). An fp8 output holds out / out_scale, clamped to ±448.
  float k_scale = 1.0f;
  float v_scale = 1.0f;
  float out_scale = 1.0f;
};

}  // namespace kattn
