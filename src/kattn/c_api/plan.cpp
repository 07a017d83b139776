// kattn_plan_*: kattn::plan_attention behind an opaque handle that owns the plan's workspace, and
// kattn::run on each call's pointers after the host checks of kattn_unified_attention.
#include "kattn/attention.hpp"
#include "kattn/c_api/arguments.hpp"
#include "kattn/c_api/runtime.hpp"
#include "kattn/core/stream_instance.hpp"
#include "kattn/problem/validate.hpp"

#include <string>
#include <tuple>

struct kattn_plan {
  kattn_attention_args planned;  // the args it was made from: runs must repeat their dtypes, shapes, scalars
  kattn::c_api::Storage storage;
  kattn::Workspace workspace;  // its own, so that runs of plans on different streams never share arrays
  kattn::AttentionPlan plan;   // points into `workspace`

  kattn_plan(const kattn_attention_args& a, const kattn::c_api::Storage& s, const kattn::AttentionParams& params,
             const kattn::BatchMetadata& batch)
      : planned(a), storage(s), plan(make_plan(a, s, params, batch, workspace)) {
    kattn::c_api::keep_until_finalize(workspace);
  }
  ~kattn_plan() { kattn::c_api::forget(workspace); }
  kattn_plan(const kattn_plan&) = delete;
  kattn_plan& operator=(const kattn_plan&) = delete;

 private:
  static kattn::AttentionPlan make_plan(const kattn_attention_args& a, const kattn::c_api::Storage& s,
                                        const kattn::AttentionParams& params, const kattn::BatchMetadata& batch,
                                        kattn::Workspace& workspace) {
    return kattn::dispatch_storage(s.q, s.cache, s.out, [&](auto q, auto cache, auto) {
      return kattn::plan_attention(kattn::c_api::inputs_of<decltype(q), decltype(cache)>(a), params, batch, workspace);
    });
  }
};

namespace kattn::c_api {
namespace {

BatchMetadata metadata_of(const kattn_attention_args& a, const Geometry& g, const kattn_batch_host* batch) {
  if (batch == nullptr) return bounded_batch_metadata(a.num_seqs, a.num_tokens, a.max_seqlen_q, a.max_seqlen_k);
  if (batch->struct_size != sizeof(kattn_batch_host))
    throw InvalidProblem("batch.struct_size",
                         std::to_string(batch->struct_size) + ", expected " + std::to_string(sizeof(kattn_batch_host)));
  if (batch->cu_seqlens_q == nullptr) throw InvalidProblem("batch.cu_seqlens_q", "is NULL");
  if (batch->seq_lens == nullptr) throw InvalidProblem("batch.seq_lens", "is NULL");
  validate_batch_index(g, {nullptr, batch->cu_seqlens_q, batch->seq_lens});
  check_max_lengths(a, batch->cu_seqlens_q, batch->seq_lens);
  return host_batch_metadata(batch->cu_seqlens_q, batch->seq_lens, a.num_seqs);
}

kattn_plan* plan_create(const kattn_attention_args* args, const kattn_batch_host* batch) {
  const kattn_attention_args& a = checked_args(args);
  const Storage storage = check_dtypes(a);
  check_counts(a);
  check_strides(a);
  const AttentionParams params = params_of(a);
  const Geometry g = geometry_of(a);
  validate_geometry(g);
  check_bounds(a);
  const BatchMetadata metadata = metadata_of(a, g, batch);
  ensure_initialized();
  return new kattn_plan(a, storage, params, metadata);  // plan_attention checks the parameters
}

// A run repeats the plan's dtypes, shapes and scalars, within its max lengths.
void require_planned(const kattn_attention_args& a, const kattn_attention_args& p) {
  const auto differs = [](const char* field, const std::string& value, const std::string& planned) {
    throw InvalidProblem(field, value + ", the plan was made for " + planned);
  };
  const std::tuple<std::int32_t, std::int32_t, const char*> same_ints[] = {
      {a.q_dtype, p.q_dtype, "q_dtype"},
      {a.cache_dtype, p.cache_dtype, "cache_dtype"},
      {a.out_dtype, p.out_dtype, "out_dtype"},
      {a.num_tokens, p.num_tokens, "num_tokens"},
      {a.num_q_heads, p.num_q_heads, "num_q_heads"},
      {a.head_size, p.head_size, "head_size"},
      {a.num_blocks, p.num_blocks, "num_blocks"},
      {a.block_size, p.block_size, "block_size"},
      {a.num_kv_heads, p.num_kv_heads, "num_kv_heads"},
      {a.num_seqs, p.num_seqs, "num_seqs"},
      {a.max_blocks_per_seq, p.max_blocks_per_seq, "max_blocks_per_seq"},
      {a.causal != 0, p.causal != 0, "causal"},
      {a.window_left, p.window_left, "window_left"},
      {a.window_right, p.window_right, "window_right"}};
  for (const auto& [value, planned, field] : same_ints)
    if (value != planned) differs(field, std::to_string(value), std::to_string(planned));
  const std::tuple<double, double, const char*> same_reals[] = {{a.softmax_scale, p.softmax_scale, "softmax_scale"},
                                                                {a.softcap, p.softcap, "softcap"},
                                                                {a.q_descale, p.q_descale, "q_descale"},
                                                                {a.k_descale, p.k_descale, "k_descale"},
                                                                {a.v_descale, p.v_descale, "v_descale"},
                                                                {a.output_scale, p.output_scale, "output_scale"}};
  for (const auto& [value, planned, field] : same_reals)
    if (!(value == planned)) differs(field, std::to_string(value), std::to_string(planned));
  const std::tuple<std::int32_t, std::int32_t, const char*> within[] = {
      {a.max_seqlen_q, p.max_seqlen_q, "max_seqlen_q"}, {a.max_seqlen_k, p.max_seqlen_k, "max_seqlen_k"}};
  for (const auto& [value, bound, field] : within)
    if (value < 0 || value > bound)
      throw InvalidProblem(field, std::to_string(value) + " is outside the plan's [0, " + std::to_string(bound) + "]");
}

void plan_run(const kattn_plan* plan, const kattn_attention_args* args) {
  if (plan == nullptr) throw InvalidProblem("plan", "is NULL");
  const kattn_attention_args& a = checked_args(args);
  require_planned(a, plan->planned);
  check_pointers(a);
  check_strides(a);
  ensure_initialized();
  const ExecutionSpace space = stream_for(a.stream).space;
  const Storage& s = plan->storage;
  const RelaxedCaptureMode capturable;  // a caller's stream capture (PyTorch's) may be under way
  dispatch_storage(s.q, s.cache, s.out, [&](auto q, auto cache, auto out) {
    run(plan->plan, inputs_of<decltype(q), decltype(cache)>(a), output_of<decltype(out)>(a), space);
  });
}

}  // namespace
}  // namespace kattn::c_api

extern "C" {

kattn_status kattn_plan_create(const kattn_attention_args* args, const kattn_batch_host* batch, kattn_plan** plan) {
  return kattn::c_api::report_errors([=] {
    if (plan == nullptr) throw kattn::InvalidProblem("plan", "is NULL");
    *plan = kattn::c_api::plan_create(args, batch);
  });
}

kattn_status kattn_plan_run(const kattn_plan* plan, const kattn_attention_args* args) {
  return kattn::c_api::report_errors([=] { kattn::c_api::plan_run(plan, args); });
}

void kattn_plan_destroy(kattn_plan* plan) { delete plan; }
}
