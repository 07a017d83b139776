#include "kattn/c_api/arguments.hpp"

#include "kattn/core/error.hpp"

#include <cmath>
#include <string>
#include <utility>

namespace kattn::c_api {
namespace {

DType dtype_of(std::int32_t code, const char* field) {
  switch (code) {
    case KATTN_DTYPE_FP32:
      return DType::fp32;
    case KATTN_DTYPE_FP16:
      return DType::fp16;
    case KATTN_DTYPE_BF16:
      return DType::bf16;
    case KATTN_DTYPE_FP8_E4M3:
      return DType::fp8_e4m3;
  }
  throw InvalidProblem(field, "unknown dtype code " + std::to_string(code));
}

// A pointer may be null only where its tensor has no elements.
void check_pointer(const void* pointer, std::int64_t elements, const char* field) {
  if (pointer == nullptr && elements > 0)
    throw InvalidProblem(field, "is NULL but has " + std::to_string(elements) + " elements");
}

// q, out and block_table are dense row-major arrays in kattn's views (a dimension of extent 1
// may have any stride, as in PyTorch).
template <std::size_t Rank>
void require_row_major(const std::int64_t (&strides)[Rank], const std::int64_t (&extents)[Rank], const char* name) {
  std::int64_t expected = 1;
  for (std::size_t dim = Rank; dim-- > 0;) {
    if (extents[dim] > 1 && strides[dim] != expected)
      throw NotSupported(std::string(name) + "_strides[" + std::to_string(dim) + "] = " + std::to_string(strides[dim]) +
                         ": " + name + " must be contiguous (expected " + std::to_string(expected) + ")");
    expected *= extents[dim];
  }
}

void check_cache_strides(const std::int64_t (&strides)[4], const char* field) {
  for (int dim = 0; dim < 4; ++dim)
    if (strides[dim] < 0)
      throw InvalidProblem(std::string(field) + "[" + std::to_string(dim) + "]",
                           "must be >= 0, got " + std::to_string(strides[dim]));
}

}  // namespace

const kattn_attention_args& checked_args(const kattn_attention_args* args) {
  if (args == nullptr) throw InvalidProblem("args", "is NULL");
  if (args->struct_size != sizeof(kattn_attention_args))
    throw InvalidProblem("struct_size", std::to_string(args->struct_size) + ", expected " +
                                            std::to_string(sizeof(kattn_attention_args)) + " (KATTN_C_API_VERSION " +
                                            std::to_string(KATTN_C_API_VERSION) + ")");
  return *args;
}

Storage check_dtypes(const kattn_attention_args& a) {
  const Storage s{dtype_of(a.q_dtype, "q_dtype"), dtype_of(a.cache_dtype, "cache_dtype"),
                  dtype_of(a.out_dtype, "out_dtype")};
  if (s.q == DType::fp8_e4m3) throw InvalidProblem("q_dtype", "must be fp32, fp16 or bf16, got fp8_e4m3");
  const auto check_pair = [&s](DType dtype, const char* field) {
    if (dtype != s.q && dtype != DType::fp8_e4m3)
      throw NotSupported(std::string(field) + " " + std::string(to_string(dtype)) + " with q_dtype " +
                         std::string(to_string(s.q)) + ": must be q's type or fp8_e4m3");
  };
  check_pair(s.cache, "cache_dtype");
  check_pair(s.out, "out_dtype");
  return s;
}

void check_counts(const kattn_attention_args& a) {
  const std::pair<std::int32_t, const char*> counts[] = {
      {a.num_tokens, "num_tokens"}, {a.num_q_heads, "num_q_heads"},
      {a.head_size, "head_size"},   {a.num_blocks, "num_blocks"},
      {a.block_size, "block_size"}, {a.num_kv_heads, "num_kv_heads"},
      {a.num_seqs, "num_seqs"},     {a.max_blocks_per_seq, "max_blocks_per_seq"}};
  for (const auto& [value, field] : counts)
    if (value < 0) throw InvalidProblem(field, "must be >= 0, got " + std::to_string(value));
}

void check_pointers(const kattn_attention_args& a) {
  check_pointer(a.q, std::int64_t(a.num_tokens) * a.num_q_heads * a.head_size, "q");
  check_pointer(a.out, std::int64_t(a.num_tokens) * a.num_q_heads * a.head_size, "out");
  const std::int64_t cache_elements = std::int64_t(a.num_blocks) * a.block_size * a.num_kv_heads * a.head_size;
  check_pointer(a.k_cache, cache_elements, "k_cache");
  check_pointer(a.v_cache, cache_elements, "v_cache");
  check_pointer(a.cu_seqlens_q, std::int64_t(a.num_seqs) + 1, "cu_seqlens_q");
  check_pointer(a.seq_lens, a.num_seqs, "seq_lens");
  check_pointer(a.block_table, std::int64_t(a.num_seqs) * a.max_blocks_per_seq, "block_table");
}

void check_strides(const kattn_attention_args& a) {
  require_row_major(a.q_strides, {a.num_tokens, a.num_q_heads, a.head_size}, "q");
  require_row_major(a.out_strides, {a.num_tokens, a.num_q_heads, a.head_size}, "out");
  require_row_major(a.block_table_strides, {a.num_seqs, a.max_blocks_per_seq}, "block_table");
  check_cache_strides(a.k_cache_strides, "k_cache_strides");
  check_cache_strides(a.v_cache_strides, "v_cache_strides");
}

AttentionParams params_of(const kattn_attention_args& a) {
  if (!(std::isfinite(a.q_descale) && a.q_descale > 0.0f))
    throw InvalidProblem("q_descale", "must be finite and > 0, got " + std::to_string(a.q_descale));
  if (a.window_right != -1 && !(a.causal && a.window_right == 0))
    throw NotSupported("window_right = " + std::to_string(a.window_right) + ": only -1, or 0 with causal");
  AttentionParams p;
  p.softmax_scale = a.softmax_scale * a.q_descale;  // (q_descale q)·k = q_descale (q·k)
  p.causal = a.causal != 0;
  p.window_left = a.window_left;
  p.softcap = a.softcap;
  p.alibi_origin = AlibiOrigin::context_length;  // vLLM's: differs from kattn's default with sinks
  p.k_scale = a.k_descale;
  p.v_scale = a.v_descale;
  p.out_scale = a.output_scale;
  return p;
}

void check_bounds(const kattn_attention_args& a) {
  if (a.max_seqlen_q < 0) throw InvalidProblem("max_seqlen_q", "must be >= 0, got " + std::to_string(a.max_seqlen_q));
  if (a.max_seqlen_k < 0) throw InvalidProblem("max_seqlen_k", "must be >= 0, got " + std::to_string(a.max_seqlen_k));
  if (std::int64_t(a.num_seqs) * a.max_seqlen_q < a.num_tokens)
    throw InvalidProblem("max_seqlen_q", std::to_string(a.max_seqlen_q) + ": " + std::to_string(a.num_seqs) +
                                             " sequences of at most that many tokens cannot hold num_tokens = " +
                                             std::to_string(a.num_tokens));
}
Geometry geometry_of(const kattn_attention_args& a) {
  Geometry g;
  g.num_tokens = a.num_tokens;
  g.num_q_heads = a.num_q_heads;
  g.num_kv_heads = a.num_kv_heads;
  g.head_size = a.head_size;
  g.num_blocks = a.num_blocks;
  g.block_size = a.block_size;
  g.num_seqs = a.num_seqs;
  g.max_blocks_per_seq = a.max_blocks_per_seq;
  return g;
}

// vLLM sizes its grids by the max lengths; kattn finds them on the device, so they are only
// checked to hold (a smaller one would have vLLM's kernel skip tokens).
void check_max_lengths(const kattn_attention_args& a, const std::int32_t* cu_seqlens_q, const std::int32_t* seq_lens) {
  for (int s = 0; s < a.num_seqs; ++s) {
    const std::int32_t query_len = cu_seqlens_q[s + 1] - cu_seqlens_q[s];
    if (query_len > a.max_seqlen_q)
      throw InvalidProblem("max_seqlen_q", std::to_string(a.max_seqlen_q) + " is less than the query length " +
                                               std::to_string(query_len) + " of sequence " + std::to_string(s));
    if (seq_lens[s] > a.max_seqlen_k)
      throw InvalidProblem("max_seqlen_k", std::to_string(a.max_seqlen_k) + " is less than seq_lens[" +
                                               std::to_string(s) + "] = " + std::to_string(seq_lens[s]));
  }
}

}  // namespace kattn::c_api
