// The feature hooks every kernel applies (FlashInfer-style variants, one kernel skeleton): which
// keys a query sees (causal, sliding window, prefix-LM) and how a dot product becomes a logit
// (scale, softcap, ALiBi, qq-bias), plus the sink that joins each row's softmax denominator.
// Positions are absolute: context + index in the query for queries, index in the sequence for keys.
//
// A kernel compiles in the features it takes (ScoreFeatures, as FlashInfer's DefaultAttention
// flags do): ScoreRules<PlainScores> folds every hook but the scale and the causal mask away, so the
// fast path of a plain call carries no branch, load or code of the others; ScoreRules<> (all
// features) reads them at run time. The launch picks the type from the call (score_features()).
// The mask reports the keys a run of rows sees and, from them, which tiles need a mask at all
// (KeySpan, MaskTiles: CUTLASS's masked and unmasked trip counts), so kernels do not re-derive them.
#pragma once

#include "kattn/core/compat.hpp"
#include "kattn/detail/tiles/online_softmax.hpp"
#include "kattn/problem/attention_params.hpp"

#include <cstdint>

namespace kattn {

enum ScoreFeature : unsigned {
  kWindowFeature = 1u,    // a sliding window (window_left >= 0)
  kLogitFeature = 2u,     // softcap, ALiBi or qq-bias: a logit is more than the scaled dot product
  kSinkFeature = 4u,      // attention sinks
  kPrefixLmFeature = 8u,  // bidirectional prefixes
};

template <unsigned Flags>
struct ScoreFeatures {
  static constexpr unsigned flags = Flags;
  static constexpr bool window = (Flags & kWindowFeature) != 0;
  static constexpr bool logits = (Flags & kLogitFeature) != 0;
  static constexpr bool sinks = (Flags & kSinkFeature) != 0;
  static constexpr bool prefix_lm = (Flags & kPrefixLmFeature) != 0;
};
using PlainScores = ScoreFeatures<0>;  // causal or not, the logit the scaled dot product
using AllScores = ScoreFeatures<kWindowFeature | kLogitFeature | kSinkFeature | kPrefixLmFeature>;

// The tiles of tile_keys keys from an origin key (tile t: keys origin + t·tile_keys on) that a run
// of rows touches, [begin, end), and among them those where every row sees every key and no mask
// applies, [unmasked_begin, unmasked_end) (empty where there are none); the rest are partial.
struct MaskTiles {
  int begin = 0, end = 0;
  int unmasked_begin = 0, unmasked_end = 0;

  KOKKOS_INLINE_FUNCTION int count() const { return end - begin; }
  KOKKOS_INLINE_FUNCTION int unmasked_count() const { return unmasked_end - unmasked_begin; }
  KOKKOS_INLINE_FUNCTION int partial_count() const { return count() - unmasked_count(); }
  KOKKOS_INLINE_FUNCTION bool touches(int tile) const { return tile >= begin && tile < end; }
  KOKKOS_INLINE_FUNCTION bool unmasked(int tile) const { return tile >= unmasked_begin && tile < unmasked_end; }
};

// The keys of a run of rows (their positions ascending, so their windows' starts and their ends
// do too): some row sees each key of [any_begin, any_end), every row each key of [all_begin, all_end).
struct KeySpan {
  int any_begin = 0, any_end = 0;
  int all_begin = 0, all_end = 0;

  // The span's tiles from `origin` (at most any_begin).
  KOKKOS_INLINE_FUNCTION MaskTiles tiles(int origin, int tile_keys) const {
    const auto floor_tiles = [&](int keys) {
      return keys >= 0 ? keys / tile_keys : -((tile_keys - 1 - keys) / tile_keys);
    };
    MaskTiles t;
    if (any_end <= any_begin) return t;
    t.begin = floor_tiles(any_begin - origin);
    t.end = floor_tiles(any_end - origin + tile_keys - 1);
    t.unmasked_begin = floor_tiles(all_begin - origin + tile_keys - 1);
    t.unmasked_end = floor_tiles(all_end - origin);
    if (t.unmasked_end <= t.unmasked_begin) t.unmasked_begin = t.unmasked_end = t.begin;
    return t;
  }
};

template <class Features = AllScores>
struct ScoreRules {
  using features = Features;
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

  // The features these values use: a kernel compiled for fewer must not take them.
  unsigned used_features() const {
    return (window_left >= 0 ? kWindowFeature : 0u) | (softcap > 0.0f || alibi_slopes || qq_bias ? kLogitFeature : 0u) |
           (sinks ? kSinkFeature : 0u) | (prefix_lens ? kPrefixLmFeature : 0u);
  }

  // The same values, compiled for Other's features (a superset of used_features()).
  template <class Other>
  KOKKOS_INLINE_FUNCTION ScoreRules<Other> compiled_for() const {
    return {scale, causal, window_left, softcap, alibi_slopes, sinks, prefix_lens, qq_bias, qq_bias_size, alibi_origin};
  }

  // Keys a query at `position` may see lie in [first_key, end_key).
  KOKKOS_INLINE_FUNCTION int first_key(int position) const {
    if constexpr (Features::window)
      return (window_left >= 0 && position - window_left > 0) ? position - window_left : 0;
    else
      return 0;
  }
  KOKKOS_INLINE_FUNCTION int end_key(int position, int seq_len, int seq) const {
    if (!causal) return seq_len;
    int end = position + 1;
    if constexpr (Features::prefix_lm)
      if (prefix_lens && prefix_lens[seq] > end) end = prefix_lens[seq] < seq_len ? prefix_lens[seq] : seq_len;
    return end;
  }
  KOKKOS_INLINE_FUNCTION bool visible(int position, int key, int seq_len, int seq) const {
    return key >= first_key(position) && key < end_key(position, seq_len, seq);
  }
  // The keys of rows at positions first_position .. last_position of one sequence (none where
  // last_position < first_position).
  KOKKOS_INLINE_FUNCTION KeySpan key_span(int first_position, int last_position, int seq_len, int seq) const {
    KeySpan s;
    if (last_position < first_position) return s;
    s.any_begin = first_key(first_position);
    s.any_end = end_key(last_position, seq_len, seq);
    s.all_begin = first_key(last_position);
    s.all_end = end_key(first_position, seq_len, seq);
    return s;
  }

  // Whether a logit is the scaled dot product alone (the scale may then fold into the softmax).
  KOKKOS_INLINE_FUNCTION bool plain_logits() const {
    if constexpr (Features::logits)
      return softcap == 0.0f && !alibi_slopes && !qq_bias;
    else
      return true;
  }

  // The position ALiBi measures a row's keys from: a select (no branch) on values fixed for the row.
  KOKKOS_INLINE_FUNCTION int alibi_origin_of(int position, int context_len) const {
    return alibi_origin == AlibiOrigin::context_length ? context_len : position;
  }

  // The logit of a visible key: scale, softcap, ALiBi, then qq-bias (the order vLLM uses).
  KOKKOS_INLINE_FUNCTION float logit(float dot, int head, int position, int key, int context_len) const {
    float s = dot * scale;
    if constexpr (Features::logits) {
      if (softcap > 0.0f) s = softcap * KATTN_KOKKOS_MATH::tanh(s / softcap);
      if (alibi_slopes) s += alibi_slopes[head] * float(key - alibi_origin_of(position, context_len));
      if (qq_bias && key >= context_len)
        s += qq_bias[std::int64_t(position - context_len) * qq_bias_size + (key - context_len)];
    }
    return s;
  }

  // A row starts from its sink (max = sink, sum = exp(0) = 1) or from nothing.
  KOKKOS_INLINE_FUNCTION SoftmaxState initial_state(int head) const {
    SoftmaxState state;
    if constexpr (Features::sinks) {
      if (sinks) {
        state.max = sinks[head];
        state.sum = 1.0f;
      }
    }
    return state;
  }
};

// Calls f(PlainScores{}) where the rules use no feature beyond the scale and the causal mask, else
// f(AllScores{}): the one place a launch chooses the features its kernel compiles in.
template <class Features, class F>
decltype(auto) with_score_features(const ScoreRules<Features>& rules, F&& f) {
  if (rules.used_features() == 0) return f(PlainScores{});
  return f(AllScores{});
}

}  // namespace kattn
