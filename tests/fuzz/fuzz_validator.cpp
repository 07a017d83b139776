// libFuzzer target: arbitrary bytes decoded into a problem (geometry, index tensors, parameters,
// feature tensors, tensor sizes), mostly inconsistent. validate() must accept it or throw
// InvalidProblem. Where the problem can be built as device views, kattn::attention must agree:
// it throws InvalidProblem exactly when validate() does, leaving `out` untouched, and otherwise
// every variant either matches the oracle or throws NotSupported, again leaving `out` untouched.
// Anything else (a crash, another exception, a sanitizer report, a leak) aborts.
#include "kattn/attention.hpp"
#include "kattn/harness/device_problem.hpp"
#include "kattn/oracle/compare.hpp"
#include "kattn/oracle/oracle.hpp"
#include "kattn/problem/validate.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace {

// Reads the fuzz input front to back; past its end every value is 0.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::int32_t small_int() { return std::int32_t(std::int8_t(byte())); }  // -128..127, so negatives occur
  float value() { return float(small_int()) / 32.0f; }                    // finite tensor values
  // Parameters and feature values: also 0, negatives, infinities and NaN, which validation rejects.
  float param() {
    switch (const std::int32_t i = small_int()) {
      case -128:
        return std::numeric_limits<float>::quiet_NaN();
      case 127:
        return std::numeric_limits<float>::infinity();
      case -127:
        return -std::numeric_limits<float>::infinity();
      default:
        return float(i) / 32.0f;
    }
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

constexpr float kSentinel = -3.5f;  // exact in every output type

template <class T>
void resize_by(std::vector<T>& v, int delta) {
  v.resize(std::size_t(std::max<std::int64_t>(0, std::int64_t(v.size()) + delta)));
}

kattn::HostProblem decode(Bytes& in) {
  kattn::HostProblem p;
  p.dtype = kattn::DType(in.byte() % 4);  // fp8 q must be rejected
  p.fp8_kv_cache = in.byte() & 1;
  p.fp8_out = in.byte() & 1;
  kattn::Geometry& g = p.geometry;
  g.num_seqs = in.small_int() % 5;
  g.num_q_heads = in.small_int() % 9;
  g.num_kv_heads = in.small_int() % 5;
  g.head_size = in.small_int() % 17;
  g.block_size = in.small_int() % 9;
  g.num_blocks = in.small_int() % 17;
  g.max_blocks_per_seq = in.small_int() % 9;
  p.params.softmax_scale = in.param();
  p.params.causal = in.byte() & 1;
  p.params.window_left = in.small_int() % 20;
  p.params.softcap = in.byte() & 1 ? in.param() : 0.0f;
  p.params.k_scale = in.param();
  p.params.v_scale = in.param();
  p.params.out_scale = in.param();
  const std::uint8_t skew = in.byte();  // applied last, to one tensor; 0 = none
  // Negative extents size no vector (the loops below do not run); validation must still reject them.
  for (int s = 0; s <= g.num_seqs; ++s)
    p.cu_seqlens_q.push_back(s == 0 ? in.small_int() % 2 : p.cu_seqlens_q.back() + in.small_int() % 8);
  g.num_tokens = p.cu_seqlens_q.empty() ? in.small_int() % 4 : p.cu_seqlens_q.back() + in.small_int() % 2;
  for (int s = 0; s < g.num_seqs; ++s) p.seq_lens.push_back(in.small_int() % 40);
  for (std::int64_t i = 0; i < std::int64_t(g.num_seqs) * g.max_blocks_per_seq; ++i)
    p.block_table.push_back(in.small_int() % 20);
  if (in.byte() & 1)
    for (int s = 0; s < g.num_seqs; ++s) p.prefix_lens.push_back(in.small_int() % 40);
  if (in.byte() & 1)
    for (int h = 0; h < g.num_q_heads; ++h) p.alibi_slopes.push_back(in.param());
  if (in.byte() & 1)
    for (int h = 0; h < g.num_q_heads; ++h) p.sinks.push_back(in.param());
  if (in.byte() & 1) {
    p.qq_bias_size = in.small_int() % 9;
    for (int i = 0; i < p.qq_bias_size * p.qq_bias_size; ++i) p.qq_bias.push_back(in.param());
  }
  const kattn::DType q_type = p.dtype == kattn::DType::fp8_e4m3 ? kattn::DType::fp32 : p.dtype;
  for (std::int64_t i = 0; i < g.q_elements(); ++i) p.q.push_back(kattn::round_to_dtype(in.value(), q_type));
  for (std::int64_t i = 0; i < g.cache_elements(); ++i)
    p.k_cache.push_back(kattn::round_to_dtype(in.value(), p.kv_dtype()));
  for (std::int64_t i = 0; i < g.cache_elements(); ++i)
    p.v_cache.push_back(kattn::round_to_dtype(in.value(), p.kv_dtype()));
  // A tensor whose size disagrees with the geometry (host problems only: device views carry their shapes).
  const int delta = skew & 16 ? 1 : -1;
  switch (skew % 16) {
    case 1:
      resize_by(p.q, delta);
      break;
    case 2:
      resize_by(p.k_cache, delta);
      break;
    case 3:
      resize_by(p.v_cache, delta);
      break;
    case 4:
      resize_by(p.block_table, delta);
      break;
    case 5:
      resize_by(p.cu_seqlens_q, delta);
      break;
    case 6:
      resize_by(p.seq_lens, delta);
      break;
    case 7:
      resize_by(p.prefix_lens, delta);
      break;
    case 8:
      resize_by(p.alibi_slopes, delta);
      break;
    case 9:
      resize_by(p.sinks, delta);
      break;
    case 10:
      resize_by(p.qq_bias, delta);
      break;
  }
  return p;
}

// Whether device views can hold the problem: extents not negative and every tensor of the size
// its shape needs (checked here independently of validate()).
bool buildable(const kattn::HostProblem& p) {
  const kattn::Geometry& g = p.geometry;
  const auto size_is = [](std::size_t size, std::int64_t expected) { return std::int64_t(size) == expected; };
  const auto absent_or = [&](std::size_t size, std::int64_t expected) { return size == 0 || size_is(size, expected); };
  return p.dtype != kattn::DType::fp8_e4m3 && g.num_tokens >= 0 && g.num_q_heads >= 0 && g.num_kv_heads >= 0 &&
         g.head_size >= 0 && g.num_blocks >= 0 && g.block_size >= 0 && g.num_seqs >= 0 && g.max_blocks_per_seq >= 0 &&
         p.qq_bias_size >= 0 && size_is(p.q.size(), g.q_elements()) && size_is(p.k_cache.size(), g.cache_elements()) &&
         size_is(p.v_cache.size(), g.cache_elements()) &&
         size_is(p.block_table.size(), std::int64_t(g.num_seqs) * g.max_blocks_per_seq) &&
         size_is(p.cu_seqlens_q.size(), std::int64_t(g.num_seqs) + 1) && size_is(p.seq_lens.size(), g.num_seqs) &&
         absent_or(p.prefix_lens.size(), g.num_seqs) && absent_or(p.alibi_slopes.size(), g.num_q_heads) &&
         absent_or(p.sinks.size(), g.num_q_heads) &&
         size_is(p.qq_bias.size(), std::int64_t(p.qq_bias_size) * p.qq_bias_size);
}

template <class View>
std::vector<float> to_host_floats(const View& view) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  std::vector<float> values(host.span());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = kattn::to_float(host.data()[i]);
  return values;
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_validator: %s\n", why.c_str());
  std::abort();
}

template <class View>
void require_untouched(const View& out, const std::exception& error) {
  for (float x : to_host_floats(out))
    if (x != kSentinel) fail(std::string("out was written before this error: ") + error.what());
}

// The device API on the problem's views, judged against host validation (`rejection` is its
// message, empty when it accepted) and the oracle.
void check_device_api(const kattn::HostProblem& p, const std::string& rejection) {
  const bool valid = rejection.empty();
  kattn::dispatch_storage(p.dtype, p.kv_dtype(), p.out_dtype(), [&](auto q, auto cache, auto out) {
    using Out = decltype(out);
    const auto device = kattn::upload_problem<decltype(q), decltype(cache), Out>(p);
    const std::vector<double> expected = valid ? kattn::oracle_attention(p) : std::vector<double>();
    // An invalid problem is rejected before planning, so one variant shows it.
    std::vector<kattn::Variant> variants = kattn::all_variants();
    if (!valid) variants.resize(1);
    for (kattn::Variant variant : variants) {
      kattn::AttentionOptions options;
      options.variant = variant;
      options.num_segments = 3;
      Kokkos::deep_copy(device.out, kattn::from_float<Out>(kSentinel));
      try {
        kattn::attention(device.inputs, device.params, device.out, options);
      } catch (const kattn::InvalidProblem& e) {
        if (valid) fail(std::string("attention rejected a problem validate() accepts: ") + e.what());
        require_untouched(device.out, e);
        continue;
      } catch (const kattn::NotSupported& e) {  // a plan the backend cannot fit
        if (!valid) fail(std::string("attention reported NotSupported for an invalid problem: ") + e.what());
        require_untouched(device.out, e);
        continue;
      }
      if (!valid) fail("attention accepted a problem validate() rejects: " + rejection);
      const kattn::Comparison c = kattn::compare_to_reference(to_host_floats(device.out), expected, p);
      if (!c.passed())
        fail(std::string(kattn::to_string(variant)) + " differs from the oracle in " + std::to_string(c.failures) +
             " elements (max abs error " + std::to_string(c.max_abs_error) + ")");
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Kokkos::initialize();
  std::atexit([] { Kokkos::finalize(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const kattn::HostProblem p = decode(in);
  std::string rejection;
  try {
    kattn::validate(p);
  } catch (const kattn::InvalidProblem& e) {
    rejection = e.what();  // rejected with a named field: the contract
  }
  const bool device = buildable(p);
  if (rejection.empty() && !device) fail("validate() accepted a tensor whose size does not match its shape");
  if (device) check_device_api(p, rejection);
  return 0;
}
