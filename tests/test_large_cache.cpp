// Cache addressing beyond 2^31 elements: the same problem with its blocks moved to the far end of
// an fp8 cache of more than 2^31 elements must give bit-identical output on every variant.
#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/workload/generator.hpp"
#include "output_bits.hpp"

#include <gtest/gtest.h>

namespace kattn {
namespace {

using Q = fp16_t;
using Cache = fp8_e4m3_t;

TEST(LargeCache, OffsetsBeyondInt32AreExact) {
  BatchSpec spec;
  spec.model = model_by_name("tiny");  // 2 KV heads × 64: 2048 elements per block of 16
  spec.dtype = DType::fp16;
  spec.block_size = 16;
  spec.features.fp8_kv_cache = true;
  spec.sequences = {{40, 1}, {33, 9}, {17, 17}};
  const HostProblem problem = generate_batch(spec);
  const Geometry& g = problem.geometry;
  const DeviceProblem<Q, Cache, Q> small = upload_problem<Q, Cache, Q>(problem);

  // 2^20 blocks of 2048 elements reach 2^31: the used blocks all sit past that offset.
  const int shift = 1 << 20;
  using BigCache = Kokkos::View<Cache****, Kokkos::LayoutRight, MemorySpace>;
  const auto no_init = [](const std::string& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
  BigCache k_big(no_init("k_big"), shift + g.num_blocks, g.block_size, g.num_kv_heads, g.head_size);
  BigCache v_big(no_init("v_big"), shift + g.num_blocks, g.block_size, g.num_kv_heads, g.head_size);
  ASSERT_GT(k_big.span(), std::size_t(1) << 31);
  const auto far_end = std::make_pair(shift, shift + g.num_blocks);
  Kokkos::deep_copy(Kokkos::subview(k_big, far_end, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL), small.inputs.k_cache);
  Kokkos::deep_copy(Kokkos::subview(v_big, far_end, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL), small.inputs.v_cache);
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, MemorySpace> table("table", g.num_seqs, g.max_blocks_per_seq);
  auto table_host = Kokkos::create_mirror_view(table);
  for (std::size_t i = 0; i < problem.block_table.size(); ++i) table_host.data()[i] = problem.block_table[i] + shift;
  Kokkos::deep_copy(table, table_host);

  AttentionInputs<Q, Cache> big = small.inputs;
  big.k_cache = k_big;
  big.v_cache = v_big;
  big.block_table = table;
  for (Variant variant : all_variants()) {
    AttentionOptions options;
    options.variant = variant;
    options.num_segments = 3;
    const AttentionOutput<Q> expected("expected", g.num_tokens, g.num_q_heads, g.head_size);
    const AttentionOutput<Q> actual("actual", g.num_tokens, g.num_q_heads, g.head_size);
    attention(small.inputs, small.params, expected, options);
    attention(big, small.params, actual, options);
    EXPECT_EQ(test::output_bits(actual), test::output_bits(expected)) << to_string(variant);
  }
}

}  // namespace
}  // namespace kattn
