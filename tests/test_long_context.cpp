// Sensitivity at long context: a fixed tolerance cannot see one missing or doubled block of 16 keys
// among 64k (it moves an output by ~2e-4, below the fp16 and bf16 tolerances). One sequence of
// 65,536 keys with a chunk of 2 new tokens (decode-sized, so cheap on host backends) on every
// variant, with tiles, partitions and segments whose bounds fall inside the sequence:
//  - random values: fp32 against the oracle's fp32 tolerance, which at this size does see a block;
//    fp16 and bf16 by FlashAttention's rule, at most twice the error of a same-precision reference
//    (compare_to_same_precision);
//  - tagged values: q = 0, so every visible key weighs the same and out is the mean of the visible
//    V rows, and V rows whose mean names the keys summed (tag_value), every dtype by the same rule.
#include "kattn/harness/run_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/workload/generator.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>

namespace kattn {
namespace {

constexpr int kKeys = 65536;

enum class Values { random, tagged };

// ±1 for unit u (a key, or a block of 16): the sign of u's parity times the sign of bit `bit` of
// u / 2 (bit -1: none). Two consecutive units cancel, so the mean over any prefix of keys stays
// within one unit's share of 0 (|out| <= 16 / 65,535), exact in every dtype; a dropped or doubled
// unit moves every column of its kind by its share (2.4e-4 for a block, 1.5e-5 for a key, against
// a bound of 6e-8 or less), in a pattern of signs over the columns that names the unit.
float tag_value(int unit, int bit) {
  const bool odd = unit % 2 != 0;
  const bool flipped = bit >= 0 && ((unit / 2) >> bit) % 2 != 0;
  return odd != flipped ? -1.0f : 1.0f;
}

// V of key `key` (sequence position), column d: columns 0-11 tag its block (4096 blocks: 11 bits
// of the pair of blocks and its parity), columns 12-27 the key itself (16 bits); the rest are 0.
// KV head 1 holds the negated tags, so a row read from the other head shows too.
float tagged_v(int key, int d, int kv_head) {
  const float sign = kv_head == 0 ? 1.0f : -1.0f;
  if (d < 12) return sign * tag_value(key / 16, d < 11 ? d : -1);
  if (d < 28) return sign * tag_value(key, d < 27 ? d - 12 : -1);
  return 0.0f;
}

HostProblem long_sequence(DType dtype, Values values) {
  BatchSpec spec;
  spec.model = {"long", 4, 2, 32};  // GQA 2; head 32 keeps the caches at 4M elements each
  spec.dtype = dtype;
  spec.block_size = 16;
  spec.sequences = {{kKeys, 2}};  // the two queries see 65,535 and 65,536 keys
  spec.seed = 64;
  spec.with_values = values == Values::random;
  HostProblem p = generate_batch(spec);
  if (values == Values::random) return p;
  const Geometry& g = p.geometry;
  p.q.assign(std::size_t(g.q_elements()), 0.0f);
  p.k_cache.assign(std::size_t(g.cache_elements()), 0.0f);  // with q = 0 every logit is 0 whatever K holds
  p.v_cache.assign(std::size_t(g.cache_elements()), 0.0f);
  for (int key = 0; key < kKeys; ++key)
    for (int h = 0; h < g.num_kv_heads; ++h) {
      const std::int64_t block = p.block_table[std::size_t(key / g.block_size)];
      float* row =
          &p.v_cache[std::size_t(((block * g.block_size + key % g.block_size) * g.num_kv_heads + h) * g.head_size)];
      for (int d = 0; d < g.head_size; ++d) row[d] = tagged_v(key, d, h);
    }
  return p;
}

// A problem with its oracle and same-precision reference, built once for all the variants.
struct LongCase {
  DType dtype;
  Values values;
  HostProblem problem;
  std::vector<double> oracle;
  std::vector<double> reference;

  LongCase(DType d, Values v)
      : dtype(d),
        values(v),
        problem(long_sequence(d, v)),
        oracle(oracle_attention(problem)),
        reference(same_precision_reference(problem)) {}
};

// Tiles and split_kv partitions of 1008 keys (63 blocks), 5 segments: 65,536 keys end in a tile of
// one block, so a partition or segment bound off by one tile or block drops or doubles a block.
// Host backends take teams of one thread: a team's barriers, one or more a tile, would otherwise
// make the baseline's 4096 tiles a row the bulk of the suite's time on a busy 2-core machine.
AttentionOptions long_options(Variant variant) {
  AttentionOptions options;
  options.variant = variant;
  options.tile_size = 1008;
  options.num_segments = 5;
  if (host_backend()) options.team_size = 1;
  return options;
}

using Param = std::tuple<Values, DType, Variant>;

// The variant varies fastest, so the cache holds one case at a time and builds each once.
class LongContext : public ::testing::TestWithParam<Param> {
 protected:
  static const LongCase& long_case(DType dtype, Values values) {
    if (!cached_ || cached_->dtype != dtype || cached_->values != values) {
      cached_.reset();
      cached_ = std::make_unique<LongCase>(dtype, values);
    }
    return *cached_;
  }
  static void TearDownTestSuite() { cached_.reset(); }

 private:
  static std::unique_ptr<LongCase> cached_;
};

std::unique_ptr<LongCase> LongContext::cached_;

TEST_P(LongContext, SeesOneBlockOf64kKeys) {
  const auto [values, dtype, variant] = GetParam();
  const LongCase& c = long_case(dtype, values);
  const ProblemRun run = run_problem(c.problem, long_options(variant));
  if (values == Values::random && dtype == DType::fp32) {
    const Comparison result = compare_to_reference(run.out, c.oracle, c.problem);
    EXPECT_TRUE(result.passed()) << result.failures << " elements off; max abs error " << result.max_abs_error;
    return;
  }
  const PrecisionComparison result = compare_to_same_precision(run.out, c.oracle, c.reference, dtype);
  EXPECT_TRUE(result.passed()) << "max abs error " << result.max_abs_error << " > 2 × " << result.reference_error
                               << " (the same-precision reference's) + " << result.floor;
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(std::get<0>(info.param) == Values::tagged ? "tagged_" : "random_") +
         std::string(to_string(std::get<1>(info.param))) + "_" + std::string(to_string(std::get<2>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, LongContext,
                         ::testing::Combine(::testing::Values(Values::random, Values::tagged),
                                            ::testing::Values(DType::fp32, DType::fp16, DType::bf16),
                                            ::testing::ValuesIn(all_variants())),
                         param_name);

}  // namespace
}  // namespace kattn
