// fp16/bf16 storage conversions are bit-exact round-to-nearest-even, on host and device alike.
#include "kattn/core/dtype.hpp"
#include "kattn/core/execution_space.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace kattn {
namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(StorageTypes, Fp16RoundTripsEveryFiniteValue) {
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const fp16_t h{std::uint16_t(bits)};
    const float f = fp16_to_float(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(fp16_to_float(fp16_from_float(f))));
      continue;
    }
    ASSERT_EQ(fp16_from_float(f).bits, h.bits) << "bits " << bits;
  }
}

TEST(StorageTypes, Fp16KnownValues) {
  EXPECT_EQ(fp16_from_float(1.0f).bits, 0x3c00);
  EXPECT_EQ(fp16_from_float(-2.0f).bits, 0xc000);
  EXPECT_EQ(fp16_from_float(65504.0f).bits, 0x7bff);
  EXPECT_EQ(fp16_from_float(65519.0f).bits, 0x7bff);               // below the halfway point to 65536
  EXPECT_EQ(fp16_from_float(65520.0f).bits, 0x7c00);               // halfway rounds to even: infinity
  EXPECT_EQ(fp16_from_float(std::ldexp(1.0f, -24)).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(fp16_from_float(std::ldexp(1.0f, -25)).bits, 0x0000);  // tie rounds to even zero
  EXPECT_EQ(fp16_from_float(std::ldexp(1.5f, -25)).bits, 0x0001);
  EXPECT_EQ(fp16_from_float(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);  // tie to even
  EXPECT_EQ(fp16_from_float(1.0f + std::ldexp(3.0f, -11)).bits, 0x3c02);  // tie to even (up)
  EXPECT_EQ(fp16_from_float(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_FLOAT_EQ(fp16_to_float({0x3555}), 0.333251953125f);
}

TEST(StorageTypes, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16_from_float(1.0f).bits, 0x3f80);
  EXPECT_EQ(bf16_from_float(from_bits(0x3f808000u)).bits, 0x3f80);  // tie, even stays
  EXPECT_EQ(bf16_from_float(from_bits(0x3f818000u)).bits, 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(bf16_from_float(from_bits(0x3f808001u)).bits, 0x3f81);  // above the tie
  EXPECT_TRUE(std::isnan(bf16_to_float(bf16_from_float(std::nanf("")))));
  for (std::uint32_t bits = 0; bits < 0x10000u; bits += 7) {
    const float f = bf16_to_float({std::uint16_t(bits)});
    if (!std::isnan(f)) ASSERT_EQ(bf16_from_float(f).bits, bits);
  }
}

TEST(StorageTypes, Fp8E4m3RoundTripsAndSaturates) {
  for (int bits = 0; bits < 256; ++bits) {
    const float f = fp8_e4m3_to_float({std::uint8_t(bits)});
    if (std::isnan(f)) {
      EXPECT_TRUE((bits & 0x7f) == 0x7f) << bits;
      continue;
    }
    if (bits == 0x80) continue;  // -0 reads back as -0 but 0 == -0 makes the check below moot
    ASSERT_EQ(fp8_e4m3_from_float(f).bits, bits) << "bits " << bits;
  }
  EXPECT_EQ(fp8_e4m3_to_float({0x7e}), 448.0f);
  EXPECT_EQ(fp8_e4m3_to_float({0x01}), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(fp8_e4m3_to_float({0x08}), std::ldexp(1.0f, -6));  // smallest normal
  EXPECT_EQ(fp8_e4m3_from_float(1000.0f).bits, 0x7e);          // saturates at 448
  EXPECT_EQ(fp8_e4m3_from_float(-1e30f).bits, 0xfe);
  EXPECT_EQ(fp8_e4m3_from_float(std::numeric_limits<float>::infinity()).bits, 0x7e);
  EXPECT_EQ(fp8_e4m3_from_float(440.0f).bits, 0x7e);                 // above the 432 tie: 448
  EXPECT_EQ(fp8_e4m3_from_float(432.0f).bits, 0x7e);                 // tie between 416 (0x7d, odd) and 448: even
  EXPECT_EQ(fp8_e4m3_from_float(1.0625f).bits, 0x38);                // tie between 1 and 1.125: even
  EXPECT_EQ(fp8_e4m3_from_float(1.1875f).bits, 0x3a);                // tie between 1.125 and 1.25: even
  EXPECT_EQ(fp8_e4m3_from_float(std::ldexp(1.0f, -10)).bits, 0x00);  // tie with zero
  EXPECT_EQ(fp8_e4m3_from_float(std::ldexp(1.5f, -10)).bits, 0x01);
  EXPECT_EQ(fp8_e4m3_from_float(std::ldexp(3.0f, -10)).bits, 0x02);  // 1.5 × 2^-9: tie, even
  EXPECT_EQ(round_to_dtype(0.3f, DType::fp8_e4m3), 0.3125f);
}

TEST(StorageTypes, RoundToDtypeMatchesStorage) {
  EXPECT_EQ(round_to_dtype(0.1f, DType::fp32), 0.1f);
  EXPECT_EQ(round_to_dtype(0.1f, DType::fp16), fp16_to_float(fp16_from_float(0.1f)));
  EXPECT_EQ(round_to_dtype(0.1f, DType::bf16), bf16_to_float(bf16_from_float(0.1f)));
  EXPECT_THROW(parse_dtype("fp8"), std::invalid_argument);
}

// Converts host-made inputs on the active backend (inputs are made on the host so that no
// device FMA contraction changes them).
void convert_on_device(const std::vector<float>& inputs, std::vector<std::uint16_t>& fp16_out,
                       std::vector<std::uint16_t>& bf16_out) {
  const int n = int(inputs.size());
  Kokkos::View<float*, Kokkos::HostSpace> host_inputs("inputs", n);
  for (int i = 0; i < n; ++i) host_inputs(i) = inputs[std::size_t(i)];
  const auto values = Kokkos::create_mirror_view_and_copy(MemorySpace(), host_inputs);
  Kokkos::View<std::uint16_t*, MemorySpace> fp16_bits("fp16", n), bf16_bits("bf16", n);
  Kokkos::parallel_for(
      "kattn::test::convert", Kokkos::RangePolicy<ExecutionSpace>(0, n), KOKKOS_LAMBDA(int i) {
        fp16_bits(i) = fp16_from_float(values(i)).bits;
        bf16_bits(i) = bf16_from_float(values(i)).bits;
      });
  const auto fp16_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fp16_bits);
  const auto bf16_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bf16_bits);
  fp16_out.assign(fp16_host.data(), fp16_host.data() + n);
  bf16_out.assign(bf16_host.data(), bf16_host.data() + n);
}

TEST(StorageTypes, DeviceConversionsMatchHost) {
  std::vector<float> inputs;
  for (std::uint32_t bits = 0; bits < 0xffffffffu - 65521u; bits += 65521u) inputs.push_back(from_bits(bits));
  std::vector<std::uint16_t> fp16_bits, bf16_bits;
  convert_on_device(inputs, fp16_bits, bf16_bits);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (std::isnan(inputs[i])) continue;
    ASSERT_EQ(fp16_bits[i], fp16_from_float(inputs[i]).bits) << inputs[i];
    ASSERT_EQ(bf16_bits[i], bf16_from_float(inputs[i]).bits) << inputs[i];
  }
}

}  // namespace
}  // namespace kattn
