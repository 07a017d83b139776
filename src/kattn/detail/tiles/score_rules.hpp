// The feature hooks every kernel applies (FlashInfer-style variants, one kernel skeleton): which
// keys a query sees (causal, sliding window, prefix-LM) and how a dot product becomes a logit
// (scale, softcap, ALiBi, qq-bias), plus the sink that joins each row's softmax denominator.
// Positions are absolute: context + index in the query for queries, index in the sequence for keys.
#pragma once

#include "kattn/core/compat.hpp"
#include "kattn/detail/tiles/online_softmax.hpp"
#include "kattn/problem/attention_params.hpp"

#include <cstdint>

namespace kattn {

struct ScoreRules {
  float scale = 1.0f;
  bool causal = true;
  int window_left = -1;                       // keys at most this many positions back; -1 = unbounded
  float softcap = 0.0f;                       // cap * tanh(s / cap); 0 = off
  const float* alibi_slopes = nullptr;        // [num_q_heads]: + slope * (key - alibi_origin_of(row))
  const float* sinks = nullptr;               // [num_q_heads]: a logit in every row's denominator
  const std::int32_t* prefix_lens = nullptr;  // [num_seqs]: prefix-LM, bidirectional inside the prefix
  const float* qq_bias = nullptr;             // [qq_bias_size, qq_bias_size] over the new query tokens
  int qq_bias_size = 0;
  AlibiOrigin alibi_origin = AlibiOrigin::query_position;  // of alibi_slopes; beside the int, no padding

  // Keys a query at `position` may see lie in [first_key, end_key).
  KOKKOS_INLINE_FUNCTION int first_key(int position) const {
    return (window_left >= 0 && position - window_left > 0) ? position - window_left : 0;
  }
  KOKKOS_INLINE_FUNCTION int end_key(int position, int seq_len, int seq) const {
    if (!causal) return seq_len;
    int end = position + 1;
    if (prefix_lens && prefix_lens[seq] > end) end = prefix_lens[seq] < seq_len ? prefix_lens[seq] : seq_len;
    return end;
  }
  KOKKOS_INLINE_FUNCTION bool visible(int position, int key, int seq_len, int seq) const {
    return key >= first_key(position) && key < end_key(position, seq_len, seq);
  }

  // The position ALiBi measures a row's keys from: a select (no branch) on values fixed for the row.
  KOKKOS_INLINE_FUNCTION int alibi_origin_of(int position, int context_len) const {
    return alibi_origin == AlibiOrigin::context_length ? context_len : position;
  }

  // The logit of a visible key: scale, softcap, ALiBi, then qq-bias (the order vLLM uses).
  KOKKOS_INLINE_FUNCTION float logit(float dot, int head, int position, int key, int context_len) const {
    float s = dot * scale;
    if (softcap > 0.0f) s = softcap * KATTN_KOKKOS_MATH::tanh(s / softcap);
    if (alibi_slopes) s += alibi_slopes[head] * float(key - alibi_origin_of(position, context_len));
    if (qq_bias && key >= context_len)
      s += qq_bias[std::int64_t(position - context_len) * qq_bias_size + (key - context_len)];
    return s;
  }

  // A row starts from its sink (max = sink, sum = exp(0) = 1) or from nothing.
  KOKKOS_INLINE_FUNCTION SoftmaxState initial_state(int head) const {
    SoftmaxState state;
    if (sinks) {
      state.max = sinks[head];
      state.sum = 1.0f;
    }
    return state;
  }
};

}  // namespace kattn
