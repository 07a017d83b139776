// kattn::unified_attention and kattn::plan_attention / kattn::plan_run, PyTorch custom ops over
// kattn's C API (libkattn_c.so): torch tensors become kattn_attention_args on the tensors' own
// memory (no copies), run on torch's current CUDA stream of q's device; a plan is a custom class
// holding a kattn_plan. Schemas and arguments: docs/torch.md.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/custom_class.h>
#include <torch/library.h>

#include <kattn/c_api/kattn.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>

namespace {

int32_t dtype_code(const at::Tensor& t, const char* name) {
  switch (t.scalar_type()) {
    case at::ScalarType::Float:
      return KATTN_DTYPE_FP32;
    case at::ScalarType::Half:
      return KATTN_DTYPE_FP16;
    case at::ScalarType::BFloat16:
      return KATTN_DTYPE_BF16;
    case at::ScalarType::Float8_e4m3fn:
      return KATTN_DTYPE_FP8_E4M3;
    default:
      C10_THROW_ERROR(ValueError, c10::str("kattn: ", name, " has dtype ", t.scalar_type(),
                                           ", not float32, float16, bfloat16 or float8_e4m3fn"));
  }
}

int32_t to_int32(int64_t value, const char* name) {
  TORCH_CHECK_VALUE(value >= 0 && value <= std::numeric_limits<int32_t>::max(), "kattn: ", name, " = ", value,
                    " does not fit int32");
  return static_cast<int32_t>(value);
}

// Every tensor must live on q's device: kattn reads them there, without copies.
void check_tensor(const at::Tensor& t, const at::Tensor& q, const char* name, int64_t dim) {
  TORCH_CHECK_VALUE(t.device() == q.device(), "kattn: ", name, " is on ", t.device(), ", q on ", q.device());
  TORCH_CHECK_VALUE(t.dim() == dim, "kattn: ", name, " must have ", dim, " dimensions, has ", t.dim());
}

const int32_t* int32_data(const at::Tensor& t, const at::Tensor& q, const char* name, int64_t dim) {
  check_tensor(t, q, name, dim);
  TORCH_CHECK_VALUE(t.scalar_type() == at::ScalarType::Int, "kattn: ", name, " must be int32, is ", t.scalar_type());
  return t.data_ptr<int32_t>();
}

// The C API takes pointers and counts; the extents the counts stand for are checked here, where
// the tensors still carry them (a short out, index tensor or per-head tensor would be overrun).
void check_sizes(const at::Tensor& t, at::IntArrayRef expected, const char* name) {
  TORCH_CHECK_VALUE(t.sizes() == expected, "kattn: ", name, " has shape ", t.sizes(), ", expected ", expected);
}

// A per-query-head float32 tensor (alibi_slopes, sinks), or nullptr.
const float* float_data(const std::optional<at::Tensor>& t, const at::Tensor& q, const char* name) {
  if (!t.has_value()) return nullptr;
  check_tensor(*t, q, name, 1);
  check_sizes(*t, {q.size(1)}, name);
  TORCH_CHECK_VALUE(t->scalar_type() == at::ScalarType::Float, "kattn: ", name, " must be float32, is ",
                    t->scalar_type());
  return t->data_ptr<float>();
}

template <int N>
void copy_strides(const at::Tensor& t, int64_t (&strides)[N]) {
  for (int d = 0; d < N; ++d) strides[d] = t.stride(d);
}

// q, k_cache, out and block_table: the shapes, dtypes and strides of a call (or of a plan's calls).
void set_shapes(kattn_attention_args& a, const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& out,
                const at::Tensor& block_table) {
  TORCH_CHECK_VALUE(q.is_cuda(), "kattn: q must be a CUDA tensor, is on ", q.device());
  check_tensor(q, q, "q", 3);
  check_tensor(k_cache, q, "k_cache", 4);
  check_tensor(out, q, "out", 3);
  check_sizes(out, q.sizes(), "out");
  check_sizes(k_cache, {k_cache.size(0), k_cache.size(1), k_cache.size(2), q.size(2)}, "k_cache");
  a.q = q.data_ptr();
  a.q_dtype = dtype_code(q, "q");
  a.num_tokens = to_int32(q.size(0), "q.size(0)");
  a.num_q_heads = to_int32(q.size(1), "q.size(1)");
  a.head_size = to_int32(q.size(2), "q.size(2)");
  copy_strides(q, a.q_strides);
  a.k_cache = k_cache.data_ptr();
  a.cache_dtype = dtype_code(k_cache, "k_cache");
  a.num_blocks = to_int32(k_cache.size(0), "k_cache.size(0)");
  a.block_size = to_int32(k_cache.size(1), "k_cache.size(1)");
  a.num_kv_heads = to_int32(k_cache.size(2), "k_cache.size(2)");
  copy_strides(k_cache, a.k_cache_strides);
  a.out = out.data_ptr();
  a.out_dtype = dtype_code(out, "out");
  copy_strides(out, a.out_strides);
  a.block_table = int32_data(block_table, q, "block_table", 2);
  a.num_seqs = to_int32(block_table.size(0), "block_table.size(0)");
  a.max_blocks_per_seq = to_int32(block_table.size(1), "block_table.size(1)");
  copy_strides(block_table, a.block_table_strides);
}

// The rest of a call's tensors, of the extents the shapes imply.
void set_batch(kattn_attention_args& a, const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
               const at::Tensor& cu_seqlens_q, const at::Tensor& seq_lens,
               const std::optional<at::Tensor>& alibi_slopes, const std::optional<at::Tensor>& sinks) {
  check_tensor(v_cache, q, "v_cache", 4);
  TORCH_CHECK_VALUE(k_cache.scalar_type() == v_cache.scalar_type(), "kattn: k_cache is ", k_cache.scalar_type(),
                    ", v_cache ", v_cache.scalar_type());
  check_sizes(v_cache, k_cache.sizes(), "v_cache");
  a.v_cache = v_cache.data_ptr();
  copy_strides(v_cache, a.v_cache_strides);
  a.cu_seqlens_q = int32_data(cu_seqlens_q, q, "cu_seqlens_q", 1);
  a.seq_lens = int32_data(seq_lens, q, "seq_lens", 1);
  check_sizes(cu_seqlens_q, {int64_t(a.num_seqs) + 1}, "cu_seqlens_q");
  check_sizes(seq_lens, {int64_t(a.num_seqs)}, "seq_lens");
  a.alibi_slopes = float_data(alibi_slopes, q, "alibi_slopes");
  a.sinks = float_data(sinks, q, "sinks");
}

void set_scalars(kattn_attention_args& a, int64_t max_seqlen_q, int64_t max_seqlen_k, double softmax_scale, bool causal,
                 int64_t window_left, double softcap, double k_descale, double v_descale) {
  a.max_seqlen_q = to_int32(max_seqlen_q, "max_seqlen_q");
  a.max_seqlen_k = to_int32(max_seqlen_k, "max_seqlen_k");
  a.softmax_scale = softmax_scale;
  a.causal = causal ? 1 : 0;
  TORCH_CHECK_VALUE(window_left >= -1 && window_left <= std::numeric_limits<int32_t>::max(),
                    "kattn: window_left = ", window_left);
  a.window_left = static_cast<int32_t>(window_left);
  a.softcap = static_cast<float>(softcap);
  a.k_descale = static_cast<float>(k_descale);
  a.v_descale = static_cast<float>(v_descale);
}

// torch's current stream of q's device. torch's default stream is the legacy NULL stream; NULL
// runs on Kokkos' default instance, a blocking stream that the legacy stream is ordered with.
void* current_stream(const at::Tensor& q) { return at::cuda::getCurrentCUDAStream(q.device().index()).stream(); }

void check_status(kattn_status status) {
  TORCH_CHECK_VALUE(status != KATTN_ERROR_INVALID_ARGUMENT, "kattn: ", kattn_last_error());
  TORCH_CHECK_NOT_IMPLEMENTED(status != KATTN_ERROR_NOT_SUPPORTED, "kattn: ", kattn_last_error());
  TORCH_CHECK(status == KATTN_SUCCESS, "kattn: ", kattn_last_error());
}

void unified_attention(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache, at::Tensor& out,
                       const at::Tensor& cu_seqlens_q, const at::Tensor& seq_lens, int64_t max_seqlen_q,
                       int64_t max_seqlen_k, const at::Tensor& block_table, double softmax_scale, bool causal,
                       int64_t window_left, double softcap, const std::optional<at::Tensor>& alibi_slopes,
                       const std::optional<at::Tensor>& sinks, double k_descale, double v_descale, double output_scale,
                       bool check_values) {
  kattn_attention_args a;
  kattn_attention_args_init(&a);
  set_shapes(a, q, k_cache, out, block_table);
  set_batch(a, q, k_cache, v_cache, cu_seqlens_q, seq_lens, alibi_slopes, sinks);
  set_scalars(a, max_seqlen_q, max_seqlen_k, softmax_scale, causal, window_left, softcap, k_descale, v_descale);
  a.output_scale = static_cast<float>(output_scale);
  a.check_values = check_values ? 1 : 0;
  // kattn checks that the current device is Kokkos' and binds Kokkos to it on first use.
  const c10::cuda::CUDAGuard device_guard(q.device());
  a.stream = current_stream(q);
  check_status(kattn_unified_attention(&a));
}

// A kattn_plan, and the args it was made from, which its runs repeat but for the tensors.
struct AttentionPlan : torch::CustomClassHolder {
  kattn_plan* plan = nullptr;
  kattn_attention_args planned;
  ~AttentionPlan() override { kattn_plan_destroy(plan); }
};

// An optional host copy of an index array: CPU int32 [size], contiguous.
const int32_t* host_int32(const std::optional<at::Tensor>& t, int64_t size, const char* name) {
  if (!t.has_value()) return nullptr;
  TORCH_CHECK_VALUE(t->device().is_cpu(), "kattn: ", name, " must be a CPU tensor, is on ", t->device());
  TORCH_CHECK_VALUE(t->scalar_type() == at::ScalarType::Int, "kattn: ", name, " must be int32, is ", t->scalar_type());
  check_sizes(*t, {size}, name);
  TORCH_CHECK_VALUE(t->is_contiguous(), "kattn: ", name, " must be contiguous");
  return t->data_ptr<int32_t>();
}

// Reads the tensors' shapes, dtypes and strides (not their values), the bounds and the scalars.
c10::intrusive_ptr<AttentionPlan> plan_attention(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& out,
                                                 const at::Tensor& block_table, int64_t max_seqlen_q,
                                                 int64_t max_seqlen_k, double softmax_scale, bool causal,
                                                 int64_t window_left, double softcap, double k_descale,
                                                 double v_descale, const std::optional<at::Tensor>& cu_seqlens_q_cpu,
                                                 const std::optional<at::Tensor>& seq_lens_cpu) {
  auto result = c10::make_intrusive<AttentionPlan>();
  kattn_attention_args& a = result->planned;
  kattn_attention_args_init(&a);
  set_shapes(a, q, k_cache, out, block_table);
  std::copy(std::begin(a.k_cache_strides), std::end(a.k_cache_strides), a.v_cache_strides);  // each run has its own
  set_scalars(a, max_seqlen_q, max_seqlen_k, softmax_scale, causal, window_left, softcap, k_descale, v_descale);
  TORCH_CHECK_VALUE(cu_seqlens_q_cpu.has_value() == seq_lens_cpu.has_value(),
                    "kattn: give both cu_seqlens_q_cpu and seq_lens_cpu, or neither");
  kattn_batch_host batch{sizeof(kattn_batch_host),
                         host_int32(cu_seqlens_q_cpu, int64_t(a.num_seqs) + 1, "cu_seqlens_q_cpu"),
                         host_int32(seq_lens_cpu, a.num_seqs, "seq_lens_cpu")};
  const c10::cuda::CUDAGuard device_guard(q.device());
  check_status(kattn_plan_create(&a, cu_seqlens_q_cpu.has_value() ? &batch : nullptr, &result->plan));
  return result;
}

// Host checks and kernel launches on torch's current stream: no allocation, no sync, so that
// torch.cuda.graph can capture it.
void plan_run(c10::intrusive_ptr<AttentionPlan> plan, const at::Tensor& q, const at::Tensor& k_cache,
              const at::Tensor& v_cache, at::Tensor& out, const at::Tensor& cu_seqlens_q, const at::Tensor& seq_lens,
              const at::Tensor& block_table, const std::optional<at::Tensor>& alibi_slopes,
              const std::optional<at::Tensor>& sinks) {
  kattn_attention_args a = plan->planned;
  set_shapes(a, q, k_cache, out, block_table);
  set_batch(a, q, k_cache, v_cache, cu_seqlens_q, seq_lens, alibi_slopes, sinks);
  const c10::cuda::CUDAGuard device_guard(q.device());
  a.stream = current_stream(q);
  check_status(kattn_plan_run(plan->plan, &a));
}

}  // namespace

TORCH_LIBRARY(kattn, m) {
  m.class_<AttentionPlan>("AttentionPlan");
  m.def(
      "unified_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor(a!) out, Tensor cu_seqlens_q, "
      "Tensor seq_lens, int max_seqlen_q, int max_seqlen_k, Tensor block_table, float softmax_scale, "
      "bool causal=True, int window_left=-1, float softcap=0.0, Tensor? alibi_slopes=None, Tensor? sinks=None, "
      "float k_descale=1.0, float v_descale=1.0, float output_scale=1.0, bool check_values=True) -> ()");
  m.def(
      "plan_attention(Tensor q, Tensor k_cache, Tensor out, Tensor block_table, int max_seqlen_q, int max_seqlen_k, "
      "float softmax_scale, bool causal=True, int window_left=-1, float softcap=0.0, float k_descale=1.0, "
      "float v_descale=1.0, Tensor? cu_seqlens_q_cpu=None, Tensor? seq_lens_cpu=None) "
      "-> __torch__.torch.classes.kattn.AttentionPlan");
  m.def(
      "plan_run(__torch__.torch.classes.kattn.AttentionPlan plan, Tensor q, Tensor k_cache, Tensor v_cache, "
      "Tensor(a!) out, Tensor cu_seqlens_q, Tensor seq_lens, Tensor block_table, Tensor? alibi_slopes=None, "
      "Tensor? sinks=None) -> ()");
}

TORCH_LIBRARY_IMPL(kattn, CUDA, m) {
  m.impl("unified_attention", &unified_attention);
  m.impl("plan_attention", &plan_attention);
  m.impl("plan_run", &plan_run);
}
