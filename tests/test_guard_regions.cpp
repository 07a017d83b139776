// Guard regions: a successful call writes all of `out` and nothing around it. `out` is the middle
// of a larger buffer (tokens [kMarginTokens, kMarginTokens + num_tokens) of a LayoutRight view),
// every element of which starts as NaN; afterwards the margins must hold the same NaN bits and
// `out` must match the oracle. Every variant, every storage type, on every backend.
#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "output_bits.hpp"
#include "storage_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace kattn {
namespace {

// Whole token rows on either side, at least as many as a Q block's padding rows reach past the last
// token (BLOCK_Q - 1: 15 for the tensor cores' 64 rows with 4 query heads a KV head), so that a
// kernel storing padding rows writes into the margin, not past the buffer.
constexpr int kMarginTokens = 16;

class GuardRegions : public ::testing::TestWithParam<test::VariantStorage> {};

TEST_P(GuardRegions, MarginsAroundOutStayUntouched) {
  const Variant variant = std::get<0>(GetParam());
  const test::StorageCase storage = std::get<1>(GetParam());
  BatchSpec spec;
  spec.model = {"guard", 8, 2, 128};  // head 128: the GPU kernels' specialised row stores
  storage.apply_to(spec);
  spec.block_size = 16;
  // A decode first and a chunk of 17 tokens last, whose Q blocks end partly filled at the buffer's
  // far margin; between them a prefill and a sequence with no query tokens.
  spec.sequences = {{37, 1}, {23, 23}, {12, 0}, {50, 17}};
  spec.features.sinks = true;
  const HostProblem problem = generate_batch(spec);
  const Geometry& g = problem.geometry;
  dispatch_storage(storage.q, storage.cache(), storage.out(), [&](auto q_tag, auto cache_tag, auto out_tag) {
    using Q = decltype(q_tag);
    using Cache = decltype(cache_tag);
    using Out = decltype(out_tag);
    const DeviceProblem<Q, Cache, Out> device = upload_problem<Q, Cache, Out>(problem);
    const Out nan = from_float<Out>(std::numeric_limits<float>::quiet_NaN());
    const Kokkos::View<Out***, Kokkos::LayoutRight, MemorySpace> buffer(
        "buffer", kMarginTokens + g.num_tokens + kMarginTokens, g.num_q_heads, g.head_size);
    const auto host = Kokkos::create_mirror_view(buffer);  // filled on the host: Out may be a struct
    std::fill_n(host.data(), host.span(), nan);
    Kokkos::deep_copy(buffer, host);
    const AttentionOutput<Out> out =
        Kokkos::subview(buffer, std::make_pair(kMarginTokens, kMarginTokens + g.num_tokens), Kokkos::ALL, Kokkos::ALL);
    attention(device.inputs, device.params, out, test::forced_launch(variant));

    const std::vector<std::uint32_t> bits = test::output_bits(buffer);
    const std::size_t margin = std::size_t(kMarginTokens) * g.num_q_heads * g.head_size;
    const auto untouched = [&](std::size_t i) { return bits[i] == test::value_bits(nan); };
    for (std::size_t i = 0; i < margin; ++i) {
      ASSERT_TRUE(untouched(i)) << "leading margin, element " << i;
      ASSERT_TRUE(untouched(bits.size() - margin + i)) << "trailing margin, element " << i;
    }
    const Comparison c = compare_to_reference(download_out(out), oracle_attention(problem), problem);
    EXPECT_TRUE(c.passed()) << c.failures << " elements of out off or not written; max abs error " << c.max_abs_error;
  });
}

INSTANTIATE_TEST_SUITE_P(AllVariants, GuardRegions,
                         ::testing::Combine(::testing::ValuesIn(all_variants()),
                                            ::testing::ValuesIn(test::every_storage())),
                         test::variant_storage_name);

}  // namespace
}  // namespace kattn
