// Token addressing beyond 2^31 elements: q, out and the segment workspace of a batch whose rows
// lie past 2^31 elements. A small mixed batch's sequences, placed after 2^20 one-token filler
// sequences (2^20 tokens × 16 heads × 128 = 2^31 elements before them), must give on every variant
// the bits they give alone (batch invariance under a fixed launch, docs/design.md). q and out hold
// 4 GiB each (fp16) and the segmented variants' and split_kv's partials 3 × 2^31 floats (24 GiB),
// so GPU backends run it and host backends only with KATTN_LARGE_TESTS set (docs/testing.md).
#include "fixed_launch.hpp"
#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/workload/generator.hpp"
#include "output_bits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>

namespace kattn {
namespace {

using T = fp16_t;
using Index = Kokkos::View<std::int32_t*, Kokkos::LayoutRight, MemorySpace>;

constexpr int kFiller = 1 << 20;  // one-token sequences before the small batch

// A decode, a chunk with context and a prefill, 2048 elements a token.
HostProblem small_batch() {
  BatchSpec spec;
  spec.model = {"wide", 16, 2, 128};
  spec.dtype = DType::fp16;
  spec.block_size = 16;
  spec.sequences = {{40, 1}, {33, 9}, {17, 17}};
  spec.seed = 31;
  return generate_batch(spec);
}

// `values` copied into `device` (of as many elements).
template <class View>
View upload_indices(View device, const std::vector<std::int32_t>& values) {
  const auto host = Kokkos::create_mirror_view(device);
  std::copy(values.begin(), values.end(), host.data());
  Kokkos::deep_copy(device, host);
  return device;
}

// The small batch after kFiller decodes of one key each (block 0, slot 0: their rows are not
// checked), sharing its caches and features.
AttentionInputs<T, T> after_filler(const HostProblem& small, const AttentionInputs<T, T>& alone) {
  const Geometry& g = small.geometry;
  const int num_seqs = kFiller + g.num_seqs;
  const auto no_init = [](const std::string& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
  AttentionInputs<T, T> big = alone;
  Kokkos::View<T***, Kokkos::LayoutRight, MemorySpace> q(no_init("q_big"), kFiller + g.num_tokens, g.num_q_heads,
                                                         g.head_size);
  Kokkos::deep_copy(Kokkos::subview(q, std::make_pair(0, kFiller), Kokkos::ALL, Kokkos::ALL), from_float<T>(0.5f));
  Kokkos::deep_copy(Kokkos::subview(q, std::make_pair(kFiller, kFiller + g.num_tokens), Kokkos::ALL, Kokkos::ALL),
                    alone.q);
  big.q = q;
  std::vector<std::int32_t> table(std::size_t(num_seqs) * g.max_blocks_per_seq, 0);
  std::copy(small.block_table.begin(), small.block_table.end(),
            table.begin() + std::ptrdiff_t(kFiller) * g.max_blocks_per_seq);
  big.block_table = upload_indices(Kokkos::View<std::int32_t**, Kokkos::LayoutRight, MemorySpace>(
                                       no_init("block_table_big"), num_seqs, g.max_blocks_per_seq),
                                   table);
  std::vector<std::int32_t> cu_seqlens_q(std::size_t(num_seqs) + 1), seq_lens(std::size_t(num_seqs), 1);
  std::iota(cu_seqlens_q.begin(), cu_seqlens_q.begin() + kFiller, 0);
  for (int s = 0; s <= g.num_seqs; ++s)
    cu_seqlens_q[std::size_t(kFiller + s)] = kFiller + small.cu_seqlens_q[std::size_t(s)];
  std::copy(small.seq_lens.begin(), small.seq_lens.end(), seq_lens.begin() + kFiller);
  big.cu_seqlens_q = upload_indices(Index(no_init("cu_seqlens_q_big"), cu_seqlens_q.size()), cu_seqlens_q);
  big.seq_lens = upload_indices(Index(no_init("seq_lens_big"), seq_lens.size()), seq_lens);
  return big;
}

class LargeBatch : public ::testing::TestWithParam<Variant> {};

TEST_P(LargeBatch, RowsPastInt32ElementsGetTheirBitsAlone) {
  if (host_backend() && !std::getenv("KATTN_LARGE_TESTS"))
    GTEST_SKIP() << "8 GiB of q and out, 24 GiB of partials: set KATTN_LARGE_TESTS to run it on a host backend";
  const HostProblem small = small_batch();
  const Geometry& g = small.geometry;
  const DeviceProblem<T, T, T> alone = upload_problem<T, T, T>(small);
  Workspace workspace;  // freed with the test, not kept by the process as Workspace::instance()
  AttentionOptions options = test::fixed_launch(GetParam());
  options.workspace = &workspace;
  attention(alone.inputs, alone.params, alone.out, options);

  const AttentionInputs<T, T> big = after_filler(small, alone.inputs);
  ASSERT_GE(std::int64_t(kFiller) * g.num_q_heads * g.head_size, std::int64_t(1) << 31);  // the rows checked
  const AttentionOutput<T> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out_big"), kFiller + g.num_tokens,
                               g.num_q_heads, g.head_size);
  attention(big, alone.params, out, options);
  const auto tail = Kokkos::subview(out, std::make_pair(kFiller, kFiller + g.num_tokens), Kokkos::ALL, Kokkos::ALL);
  EXPECT_EQ(test::output_bits(tail), test::output_bits(alone.out));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, LargeBatch, ::testing::ValuesIn(all_variants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(to_string(info.param));
                         });

}  // namespace
}  // namespace kattn
