// kattn_unified_attention: the C arguments checked (arguments.hpp) and run by kattn::attention on
// the instance and workspace of the caller's stream; a batch of decodes without value checks is
// planned from max_seqlen_k instead, as a plan without host copies is (plan.cpp).
#include "kattn/attention.hpp"
#include "kattn/c_api/arguments.hpp"
#include "kattn/c_api/runtime.hpp"
#include "kattn/core/stream_instance.hpp"
#include "kattn/problem/validate.hpp"

#include <cstring>
#include <mutex>

namespace kattn::c_api {
namespace {

template <class T>
auto host_copy(const T* data, int count) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                             Kokkos::View<const T*, MemorySpace>(data, std::size_t(count)));
}

void unified_attention(const kattn_attention_args* args) {
  const kattn_attention_args& a = checked_args(args);
  const Storage storage = check_dtypes(a);
  check_counts(a);
  check_pointers(a);
  check_strides(a);
  const AttentionParams params = params_of(a);
  // A batch of decodes without value checks (vLLM's decode steps) is planned from its bounds, as a
  // plan without host copies is: no device reduction and copy back, so the call only launches.
  const bool decodes_from_bounds = a.check_values == 0 && a.max_seqlen_q == 1;
  if (decodes_from_bounds) {
    validate_geometry(geometry_of(a));
    check_bounds(a);
  }
  ensure_initialized();
  Stream& stream = stream_for(a.stream);
  AttentionOptions options;
  options.check_values = a.check_values != 0;
  options.space = stream.space;
  options.workspace = &stream.workspace;
  if (options.check_values)
    check_max_lengths(a, host_copy(a.cu_seqlens_q, a.num_seqs + 1).data(), host_copy(a.seq_lens, a.num_seqs).data());
  const std::lock_guard<std::mutex> one_call_at_a_time(stream.calls);  // the stream's workspace is shared
  // A caller's stream capture (vLLM's CUDA graphs of decode steps) may be under way: a call that
  // only launches can be captured once a warm-up call has sized the stream's workspace (a growing
  // workspace allocates and fences, which no capture allows).
  const RelaxedCaptureMode capturable;
  dispatch_storage(storage.q, storage.cache, storage.out, [&](auto q, auto cache, auto out) {
    const auto inputs = inputs_of<decltype(q), decltype(cache)>(a);
    const auto output = output_of<decltype(out)>(a);
    if (!decodes_from_bounds) {
      attention(inputs, params, output, options);
      return;
    }
    const BatchMetadata decodes = bounded_batch_metadata(a.num_seqs, a.num_tokens, 1, a.max_seqlen_k);
    run(plan_attention(inputs, params, decodes, stream.workspace, options), inputs, output, stream.space);
  });
}

}  // namespace
}  // namespace kattn::c_api

extern "C" {

void kattn_attention_args_init(kattn_attention_args* args) {
  if (args == nullptr) return;
  std::memset(args, 0, sizeof *args);
  args->struct_size = sizeof *args;
  args->causal = 1;
  args->window_left = -1;
  args->window_right = -1;
  args->q_descale = args->k_descale = args->v_descale = args->output_scale = 1.0f;
  args->check_values = 1;
}

kattn_status kattn_unified_attention(const kattn_attention_args* args) {
  return kattn::c_api::report_errors([args] { kattn::c_api::unified_attention(args); });
}
}
