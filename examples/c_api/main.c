/* Calls kattn's C API on a tiny batch in host memory (host builds: OpenMP, Serial): once in one
 * call, then through a plan made once and run on two steps, as a server runs a step's layers and
 * then the next step. Checks each output against plain causal attention computed here; exits 0
 * when they agree. */
#include <kattn/c_api/kattn.h>

#include <math.h>
#include <stdio.h>

enum { kTokens = 4, kQHeads = 2, kKvHeads = 1, kHead = 8, kBlocks = 3, kBlockSize = 4, kSeqs = 2, kTable = 2 };

static float q[kTokens][kQHeads][kHead];
static float k_cache[kBlocks][kBlockSize][kKvHeads][kHead];
static float v_cache[kBlocks][kBlockSize][kKvHeads][kHead];
static float out[kTokens][kQHeads][kHead];
/* Step 1: sequence 0 has 5 cached keys + 1 new token (decode), sequence 1 is a prefill of 3
 * tokens. Step 2 writes its lengths into the same arrays. */
static int32_t cu_seqlens_q[kSeqs + 1] = {0, 1, 4};
static int32_t seq_lens[kSeqs] = {6, 3};
static const int32_t block_table[kSeqs][kTable] = {{2, 0}, {1, -1}};

static float value(int i) { return (float)((i * 37) % 19 - 9) / 9.0f; }

/* The cache slot of key `key` of sequence `seq`. */
static const float* key_row(float cache[kBlocks][kBlockSize][kKvHeads][kHead], int seq, int key) {
  return cache[block_table[seq][key / kBlockSize]][key % kBlockSize][0];
}

/* Plain causal attention of one query token and head. */
static void expected(int token, int head, double scale, float result[kHead]) {
  int seq = token >= cu_seqlens_q[1];
  int position = seq_lens[seq] - (cu_seqlens_q[seq + 1] - cu_seqlens_q[seq]) + token - cu_seqlens_q[seq];
  double scores[8], max = -INFINITY, sum = 0.0;
  for (int key = 0; key <= position; ++key) {
    double dot = 0.0;
    for (int d = 0; d < kHead; ++d) dot += q[token][head][d] * key_row(k_cache, seq, key)[d];
    scores[key] = dot * scale;
    if (scores[key] > max) max = scores[key];
  }
  for (int key = 0; key <= position; ++key) sum += scores[key] = exp(scores[key] - max);
  for (int d = 0; d < kHead; ++d) {
    double acc = 0.0;
    for (int key = 0; key <= position; ++key) acc += scores[key] * key_row(v_cache, seq, key)[d];
    result[d] = (float)(acc / sum);
  }
}

/* The largest difference between out and plain attention. */
static double max_error(double scale) {
  double worst = 0.0;
  for (int token = 0; token < kTokens; ++token)
    for (int head = 0; head < kQHeads; ++head) {
      float reference[kHead];
      expected(token, head, scale, reference);
      for (int d = 0; d < kHead; ++d) worst = fmax(worst, fabs(out[token][head][d] - reference[d]));
    }
  return worst;
}

int main(void) {
  float* fill[] = {&q[0][0][0], &k_cache[0][0][0][0], &v_cache[0][0][0][0]};
  int sizes[] = {kTokens * kQHeads * kHead, kBlocks * kBlockSize * kKvHeads * kHead,
                 kBlocks * kBlockSize * kKvHeads * kHead};
  for (int t = 0; t < 3; ++t)
    for (int i = 0; i < sizes[t]; ++i) fill[t][i] = value(i + 100 * t);

  kattn_attention_args a;
  kattn_attention_args_init(&a);
  a.q = q, a.q_dtype = KATTN_DTYPE_FP32;
  a.num_tokens = kTokens, a.num_q_heads = kQHeads, a.head_size = kHead;
  a.q_strides[0] = kQHeads * kHead, a.q_strides[1] = kHead, a.q_strides[2] = 1;
  a.k_cache = k_cache, a.v_cache = v_cache, a.cache_dtype = KATTN_DTYPE_FP32;
  a.num_blocks = kBlocks, a.block_size = kBlockSize, a.num_kv_heads = kKvHeads;
  const int64_t cache_strides[4] = {kBlockSize * kKvHeads * kHead, kKvHeads * kHead, kHead, 1};
  for (int d = 0; d < 4; ++d) a.k_cache_strides[d] = a.v_cache_strides[d] = cache_strides[d];
  a.out = out, a.out_dtype = KATTN_DTYPE_FP32;
  for (int d = 0; d < 3; ++d) a.out_strides[d] = a.q_strides[d];
  a.cu_seqlens_q = cu_seqlens_q, a.seq_lens = seq_lens, a.num_seqs = kSeqs;
  a.max_seqlen_q = 3, a.max_seqlen_k = 6;
  a.block_table = &block_table[0][0], a.max_blocks_per_seq = kTable;
  a.block_table_strides[0] = kTable, a.block_table_strides[1] = 1;
  a.softmax_scale = 1.0 / sqrt((double)kHead);

  if (kattn_unified_attention(&a) != KATTN_SUCCESS) {
    fprintf(stderr, "kattn_unified_attention: %s\n", kattn_last_error());
    return 1;
  }
  double worst = max_error(a.softmax_scale);
  printf("kattn C API example: one call, max abs error %.3g over %d outputs\n", worst, kTokens * kQHeads * kHead);

  /* A plan for every step of these shapes with queries of up to 3 tokens and sequences that fit
   * their block-table rows; each step's run only queues kernels (no checks of the index values). */
  a.max_seqlen_k = kTable * kBlockSize;
  kattn_plan* plan = NULL;
  float* const out_values = &out[0][0][0];
  if (kattn_plan_create(&a, NULL, &plan) != KATTN_SUCCESS) {
    fprintf(stderr, "kattn_plan_create: %s\n", kattn_last_error());
    return 1;
  }
  for (int step = 1; step <= 2; ++step) {
    if (step == 2) { /* new queries; sequence 0 takes 2 tokens after 5 keys, sequence 1 2 after 2 */
      for (int i = 0; i < sizes[0]; ++i) fill[0][i] = value(i + 300);
      cu_seqlens_q[1] = 2, seq_lens[0] = 7, seq_lens[1] = 4;
    }
    for (int i = 0; i < sizes[0]; ++i) out_values[i] = NAN; /* out has q's shape */
    if (kattn_plan_run(plan, &a) != KATTN_SUCCESS) {
      fprintf(stderr, "kattn_plan_run: %s\n", kattn_last_error());
      kattn_plan_destroy(plan);
      return 1;
    }
    const double error = max_error(a.softmax_scale);
    printf("kattn C API example: plan, step %d, max abs error %.3g\n", step, error);
    worst = fmax(worst, error);
  }
  kattn_plan_destroy(plan);
  return worst <= 1e-5 ? 0 : 1;
}
