// kattn_unified_attention: the C arguments checked (arguments.hpp) and run by kattn::attention on
// the instance and workspace of the caller's stream.
#include "kattn/attention.hpp"
#include "kattn/c_api/arguments.hpp"
#include "kattn/c_api/runtime.hpp"
#include "kattn/core/stream_instance.hpp"

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
  ensure_initialized();
  Stream& stream = stream_for(a.stream);
  AttentionOptions options;
  options.check_values = a.check_values != 0;
  options.max_query_len = a.max_seqlen_q;
  options.max_seq_len = a.max_seqlen_k;
  options.space = stream.space;
  options.workspace = &stream.workspace;
  if (options.check_values)
    check_max_lengths(a, host_copy(a.cu_seqlens_q, a.num_seqs + 1).data(), host_copy(a.seq_lens, a.num_seqs).data());
  const std::lock_guard<std::mutex> one_call_at_a_time(stream.calls);  // the stream's workspace is shared
  // A caller's stream capture (vLLM's CUDA graphs of decode steps) may be under way: a call that
  // neither checks values nor reads metadata back only launches, once a warm-up call has sized
  // the stream's workspace (a growing workspace allocates and fences, which no capture allows).
  const RelaxedCaptureMode capturable;
  dispatch_storage(storage.q, storage.cache, storage.out, [&](auto q, auto cache, auto out) {
    attention(inputs_of<decltype(q), decltype(cache)>(a), params, output_of<decltype(out)>(a), options);
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
