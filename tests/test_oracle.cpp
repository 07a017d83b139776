// The oracle against cases small enough to compute by hand.
#include "kattn/core/error.hpp"
#include "kattn/oracle/oracle.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace kattn {
namespace {

// One sequence of two tokens, one head of size 1, scale 1. Keys k0 = 0, k1 = ln 3 against q = 1
// give weights 1/4 and 3/4; values 2 and 6.
HostProblem two_token_problem() {
  HostProblem p;
  p.dtype = DType::fp32;
  p.geometry = {2, 1, 1, 1, 2, 1, 1, 2};  // tokens, q heads, kv heads, head, blocks, block size, seqs, table width
  p.params.softmax_scale = 1.0;
  p.q = {1.0f, 1.0f};
  p.k_cache = {0.0f, float(std::log(3.0))};
  p.v_cache = {2.0f, 6.0f};
  p.block_table = {0, 1};
  p.cu_seqlens_q = {0, 2};
  p.seq_lens = {2};
  return p;
}

TEST(Oracle, CausalPrefill) {
  const std::vector<double> out = oracle_attention(two_token_problem());
  EXPECT_DOUBLE_EQ(out[0], 2.0);  // the first token sees only itself
  EXPECT_NEAR(out[1], 0.25 * 2.0 + 0.75 * 6.0, 1e-6);
}

TEST(Oracle, NonCausalSeesTheWholeSequence) {
  HostProblem p = two_token_problem();
  p.params.causal = false;
  const std::vector<double> out = oracle_attention(p);
  EXPECT_NEAR(out[0], 5.0, 1e-6);
  EXPECT_NEAR(out[1], 5.0, 1e-6);
}

TEST(Oracle, FollowsTheBlockTable) {
  HostProblem p = two_token_problem();
  std::swap(p.k_cache[0], p.k_cache[1]);  // store the keys and values in swapped blocks ...
  std::swap(p.v_cache[0], p.v_cache[1]);
  p.block_table = {1, 0};  // ... and point the table at them
  const std::vector<double> out = oracle_attention(p);
  EXPECT_DOUBLE_EQ(out[0], 2.0);
  EXPECT_NEAR(out[1], 5.0, 1e-6);
}

TEST(Oracle, DecodeWithContextUsesAbsolutePositions) {
  HostProblem p = two_token_problem();
  p.geometry.num_tokens = 1;  // one decode token at position 1: context 1
  p.q = {1.0f};
  p.cu_seqlens_q = {0, 1};
  const std::vector<double> out = oracle_attention(p);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0], 5.0, 1e-6);
}

TEST(Oracle, GroupedHeadsShareTheirKvHead) {
  HostProblem p = two_token_problem();
  p.geometry.num_q_heads = 2;  // both q heads map to kv head 0; head 1 has q = 0: uniform weights
  p.q = {1.0f, 0.0f, 1.0f, 0.0f};
  const std::vector<double> out = oracle_attention(p);
  EXPECT_DOUBLE_EQ(out[0], 2.0);
  EXPECT_DOUBLE_EQ(out[1], 2.0);
  EXPECT_NEAR(out[2], 5.0, 1e-6);
  EXPECT_NEAR(out[3], 4.0, 1e-6);
}

TEST(Oracle, ScaleMultipliesTheScores) {
  HostProblem p = two_token_problem();
  p.params.softmax_scale = 2.0;  // weights 1 : 9
  EXPECT_NEAR(oracle_attention(p)[1], 0.1 * 2.0 + 0.9 * 6.0, 1e-6);
}

TEST(Oracle, SlidingWindowDropsOldKeys) {
  HostProblem p = two_token_problem();
  p.params.window_left = 0;  // each token sees only itself
  const std::vector<double> out = oracle_attention(p);
  EXPECT_DOUBLE_EQ(out[0], 2.0);
  EXPECT_DOUBLE_EQ(out[1], 6.0);
}

TEST(Oracle, SoftcapBoundsTheScores) {
  HostProblem p = two_token_problem();
  p.params.softcap = 0.5f;  // scores 0 and ln 3 become 0 and 0.5 tanh(2 ln 3)
  const double s1 = 0.5 * std::tanh(2.0 * std::log(3.0));
  const double w1 = std::exp(s1) / (1.0 + std::exp(s1));
  EXPECT_NEAR(oracle_attention(p)[1], (1.0 - w1) * 2.0 + w1 * 6.0, 1e-6);
}

TEST(Oracle, AlibiAddsSlopeTimesDistance) {
  HostProblem p = two_token_problem();
  p.alibi_slopes = {float(std::log(3.0))};  // key 0 is one position back: - ln 3, so weights 1 : 9
  EXPECT_NEAR(oracle_attention(p)[1], (1.0 / 10.0) * 2.0 + (9.0 / 10.0) * 6.0, 1e-6);
}

TEST(Oracle, SinkJoinsTheDenominator) {
  HostProblem p = two_token_problem();
  p.sinks = {0.0f};  // logits 0, ln 3 and the sink 0: weights 1/5, 3/5 (and 1/5 to nothing)
  const std::vector<double> out = oracle_attention(p);
  EXPECT_NEAR(out[0], 0.5 * 2.0, 1e-6);  // the first token: its own key and the sink, 1/2 each
  EXPECT_NEAR(out[1], 0.2 * 2.0 + 0.6 * 6.0, 1e-6);
}

// ALiBi from the query's position or from the context length (vLLM) moves a row's logits together,
// which only its sink does not follow. The second token (position 1, context 0), slope ln 3, sink 0:
// from the query, logits -ln 3, ln 3, 0: weights 1/13, 9/13; from the context, 0, 2 ln 3, 0: 1/11, 9/11.
TEST(Oracle, AlibiOriginMattersWithASink) {
  HostProblem p = two_token_problem();
  p.alibi_slopes = {float(std::log(3.0))};
  p.sinks = {0.0f};
  const std::vector<double> from_query = oracle_attention(p);
  p.params.alibi_origin = AlibiOrigin::context_length;
  const std::vector<double> from_context = oracle_attention(p);
  EXPECT_NEAR(from_query[0], 0.5 * 2.0, 1e-6);  // the first token sits at the context length
  EXPECT_NEAR(from_context[0], 0.5 * 2.0, 1e-6);
  EXPECT_NEAR(from_query[1], (2.0 + 9.0 * 6.0) / 13.0, 1e-6);
  EXPECT_NEAR(from_context[1], (2.0 + 9.0 * 6.0) / 11.0, 1e-6);
}

TEST(Oracle, PrefixIsBidirectional) {
  HostProblem p = two_token_problem();
  p.prefix_lens = {2};  // the first token sees the second too
  EXPECT_NEAR(oracle_attention(p)[0], 5.0, 1e-6);
}

TEST(Oracle, QqBiasAppliesBetweenNewTokens) {
  HostProblem p = two_token_problem();
  p.qq_bias_size = 2;
  p.qq_bias = {0.0f, 0.0f, float(std::log(3.0)), 0.0f};  // query 1 -> key 0: + ln 3, weights 3 : 3
  EXPECT_NEAR(oracle_attention(p)[1], 0.5 * 2.0 + 0.5 * 6.0, 1e-6);
}

TEST(Oracle, ScalesDequantiseAndQuantise) {
  HostProblem p = two_token_problem();
  p.params.k_scale = 2.0f;  // scores 0 and 2 ln 3: weights 1 : 9
  p.params.v_scale = 0.5f;  // values 1 and 3
  p.fp8_out = true;
  p.params.out_scale = 0.25f;
  EXPECT_NEAR(oracle_attention(p)[1], (0.1 * 1.0 + 0.9 * 3.0) / 0.25, 1e-6);
}

}  // namespace
}  // namespace kattn
