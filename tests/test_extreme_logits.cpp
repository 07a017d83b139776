// Extreme logits: softcap over scaled scores of about ±1e4, rows whose one visible key scores
// -5e5 (the output must be exactly that key's V), dot products past fp16's range before the scale,
// later key tiles scoring far past the first one's max, and ALiBi across 128k positions. Outputs
// must be finite and within the oracle's tolerance. q and K are integers here, so every dot product
// is exact in fp32 and only the logit rules are tested.
#include "kattn/harness/run_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "storage_cases.hpp"

#include <gtest/gtest.h>

#include <random>

namespace kattn {
namespace {

void expect_matches_oracle(const HostProblem& problem, Variant variant) {
  const ProblemRun run = run_problem(problem, test::forced_launch(variant));
  const Comparison c = compare_to_reference(run.out, oracle_attention(problem), problem);
  EXPECT_TRUE(c.passed()) << c.failures << " elements off or not finite; max abs error " << c.max_abs_error;
}

// A decode with context, a chunk, a prefill and a one-token sequence; head 128, the head size the
// GPU kernels specialise (their softmax folds the scale into the exponent's FFMA).
BatchSpec extreme_spec(const test::StorageCase& storage) {
  BatchSpec spec;
  spec.model = {"extreme", 4, 2, 128};
  storage.apply_to(spec);
  spec.block_size = 16;
  spec.sequences = {{37, 1}, {50, 17}, {23, 23}, {1, 1}};
  spec.seed = 3;
  return spec;
}

// q = ±2048 with random signs, K = random integers in [-8, 8]: dot products are multiples of 2048
// up to 2^21, typically about ±1.3e5 (past fp16's 65504), exact in fp32 and in every storage type
// (fp8 e4m3 holds the integers up to 16).
HostProblem with_large_dot_products(const BatchSpec& spec) {
  HostProblem problem = generate_batch(spec);
  std::mt19937_64 rng(spec.seed);
  for (float& x : problem.q) x = rng() % 2 ? 2048.0f : -2048.0f;
  for (float& x : problem.k_cache) x = float(int(rng() % 17) - 8);
  return problem;
}

class ExtremeLogits : public ::testing::TestWithParam<test::VariantStorage> {
 protected:
  const Variant variant = std::get<0>(GetParam());
  const test::StorageCase storage = std::get<1>(GetParam());
};

// At the default scale 1/sqrt(128) the scores are about ±1e4; a softcap of 30 must saturate them
// to ±30, not overflow (tanh as a ratio of exponentials gives inf / inf).
TEST_P(ExtremeLogits, SoftcapOfScoresNear1e4) {
  BatchSpec spec = extreme_spec(storage);
  spec.features.softcap = 30.0f;
  expect_matches_oracle(with_large_dot_products(spec), variant);
}

// Dot products past 65504 scaled by 2^-12 into logits of about ±30: no stage may hold a score in
// fp16 before the scale.
TEST_P(ExtremeLogits, DotProductsBeyondFp16BeforeTheScale) {
  HostProblem problem = with_large_dot_products(extreme_spec(storage));
  problem.params.softmax_scale = 1.0 / 4096.0;
  expect_matches_oracle(problem, variant);
}

// Window 0: every query sees its own key alone, scored q·k · scale = -2^21 · 5e5 / 2^21 = -5e5.
// The softmax of one logit is 1 whatever the logit, so the output is exactly that key's V;
// exponentials not taken relative to the running max give 0 / 0.
TEST_P(ExtremeLogits, OneVisibleKeyScoredMinus5e5GivesExactlyItsValue) {
  BatchSpec spec = extreme_spec(storage);
  spec.features.window_left = 0;
  HostProblem problem = generate_batch(spec);
  const int head_size = problem.geometry.head_size;
  const auto sign = [](std::size_t d) { return d % 3 ? 1.0f : -1.0f; };
  for (std::size_t i = 0; i < problem.q.size(); ++i) problem.q[i] = -2048.0f * sign(i % std::size_t(head_size));
  for (std::size_t i = 0; i < problem.k_cache.size(); ++i) problem.k_cache[i] = 8.0f * sign(i % std::size_t(head_size));
  problem.params.softmax_scale = 500000.0 / 2097152.0;  // exact in fp32

  const std::vector<float> out = run_problem(problem, test::forced_launch(variant)).out;
  const Geometry& g = problem.geometry;
  for (int s = 0; s < g.num_seqs; ++s) {
    const int first_token = problem.cu_seqlens_q[std::size_t(s)];
    const int context_len = problem.seq_lens[std::size_t(s)] - (problem.cu_seqlens_q[std::size_t(s) + 1] - first_token);
    for (int token = first_token; token < problem.cu_seqlens_q[std::size_t(s) + 1]; ++token) {
      const int position = context_len + token - first_token;
      const std::int32_t block = problem.block_table[std::size_t(s) * g.max_blocks_per_seq + position / g.block_size];
      const std::size_t slot = std::size_t(block) * g.block_size + std::size_t(position % g.block_size);
      for (int h = 0; h < g.num_q_heads; ++h) {
        const float* v = &problem.v_cache[(slot * g.num_kv_heads + std::size_t(h / g.queries_per_kv())) * head_size];
        const float* o = &out[(std::size_t(token) * g.num_q_heads + std::size_t(h)) * head_size];
        for (int d = 0; d < head_size; ++d)
          ASSERT_EQ(o[d], v[d]) << "token " << token << ", head " << h << ", element " << d;
      }
    }
  }
}

// Keys that score far above the item's first tile, which the GPU's Q-block kernels take first (a
// causal block's diagonal), so that the tiles after it pass the rows' kept maxima: key p scores
// a(p) = 13 - 4 (p / 64) + p % 3 (q = ±1 and k = ±a(p) on the same signs, dot products 128 a(p),
// exact in every storage type: fp8 e4m3 holds the integers to 16), about 12 more in the first 64
// keys than in the last ones. The scale sets how far past that is in log2 (12 · 128 · scale ·
// log2 e): 104 stays finite and moves a max by powers of two; 208 overflows the exponent, and
// those tiles' scores are taken again. The second sequence's 100 queries start at position 200, mid
// tile: rows of its first Q block see no key of the item's first tile (their max still -inf).
HostProblem with_keys_scoring_higher_toward_the_start(const test::StorageCase& storage, double scale) {
  BatchSpec spec = extreme_spec(storage);
  spec.sequences = {{256, 256}, {300, 100}};
  HostProblem problem = generate_batch(spec);
  const int head_size = problem.geometry.head_size, kv_heads = problem.geometry.num_kv_heads;
  const auto sign = [](std::size_t d) { return d % 3 ? 1.0f : -1.0f; };
  for (std::size_t i = 0; i < problem.q.size(); ++i) problem.q[i] = sign(i % std::size_t(head_size));
  const Geometry& g = problem.geometry;
  for (int seq = 0; seq < g.num_seqs; ++seq)
    for (int p = 0; p < problem.seq_lens[std::size_t(seq)]; ++p) {
      const std::int32_t block = problem.block_table[std::size_t(seq) * g.max_blocks_per_seq + p / g.block_size];
      const std::size_t slot = std::size_t(block) * g.block_size + std::size_t(p % g.block_size);
      const float a = float(13 - 4 * (p / 64) + p % 3);
      for (std::size_t e = 0; e < std::size_t(kv_heads * head_size); ++e)
        problem.k_cache[slot * std::size_t(kv_heads * head_size) + e] = a * sign(e % std::size_t(head_size));
    }
  problem.params.softmax_scale = scale;
  return problem;
}

TEST_P(ExtremeLogits, LaterTilesScoringFarAboveTheFirstTilesMax) {
  expect_matches_oracle(with_keys_scoring_higher_toward_the_start(storage, 6.0 / 128.0), variant);
}

TEST_P(ExtremeLogits, LaterTilesScoringPastTheExponentsRangeAboveTheFirstTilesMax) {
  expect_matches_oracle(with_keys_scoring_higher_toward_the_start(storage, 12.0 / 128.0), variant);
}

INSTANTIATE_TEST_SUITE_P(AllVariants, ExtremeLogits,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::ValuesIn(test::every_storage())),
                         test::variant_storage_name);

// ALiBi across 128k positions: four queries at positions 131069-131072 of one sequence see keys up
// to 131072 positions back, with biases down to -2^(-8/3) · 131072 ≈ -20600 (slopes of 3 heads, the
// first two not powers of two), beside sinks. Kept cheap: one sequence, one KV head of 32 elements,
// fp32 (the tightest tolerance), the problem and its oracle built once for every variant.
class AlibiAt128k : public ::testing::TestWithParam<Variant> {
 protected:
  static void SetUpTestSuite() {
    BatchSpec spec;
    spec.model = {"alibi-128k", 3, 1, 32};
    spec.dtype = DType::fp32;
    spec.block_size = 1024;
    spec.sequences = {{131073, 4}};
    spec.features.alibi = true;
    spec.features.sinks = true;
    problem_ = new HostProblem(generate_batch(spec));
    expected_ = new std::vector<double>(oracle_attention(*problem_));
  }
  static void TearDownTestSuite() {
    delete problem_;
    delete expected_;
  }
  static const HostProblem* problem_;
  static const std::vector<double>* expected_;
};

const HostProblem* AlibiAt128k::problem_ = nullptr;
const std::vector<double>* AlibiAt128k::expected_ = nullptr;

TEST_P(AlibiAt128k, MatchesTheOracle) {
  AttentionOptions options = test::forced_launch(GetParam());
  options.tile_size = 256;  // 513 tiles or partitions, not 18725 of 7 keys
  const Comparison c = compare_to_reference(run_problem(*problem_, options).out, *expected_, *problem_);
  EXPECT_TRUE(c.passed()) << c.failures << " elements off or not finite; max abs error " << c.max_abs_error;
}

INSTANTIATE_TEST_SUITE_P(AllVariants, AlibiAt128k, ::testing::ValuesIn(all_variants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(to_string(info.param));
                         });

}  // namespace
}  // namespace kattn
