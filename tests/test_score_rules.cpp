// The score rules as the kernels compile them (score_rules.hpp): the tiles a run of rows touches and
// those it needs no mask on (KeySpan, MaskTiles) against a key-by-key count of what each row sees,
// and the plain variant against the run-time rules wherever a call uses no feature beyond the
// scale and the causal mask.
#include "kattn/detail/tiles/score_rules.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace kattn {
namespace {

struct MaskCase {
  bool causal;
  int window_left;
  int prefix_len;  // 0 = no prefix-LM
  int tile_keys;
};

class MaskTilesTest : public ::testing::TestWithParam<MaskCase> {};

// Every run of rows of a sequence: its tiles from the first row's window start (as a Q block's item
// lays them) are touched where some row sees a key of the tile, unmasked where every row sees
// every key of it.
TEST_P(MaskTilesTest, MatchKeyByKeyVisibility) {
  const MaskCase c = GetParam();
  const int seq_len = 300;
  std::vector<std::int32_t> prefix_lens{c.prefix_len};
  ScoreRules<> rules;
  rules.causal = c.causal;
  rules.window_left = c.window_left;
  rules.prefix_lens = c.prefix_len > 0 ? prefix_lens.data() : nullptr;
  std::mt19937 random(7);
  for (int trial = 0; trial < 400; ++trial) {
    const int first_position = int(random() % seq_len);
    const int last_position = first_position + int(random() % 40);
    if (last_position >= seq_len) continue;
    const KeySpan span = rules.key_span(first_position, last_position, seq_len, 0);
    const int origin = span.any_begin;
    const MaskTiles tiles = span.tiles(origin, c.tile_keys);
    ASSERT_EQ(tiles.begin, 0);
    ASSERT_EQ(tiles.unmasked_count() + tiles.partial_count(), tiles.count());
    for (int tile = -1; tile < seq_len / c.tile_keys + 2; ++tile) {
      int seen = 0, pairs = 0;
      for (int p = first_position; p <= last_position; ++p)
        for (int key = origin + tile * c.tile_keys; key < origin + (tile + 1) * c.tile_keys; ++key) {
          ++pairs;
          seen += key >= 0 && key < seq_len && rules.visible(p, key, seq_len, 0);
        }
      ASSERT_EQ(tiles.touches(tile), seen > 0)
          << "positions " << first_position << ".." << last_position << " tile " << tile;
      ASSERT_EQ(tiles.unmasked(tile), seen == pairs)
          << "positions " << first_position << ".." << last_position << " tile " << tile;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Masks, MaskTilesTest,
                         ::testing::Values(MaskCase{true, -1, 0, 64}, MaskCase{true, -1, 0, 16},
                                           MaskCase{false, -1, 0, 64}, MaskCase{true, 50, 0, 64},
                                           MaskCase{true, 7, 0, 16}, MaskCase{true, -1, 120, 64},
                                           MaskCase{true, 30, 90, 16}));

TEST(MaskTiles, EmptyRunTouchesNothing) {
  const MaskTiles tiles = KeySpan{}.tiles(0, 64);
  EXPECT_EQ(tiles.count(), 0);
  EXPECT_FALSE(tiles.touches(0));
  EXPECT_FALSE(tiles.unmasked(0));
}

TEST(ScoreFeatures, UsedFeaturesNameEachHook) {
  const float slopes[1] = {0.5f}, sinks[1] = {1.0f}, bias[1] = {0.0f};
  const std::int32_t prefix[1] = {4};
  ScoreRules<> rules;
  EXPECT_EQ(rules.used_features(), 0u);
  rules.causal = false;
  EXPECT_EQ(rules.used_features(), 0u) << "causal or not is the plain variant's own choice";
  ScoreRules<> window = rules, softcap = rules, alibi = rules, qq = rules, sink = rules, prefix_lm = rules;
  window.window_left = 8;
  softcap.softcap = 30.0f;
  alibi.alibi_slopes = slopes;
  qq.qq_bias = bias;
  qq.qq_bias_size = 1;
  sink.sinks = sinks;
  prefix_lm.prefix_lens = prefix;
  EXPECT_EQ(window.used_features(), unsigned(kWindowFeature));
  EXPECT_EQ(softcap.used_features(), unsigned(kLogitFeature));
  EXPECT_EQ(alibi.used_features(), unsigned(kLogitFeature));
  EXPECT_EQ(qq.used_features(), unsigned(kLogitFeature));
  EXPECT_EQ(sink.used_features(), unsigned(kSinkFeature));
  EXPECT_EQ(prefix_lm.used_features(), unsigned(kPrefixLmFeature));
  EXPECT_TRUE(with_score_features(rules, [](auto features) { return decltype(features)::flags == 0; }));
  EXPECT_TRUE(with_score_features(sink, [](auto features) { return decltype(features)::sinks; }));
}

// Where a call uses no feature, the plain variant computes what the run-time rules compute.
TEST(ScoreFeatures, PlainVariantAgreesWithRunTimeRules) {
  for (const bool causal : {true, false}) {
    ScoreRules<> rules;
    rules.scale = 0.125f;
    rules.causal = causal;
    const ScoreRules<PlainScores> plain = rules.compiled_for<PlainScores>();
    EXPECT_TRUE(plain.plain_logits());
    for (int position = 0; position < 40; position += 3) {
      EXPECT_EQ(plain.first_key(position), rules.first_key(position));
      EXPECT_EQ(plain.end_key(position, 50, 0), rules.end_key(position, 50, 0));
      EXPECT_EQ(plain.logit(3.0f, 0, position, 1, 10), rules.logit(3.0f, 0, position, 1, 10));
    }
    EXPECT_EQ(plain.initial_state(0).sum, rules.initial_state(0).sum);
    EXPECT_TRUE(std::isinf(plain.initial_state(0).max));
  }
}

}  // namespace
}  // namespace kattn
