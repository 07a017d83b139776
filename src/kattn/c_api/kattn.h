/* kattn's C API: paged attention with the argument set of vLLM's unified_attention, on raw
 * device pointers. Stable ABI: plain C types, a versioned argument struct, status codes and a
 * per-thread error message. Reference: docs/c-api.md. */
#ifndef KATTN_C_API_KATTN_H
#define KATTN_C_API_KATTN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of kattn_attention_args this header describes. */
#define KATTN_C_API_VERSION 1

typedef enum kattn_status {
  KATTN_SUCCESS = 0,
  KATTN_ERROR_INVALID_ARGUMENT = 1, /* bad input: the message names the field and the rule */
  KATTN_ERROR_NOT_SUPPORTED = 2,    /* valid input this build cannot serve */
  KATTN_ERROR_RUNTIME = 3           /* anything else (Kokkos or the device failed) */
} kattn_status;

/* Element types (the int32_t dtype fields below hold these values). */
typedef enum kattn_dtype {
  KATTN_DTYPE_FP32 = 0,
  KATTN_DTYPE_FP16 = 1,
  KATTN_DTYPE_BF16 = 2,
  KATTN_DTYPE_FP8_E4M3 = 3 /* OCP e4m3fn; the KV cache and the output only */
} kattn_dtype;

/* One call's arguments. Fill it with kattn_attention_args_init, then set the tensors. Strides
 * are in elements. Pointers are device pointers of the device Kokkos runs on (host pointers on
 * host builds). */
typedef struct kattn_attention_args {
  size_t struct_size; /* sizeof(kattn_attention_args), set by kattn_attention_args_init */

  /* q [num_tokens, num_q_heads, head_size], contiguous; dtype fp32, fp16 or bf16 */
  const void* q;
  int32_t q_dtype;
  int32_t num_tokens;
  int32_t num_q_heads;
  int32_t head_size;
  int64_t q_strides[3];

  /* k_cache, v_cache [num_blocks, block_size, num_kv_heads, head_size]: any strides with a
   * contiguous head dimension; dtype q_dtype or fp8_e4m3 */
  const void* k_cache;
  const void* v_cache;
  int32_t cache_dtype;
  int32_t num_blocks;
  int32_t block_size;
  int32_t num_kv_heads;
  int64_t k_cache_strides[4];
  int64_t v_cache_strides[4];

  /* out [num_tokens, num_q_heads, head_size], contiguous; dtype q_dtype or fp8_e4m3 */
  void* out;
  int32_t out_dtype;
  int64_t out_strides[3];

  /* The batch: int32 device arrays */
  const int32_t* cu_seqlens_q; /* [num_seqs + 1] */
  const int32_t* seq_lens;     /* [num_seqs]: vLLM's seqused_k, context + query length */
  int32_t num_seqs;
  int32_t max_seqlen_q;       /* >= every query length */
  int32_t max_seqlen_k;       /* >= every seq_lens[s] */
  const int32_t* block_table; /* [num_seqs, max_blocks_per_seq], contiguous */
  int32_t max_blocks_per_seq;
  int64_t block_table_strides[2];

  /* Scalars */
  double softmax_scale; /* > 0 */
  int32_t causal;       /* nonzero: causal by absolute position (default 1) */
  int32_t window_left;  /* vLLM window_size[0]: keys p - window_left .. p; -1 = none (default) */
  int32_t window_right; /* vLLM window_size[1]: -1 (default), or 0 with causal */
  float softcap;        /* cap * tanh(s / cap); 0 = off (default) */
  float q_descale;      /* dequantisation scales (default 1): q_descale folds into softmax_scale */
  float k_descale;
  float v_descale;
  float output_scale; /* an fp8 out holds out / output_scale (default 1) */

  /* Optional per-query-head float arrays [num_q_heads]; NULL = off (default). As in vLLM's
   * unified_attention, ALiBi adds slope * (key position - context length) to a query's logits,
   * context length = seq_len - query length, the same for every query of a sequence (kattn's C++
   * default measures from the query's position instead; only with sinks do the outputs differ).
   * A sink is a logit per head in every row's softmax denominator. */
  const float* alibi_slopes;
  const float* sinks;

  int32_t check_values; /* nonzero (default): copy the index arrays to the host and check them */
  void* stream;         /* cudaStream_t / hipStream_t of Kokkos' device; NULL = Kokkos' default */
} kattn_attention_args;

/* Zeroes *args and sets struct_size and the defaults marked above. */
void kattn_attention_args_init(kattn_attention_args* args);

/* Initialises Kokkos on the current device unless it already is; optional, as the first
 * attention call does the same. Kokkos is then finalised at exit. */
kattn_status kattn_initialize(void);

/* out = attention(q, k_cache, v_cache) on `stream`, planned for this call. Checks every argument
 * before anything runs: on error `out` is untouched. Returns once the kernels are queued; it
 * waits for the batch metadata reduction on `stream` and, with check_values, for the device. */
kattn_status kattn_unified_attention(const kattn_attention_args* args);

/* A plan: the launches of the calls on one batch shape, made once (a model step) and run many
 * times (its layers; a CUDA graph's replays). Opaque; it owns its device workspace. */
typedef struct kattn_plan kattn_plan;

/* Host copies of the index arrays of the batch a plan is made for (optional). */
typedef struct kattn_batch_host {
  size_t struct_size;          /* sizeof(kattn_batch_host) */
  const int32_t* cu_seqlens_q; /* [num_seqs + 1] */
  const int32_t* seq_lens;     /* [num_seqs] */
} kattn_batch_host;

/* Plans calls on batches within args' shapes and max lengths: reads its dtypes, counts,
 * max_seqlen_q, max_seqlen_k and scalars, checks its strides, ignores its pointers, check_values
 * and stream. Without `batch` (NULL) the plan serves any batch within those max lengths; with
 * host copies of one batch's index arrays (checked) it is fitted to that batch (a mixed batch's
 * leading decodes run apart) and serves batches with the same query lengths and no longer
 * sequences. Allocates the plan's workspace and may wait for the device. Sets *plan on success
 * only. */
kattn_status kattn_plan_create(const kattn_attention_args* args, const kattn_batch_host* batch, kattn_plan** plan);

/* out = attention(q, k_cache, v_cache) on `stream` through a plan. args must repeat the plan's
 * dtypes, counts and scalars, with max_seqlen_q and max_seqlen_k at most the plan's; the index
 * values are the caller's promise (check_values is ignored). Checks those, the pointers and the
 * strides before anything runs (on error `out` is untouched), then only queues kernels: no copy
 * to the host, no allocation (after the first call on the stream), no wait, so that a CUDA graph
 * can capture it. Runs of one plan share its workspace: they must not overlap on the device. */
kattn_status kattn_plan_run(const kattn_plan* plan, const kattn_attention_args* args);

/* Frees a plan and its workspace, waiting for kernels still using it (NULL: nothing). A graph
 * that captured its runs must not replay afterwards. */
void kattn_plan_destroy(kattn_plan* plan);

/* The message of this thread's last failed call ("" after a success); valid until the next
 * kattn call on this thread. */
const char* kattn_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* KATTN_C_API_KATTN_H */
