// kattn::unified_attention, a PyTorch custom op over kattn's C API (libkattn_c.so): torch tensors
// become kattn_attention_args on the tensors' own memory (no copies), run on torch's current
// CUDA stream of q's device. Schema and arguments: docs/torch.md.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include <kattn/c_api/kattn.h>

#include <cstdint>
#include <limits>
#include <optional>

namespace {

int32_t dtype_code(const at::Tensor& t, const char* name) {
  switch (t.scalar_type()) {
    case at::ScalarType::Float: return KATTN_DTYPE_FP32;
    case at::ScalarType::Half: return KATTN_DTYPE_FP16;
    case at::ScalarType::BFloat16: return KATTN_DTYPE_BF16;
    case at::ScalarType::Float8_e4m3fn: return KATTN_DTYPE_FP8_E4M3;
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

void unified_attention(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache, at::Tensor& out,
                       const at::Tensor& cu_seqlens_q, const at::Tensor& seq_lens, int64_t max_seqlen_q,
                       int64_t max_seqlen_k, const at::Tensor& block_table, double softmax_scale, bool causal,
                       int64_t window_left, double softcap, const std::optional<at::Tensor>& alibi_slopes,
                       const std::optional<at::Tensor>& sinks, double k_descale, double v_descale, bool check_values) {
  TORCH_CHECK_VALUE(q.is_cuda(), "kattn: q must be a CUDA tensor, is on ", q.device());
  check_tensor(q, q, "q", 3);
  check_tensor(k_cache, q, "k_cache", 4);
  check_tensor(v_cache, q, "v_cache", 4);
  check_tensor(out, q, "out", 3);
  TORCH_CHECK_VALUE(k_cache.scalar_type() == v_cache.scalar_type(), "kattn: k_cache is ", k_cache.scalar_type(),
                    ", v_cache ", v_cache.scalar_type());
  check_sizes(out, q.sizes(), "out");
  check_sizes(k_cache, {k_cache.size(0), k_cache.size(1), k_cache.size(2), q.size(2)}, "k_cache");
  check_sizes(v_cache, k_cache.sizes(), "v_cache");
  // kattn checks that the current device is Kokkos' and binds Kokkos to it on first use.
  const c10::cuda::CUDAGuard device_guard(q.device());

  kattn_attention_args a;
  kattn_attention_args_init(&a);
  a.q = q.data_ptr();
  a.q_dtype = dtype_code(q, "q");
  a.num_tokens = to_int32(q.size(0), "q.size(0)");
  a.num_q_heads = to_int32(q.size(1), "q.size(1)");
  a.head_size = to_int32(q.size(2), "q.size(2)");
  copy_strides(q, a.q_strides);
  a.k_cache = k_cache.data_ptr();
  a.v_cache = v_cache.data_ptr();
  a.cache_dtype = dtype_code(k_cache, "k_cache");
  a.num_blocks = to_int32(k_cache.size(0), "k_cache.size(0)");
  a.block_size = to_int32(k_cache.size(1), "k_cache.size(1)");
  a.num_kv_heads = to_int32(k_cache.size(2), "k_cache.size(2)");
  copy_strides(k_cache, a.k_cache_strides);
  copy_strides(v_cache, a.v_cache_strides);
  a.out = out.data_ptr();
  a.out_dtype = dtype_code(out, "out");
  copy_strides(out, a.out_strides);
  a.cu_seqlens_q = int32_data(cu_seqlens_q, q, "cu_seqlens_q", 1);
  a.seq_lens = int32_data(seq_lens, q, "seq_lens", 1);
  a.num_seqs = to_int32(seq_lens.size(0), "seq_lens.size(0)");
  a.max_seqlen_q = to_int32(max_seqlen_q, "max_seqlen_q");
  a.max_seqlen_k = to_int32(max_seqlen_k, "max_seqlen_k");
  a.block_table = int32_data(block_table, q, "block_table", 2);
  a.max_blocks_per_seq = to_int32(block_table.size(1), "block_table.size(1)");
  check_sizes(cu_seqlens_q, {seq_lens.size(0) + 1}, "cu_seqlens_q");
  check_sizes(block_table, {seq_lens.size(0), block_table.size(1)}, "block_table");
  copy_strides(block_table, a.block_table_strides);
  a.softmax_scale = softmax_scale;
  a.causal = causal ? 1 : 0;
  TORCH_CHECK_VALUE(window_left >= -1 && window_left <= std::numeric_limits<int32_t>::max(), "kattn: window_left = ",
                    window_left);
  a.window_left = static_cast<int32_t>(window_left);
  a.softcap = static_cast<float>(softcap);
  a.k_descale = static_cast<float>(k_descale);
  a.v_descale = static_cast<float>(v_descale);
  a.alibi_slopes = float_data(alibi_slopes, q, "alibi_slopes");
  a.sinks = float_data(sinks, q, "sinks");
  a.check_values = check_values ? 1 : 0;
  // torch's default stream is the legacy NULL stream; NULL runs on Kokkos' default instance, a
  // blocking stream that the legacy stream is ordered with.
  a.stream = at::cuda::getCurrentCUDAStream(q.device().index()).stream();

  const kattn_status status = kattn_unified_attention(&a);
  TORCH_CHECK_VALUE(status != KATTN_ERROR_INVALID_ARGUMENT, "kattn: ", kattn_last_error());
  TORCH_CHECK_NOT_IMPLEMENTED(status != KATTN_ERROR_NOT_SUPPORTED, "kattn: ", kattn_last_error());
  TORCH_CHECK(status == KATTN_SUCCESS, "kattn: ", kattn_last_error());
}

}  // namespace

TORCH_LIBRARY(kattn, m) {
  m.def(
      "unified_attention(Tensor q, Tensor k_cache, Tensor v_cache, Tensor(a!) out, Tensor cu_seqlens_q, "
      "Tensor seq_lens, int max_seqlen_q, int max_seqlen_k, Tensor block_table, float softmax_scale, "
      "bool causal=True, int window_left=-1, float softcap=0.0, Tensor? alibi_slopes=None, Tensor? sinks=None, "
      "float k_descale=1.0, float v_descale=1.0, bool check_values=True) -> ()");
}

TORCH_LIBRARY_IMPL(kattn, CUDA, m) { m.impl("unified_attention", &unified_attention); }
