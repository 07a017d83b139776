// The harness's aligned inputs (harness/aligned_view.hpp): views that start on 512-byte boundaries
// as a torch caller's tensors do, and synthesized problems whose views keep their allocations.
#include "kattn/harness/device_problem.hpp"
#include "kattn/workload/generator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace kattn {
namespace {

bool aligned(const void* data) { return reinterpret_cast<std::uintptr_t>(data) % kInputAlignment == 0; }

template <class View>
std::vector<typename View::non_const_value_type> host_values(const View& view) {
  const auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return {mirror.data(), mirror.data() + mirror.span()};
}

template <class View>
std::vector<std::uint16_t> host_bits(const View& view) {  // fp16 values, compared bit for bit
  std::vector<std::uint16_t> bits;
  for (const fp16_t value : host_values(view)) bits.push_back(value.bits);
  return bits;
}

HostProblem small_layout() {
  WorkloadSpec spec;
  spec.name = "aligned";
  spec.model = model_by_name("llama-3-8b");
  spec.dtype = DType::fp16;
  spec.batch_size = 3;
  spec.min_seq_len = 20;
  spec.max_seq_len = 70;
  spec.decode_share = 0.5;
  spec.seed = 5;
  return generate_problem(spec);
}

TEST(AlignedInputs, ViewStartsOnTheBoundaryWithItsExtents) {
  AlignedStorage<MemorySpace> storage;
  using Rows = Kokkos::View<float**, Kokkos::LayoutRight, MemorySpace>;
  for (int i = 0; i < 3; ++i) {  // allocations of odd sizes, one after another
    const Rows rows = aligned_view<Rows>(storage, "aligned", 7 + i, 5);
    EXPECT_TRUE(aligned(rows.data()));
    EXPECT_EQ(rows.extent(0), std::size_t(7 + i));
    EXPECT_EQ(rows.extent(1), 5u);
    Kokkos::deep_copy(rows, float(i + 1));
    const std::vector<float> values = host_values(rows);
    EXPECT_EQ(values, std::vector<float>((7 + i) * 5, float(i + 1)));
  }
  EXPECT_EQ(storage.size(), 3u);
}

TEST(AlignedInputs, SynthesizedProblemIsAlignedAndReproducible) {
  const HostProblem layout = small_layout();
  const auto a = synthesize_problem<fp16_t, fp16_t, fp16_t>(layout, 11);
  for (const void* data :
       {static_cast<const void*>(a.inputs.q.data()), static_cast<const void*>(a.inputs.k_cache.data()),
        static_cast<const void*>(a.inputs.v_cache.data()), static_cast<const void*>(a.out.data())})
    EXPECT_TRUE(aligned(data));
  EXPECT_EQ(a.inputs.k_cache.extent(0), std::size_t(layout.geometry.num_blocks));
  const auto b = synthesize_problem<fp16_t, fp16_t, fp16_t>(layout, 11);
  EXPECT_EQ(host_bits(a.inputs.k_cache), host_bits(b.inputs.k_cache));
  EXPECT_NE(host_bits(a.inputs.k_cache), host_bits(a.inputs.v_cache));  // other seeds
}

// A step's queries on a pool's caches keep the pool's allocations: the caches stay readable after
// the pool is gone (the debug preset's AddressSanitizer would report a read of freed host memory).
TEST(AlignedInputs, QueriesKeepTheirPoolsCaches) {
  const HostProblem layout = small_layout();
  std::vector<std::uint16_t> pool_keys;
  DeviceProblem<fp16_t, fp16_t, fp16_t> step;
  {
    const auto pool = synthesize_problem<fp16_t, fp16_t, fp16_t>(layout, 11);
    pool_keys = host_bits(pool.inputs.k_cache);
    step = synthesize_queries<fp16_t, fp16_t, fp16_t>(layout, pool, 12);
    EXPECT_EQ(step.inputs.k_cache.data(), pool.inputs.k_cache.data());
  }
  EXPECT_TRUE(aligned(step.inputs.q.data()));
  EXPECT_EQ(host_bits(step.inputs.k_cache), pool_keys);
}

}  // namespace
}  // namespace kattn
