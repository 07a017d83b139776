// Poisoned caches: for each sequence, every cache slot it must not read — the tail of its last
// block, keys outside its window, other sequences' blocks, the free block, and the blocks its
// block-table padding names, inside the cache and just outside it — holds NaN and ±inf (fp8 e4m3
// has no inf: its NaNs 0x7f / 0xff and ±448, the largest finite values). Its output rows must be
// bit-identical to the same call on a clean cache: a kernel that reads such a slot, even with
// weight 0 (0·NaN = NaN), is caught. Every variant, every storage type.
#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "output_bits.hpp"
#include "storage_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kattn {
namespace {

// Poisoned blocks on either side of the cache: padding ids -1, -2, num_blocks and num_blocks + 1
// land there (the padding of a block-table row is never read, so its ids may be anything).
constexpr int kGuardBlocks = 2;

// Element i of a poisoned slot. Through from_float, fp8 gets NaN 0x7f, 0xff and ±448 (saturated).
float poison(std::size_t i) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float values[] = {nan, -nan, inf, -inf};
  return values[i % 4];
}

struct PoisonCase {
  const char* name;
  std::vector<SequenceShape> sequences;
  int block_size;
  int head_size;  // 128: the head size the GPU kernels specialise (tile copies, warpgroup products)
  int window_left;
  bool prefix_lm;
  bool logit_features;  // sinks, softcap and ALiBi: the masked path through every logit rule
};

void PrintTo(const PoisonCase& c, std::ostream* os) { *os << c.name; }

// The padding of every block-table row (two extra columns make sure each row has some) names
// blocks the row's sequence must not read: the guard blocks, the free block, another sequence's.
void poison_padding(HostProblem& p) {
  Geometry& g = p.geometry;
  const int width = g.max_blocks_per_seq + 2;
  std::vector<std::int32_t> table(std::size_t(g.num_seqs) * width);
  std::vector<char> used(std::size_t(g.num_blocks), 0);
  const auto used_blocks = [&](int s) { return (p.seq_lens[std::size_t(s)] + g.block_size - 1) / g.block_size; };
  for (int s = 0; s < g.num_seqs; ++s)
    for (int b = 0; b < used_blocks(s); ++b)
      used[std::size_t(p.block_table[std::size_t(s) * g.max_blocks_per_seq + b])] = 1;
  const std::int32_t free_block = std::int32_t(std::find(used.begin(), used.end(), 0) - used.begin());
  ASSERT_LT(free_block, g.num_blocks) << "the generator leaves a free block";
  for (int s = 0; s < g.num_seqs; ++s) {
    const int other = (s + 1) % g.num_seqs;
    const std::int32_t others_block = p.block_table[std::size_t(other) * g.max_blocks_per_seq];
    const std::int32_t ids[] = {-1, g.num_blocks, free_block, others_block, -2, g.num_blocks + 1};
    for (int b = 0; b < width; ++b)
      table[std::size_t(s) * width + b] = b < used_blocks(s) ? p.block_table[std::size_t(s) * g.max_blocks_per_seq + b]
                                                             : ids[(b - used_blocks(s) + s) % 6];
  }
  p.block_table = std::move(table);
  g.max_blocks_per_seq = width;
}

HostProblem poison_case_problem(const PoisonCase& c, const test::StorageCase& storage) {
  BatchSpec spec;
  spec.model = {"poison", 4, 2, c.head_size};
  storage.apply_to(spec);
  spec.block_size = c.block_size;
  spec.sequences = c.sequences;
  spec.seed = std::uint64_t(c.block_size);
  spec.features.window_left = c.window_left;
  spec.features.prefix_lm = c.prefix_lm;
  spec.features.sinks = c.logit_features;
  spec.features.alibi = c.logit_features;
  spec.features.softcap = c.logit_features ? 20.0f : 0.0f;
  HostProblem problem = generate_batch(spec);
  poison_padding(problem);
  return problem;
}

// The cache slots (block · block_size + slot) sequence s reads: its keys that one of its queries
// sees (the oracle's visibility rule).
std::vector<char> slots_read_by(const HostProblem& p, int s) {
  const Geometry& g = p.geometry;
  std::vector<char> read(std::size_t(g.num_blocks) * g.block_size, 0);
  const int seq_len = p.seq_lens[std::size_t(s)];
  const int query_len = p.cu_seqlens_q[std::size_t(s) + 1] - p.cu_seqlens_q[std::size_t(s)];
  const int prefix_len = p.prefix_lens.empty() ? 0 : p.prefix_lens[std::size_t(s)];
  for (int position = seq_len - query_len; position < seq_len; ++position)
    for (int key = 0; key < seq_len; ++key) {
      const bool causal_ok = !p.params.causal || key <= position || key < prefix_len;
      const bool window_ok = p.params.window_left < 0 || position - key <= p.params.window_left;
      const std::int32_t block = p.block_table[std::size_t(s) * g.max_blocks_per_seq + key / g.block_size];
      if (causal_ok && window_ok) read[std::size_t(block) * g.block_size + key % g.block_size] = 1;
    }
  return read;
}

// A cache of the problem's geometry inside kGuardBlocks blocks on either side. Slots with keep set
// hold the problem's values, the others poison; the guard blocks hold zeros for a clean call
// (keep all) and poison otherwise. Returns the view of the inside.
template <class Cache>
Kokkos::View<const Cache****, Kokkos::LayoutStride, MemorySpace> guarded_cache(const std::vector<float>& values,
                                                                               const Geometry& g,
                                                                               const std::vector<char>& keep) {
  const bool clean = std::all_of(keep.begin(), keep.end(), [](char k) { return k != 0; });
  Kokkos::View<Cache****, Kokkos::LayoutRight, MemorySpace> whole("guarded_cache", g.num_blocks + 2 * kGuardBlocks,
                                                                  g.block_size, g.num_kv_heads, g.head_size);
  auto host = Kokkos::create_mirror_view(whole);
  const std::size_t row = std::size_t(g.num_kv_heads) * g.head_size;   // the elements of one slot
  const std::size_t guard = std::size_t(kGuardBlocks) * g.block_size;  // the slots of the guard before
  for (std::size_t i = 0; i < host.span(); ++i) {
    const std::size_t slot = i / row;
    const bool inside = slot >= guard && slot - guard < keep.size();
    const float value =
        inside ? (keep[slot - guard] ? values[i - guard * row] : poison(i)) : (clean ? 0.0f : poison(i));
    host.data()[i] = from_float<Cache>(value);
  }
  Kokkos::deep_copy(whole, host);
  return Kokkos::subview(whole, std::make_pair(kGuardBlocks, kGuardBlocks + g.num_blocks), Kokkos::ALL, Kokkos::ALL,
                         Kokkos::ALL);
}

class PoisonedCache : public ::testing::TestWithParam<std::tuple<Variant, test::StorageCase, PoisonCase>> {};

TEST_P(PoisonedCache, EachSequencesRowsAreBitIdenticalToACleanCall) {
  const Variant variant = std::get<0>(GetParam());
  const test::StorageCase storage = std::get<1>(GetParam());
  const HostProblem problem = poison_case_problem(std::get<2>(GetParam()), storage);
  const Geometry& g = problem.geometry;
  dispatch_storage(storage.q, storage.cache(), storage.out(), [&](auto q_tag, auto cache_tag, auto out_tag) {
    using Q = decltype(q_tag);
    using Cache = decltype(cache_tag);
    using Out = decltype(out_tag);
    const DeviceProblem<Q, Cache, Out> device = upload_problem<Q, Cache, Out>(problem);
    // The call on caches that keep the slots marked in `keep`, the rest poisoned.
    const auto call = [&](const std::vector<char>& keep) {
      AttentionInputs<Q, Cache> inputs = device.inputs;
      inputs.k_cache = guarded_cache<Cache>(problem.k_cache, g, keep);
      inputs.v_cache = guarded_cache<Cache>(problem.v_cache, g, keep);
      const AttentionOutput<Out> out("out", g.num_tokens, g.num_q_heads, g.head_size);
      attention(inputs, device.params, out, test::forced_launch(variant));
      return out;
    };
    const AttentionOutput<Out> clean = call(std::vector<char>(std::size_t(g.num_blocks) * g.block_size, 1));
    const Comparison c = compare_to_reference(download_out(clean), oracle_attention(problem), problem);
    ASSERT_TRUE(c.passed()) << "clean call: " << c.failures << " elements off; max abs error " << c.max_abs_error;
    const std::vector<std::uint32_t> expected = test::output_bits(clean);
    const std::size_t token_elements = std::size_t(g.num_q_heads) * g.head_size;
    for (int s = 0; s < g.num_seqs; ++s) {
      const std::size_t first = std::size_t(problem.cu_seqlens_q[std::size_t(s)]) * token_elements;
      const std::size_t end = std::size_t(problem.cu_seqlens_q[std::size_t(s) + 1]) * token_elements;
      if (first == end) continue;  // no rows to compare
      const std::vector<std::uint32_t> poisoned = test::output_bits(call(slots_read_by(problem, s)));
      const auto mismatch = std::mismatch(poisoned.begin() + first, poisoned.begin() + end, expected.begin() + first);
      EXPECT_TRUE(mismatch.first == poisoned.begin() + end)
          << "sequence " << s << ": token " << (mismatch.first - poisoned.begin()) / token_elements << " differs ("
          << std::hex << *mismatch.first << " instead of " << *mismatch.second << ")";
    }
  });
}

// Tails: block sizes 16, 8 and 5 divide few lengths. Blocks outside the window: window 9 over
// contexts up to 100 (a decode, a chunk, a prefill), with the logit rules on; window 12 beside
// prefix-LM, whose prefix stays visible to every query, at head size 64 (the GPU kernels' generic
// path). Sequences with no query tokens read nothing.
const PoisonCase kCases[] = {
    {"mixed", {{37, 1}, {50, 17}, {23, 23}, {1, 1}, {12, 0}}, 16, 128, -1, false, false},
    {"window", {{100, 1}, {90, 20}, {64, 64}, {41, 3}}, 8, 128, 9, false, true},
    {"window_prefix_lm", {{47, 1}, {33, 9}, {26, 26}, {18, 0}, {7, 2}}, 5, 64, 12, true, false},
};

INSTANTIATE_TEST_SUITE_P(AllVariants, PoisonedCache,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::ValuesIn(test::every_storage()), ::testing::ValuesIn(kCases)),
                         [](const ::testing::TestParamInfo<PoisonedCache::ParamType>& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  std::get<1>(info.param).name() + "_" + std::get<2>(info.param).name;
                         });

}  // namespace
}  // namespace kattn
