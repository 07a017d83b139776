#!/usr/bin/env python3
"""kattn_torch.unified_attention against vLLM's own kernel test for unified_attention
(tests/kernels/attention/test_triton_unified_attention.py: test_triton_unified_attn and
test_triton_unified_attn_bf16_query_fp8_kv), its parametrisation re-expressed against the dense
PyTorch reference of kattn_torch.paged, with vLLM's tolerances; then the arguments kattn does not
serve, which must raise NotImplementedError and leave out untouched. Exits nonzero on any failure
(docs/torch.md).

    python3 integrations/torch/tests/test_vllm_conformance.py
"""
import itertools
import math
import sys

import torch

import kattn_torch
from kattn_torch.paged import PagedBatch, cu_seqlens, reference

# vLLM's parametrisation: (query_len, seq_len) mixes, (query heads, kv heads), head sizes, block
# size 16, sliding windows, bf16, softcaps, cache sizes (32768 blocks: index arithmetic past 2^31
# elements at head size 256), the query dtype and the 3D-decode threshold (which kattn accepts and
# does not use: it plans its own split).
SEQ_MIXES = [[(1, 1328), (5, 18), (129, 463)], [(1, 523), (1, 37), (1, 2011)]]
NUM_HEADS = [(4, 4), (8, 2), (5, 1)]
HEAD_SIZES = [128, 256]
BLOCK_SIZE = 16
WINDOWS = [None, 64, 128, 256]
SOFTCAPS = [None, 50.0]
NUM_BLOCKS = [32768, 2048]
Q_DTYPES = [None, torch.float8_e4m3fn]
SEQ_THRESHOLDS_3D = [0, 8]
# vLLM's: atol, rtol for bf16, and for any fp8 operand.
TOLERANCE = {False: (1.5e-2, 1e-2), True: (1.5e-1, 1.5e-1)}
FP8 = torch.float8_e4m3fn
# vLLM's non-unit scales for fp8 operands.
Q_SCALE, K_SCALE, V_SCALE = 0.75, 0.5, 0.25
SEGMENTS = 16
failures = []
counts = {"pass": 0, "not supported": 0}


def report(name, ok, detail):
    if not ok:
        failures.append(name)
        print(f"FAIL  {name}: {detail}", flush=True)


def random_case(seq_mix, num_heads, head_size, num_blocks):
    """vLLM's test data: normal q, K and V in bf16, a block table of random block ids (repeats allowed)."""
    query_lens, seq_lens = [q for q, _ in seq_mix], [s for _, s in seq_mix]
    q = torch.randn(sum(query_lens), num_heads[0], head_size, dtype=torch.bfloat16, device="cuda")
    k = torch.randn(num_blocks, BLOCK_SIZE, num_heads[1], head_size, dtype=torch.bfloat16, device="cuda")
    v = torch.randn_like(k)
    table = torch.randint(0, num_blocks, (len(seq_mix), math.ceil(max(seq_lens) / BLOCK_SIZE)), dtype=torch.int32,
                          device="cuda")
    return PagedBatch(q=q, k_cache=k, v_cache=v, cu_seqlens_q=cu_seqlens(query_lens).cuda(),
                      seq_lens=torch.tensor(seq_lens, dtype=torch.int32, device="cuda"), block_table=table,
                      query_lens=query_lens, seq_lens_list=seq_lens)


def segment_buffers(threshold, num_q_heads, head_size):
    """vLLM's 3D-decode workspace, as its test allocates it (passed through, unused by kattn)."""
    padded = 1 << (head_size - 1).bit_length()
    return dict(seq_threshold_3D=threshold, num_par_softmax_segments=SEGMENTS,
                softmax_segm_output=torch.empty(threshold, num_q_heads, SEGMENTS, padded, device="cuda"),
                softmax_segm_max=torch.empty(threshold, num_q_heads, SEGMENTS, device="cuda"),
                softmax_segm_expsum=torch.empty(threshold, num_q_heads, SEGMENTS, device="cuda"))


def call(batch, q, k, v, out, window, softcap, q_descale, k_descale, v_descale, threshold, kv_quant_mode=None):
    """kattn_torch.unified_attention with keyword arguments, as vLLM's backend and test call it."""
    kattn_torch.unified_attention(
        q=q, k=k, v=v, out=out, cu_seqlens_q=batch.cu_seqlens_q, max_seqlen_q=max(batch.query_lens),
        seqused_k=batch.seq_lens, max_seqlen_k=max(batch.seq_lens_list), softmax_scale=q.shape[2] ** -0.5,
        causal=True, window_size=(window - 1, 0) if window else (-1, -1), block_table=batch.block_table,
        softcap=softcap or 0, q_descale=q_descale, k_descale=k_descale, v_descale=v_descale,
        **segment_buffers(threshold, q.shape[1], q.shape[2]), kv_quant_mode=kv_quant_mode)


def compare(name, batch, out, fp8, window, softcap):
    atol, rtol = TOLERANCE[fp8]
    ref = reference(batch, batch.q.shape[2] ** -0.5, window_left=window - 1 if window else -1, softcap=softcap or 0.0)
    error = (out.float() - ref).abs()
    bad = int((error > atol + rtol * ref.abs()).sum()) + int((~torch.isfinite(out)).sum())
    report(name, bad == 0, f"{bad} of {out.numel()} outside atol {atol} rtol {rtol}, max abs err {error.max():.3e}")
    if bad == 0:
        counts["pass"] += 1
    return error.max().item()


def scaled_scales(num_seqs, num_kv_heads):
    """vLLM's per-tensor k/v descales, given as [num_seqs, num_kv_heads] tensors of one value."""
    return (torch.full((num_seqs, num_kv_heads), K_SCALE, device="cuda"),
            torch.full((num_seqs, num_kv_heads), V_SCALE, device="cuda"))


def dequantised(batch, k8, v8):
    """The batch with the caches kattn reads: fp8 values times their scales, for the reference."""
    return PagedBatch(q=batch.q, k_cache=k8.float() * K_SCALE, v_cache=v8.float() * V_SCALE,
                      cu_seqlens_q=batch.cu_seqlens_q, seq_lens=batch.seq_lens, block_table=batch.block_table,
                      query_lens=batch.query_lens, seq_lens_list=batch.seq_lens_list)


def test_unified_attn():
    """test_triton_unified_attn: bf16 everything, or fp8 q, K and V with non-unit scales."""
    worst = 0.0
    for seq_mix, heads, head_size, window, softcap, num_blocks, q_dtype, threshold in itertools.product(
            SEQ_MIXES, NUM_HEADS, HEAD_SIZES, WINDOWS, SOFTCAPS, NUM_BLOCKS, Q_DTYPES, SEQ_THRESHOLDS_3D):
        torch.manual_seed(0)
        name = (f"seqs {seq_mix} heads {heads} head {head_size} window {window} softcap {softcap} "
                f"blocks {num_blocks} q {q_dtype} 3D threshold {threshold}")
        batch = random_case(seq_mix, heads, head_size, num_blocks)
        out = torch.full_like(batch.q, float("nan"))
        if q_dtype is None:
            call(batch, batch.q, batch.k_cache, batch.v_cache, out, window, softcap, None, None, None, threshold)
            worst = max(worst, compare(name, batch, out, False, window, softcap))
            continue
        # fp8 queries: vLLM's wrapper asserts q_descale is None ("Q scales not supported"); kattn
        # has no fp8 query path either, and says so before writing anything.
        k_descale, v_descale = scaled_scales(len(seq_mix), heads[1])
        before = out.clone()
        try:
            call(batch, (batch.q / Q_SCALE).to(q_dtype), (batch.k_cache / K_SCALE).to(FP8),
                 (batch.v_cache / V_SCALE).to(FP8), out, window, softcap, torch.tensor(Q_SCALE, device="cuda"),
                 k_descale, v_descale, threshold, kv_quant_mode=1)
            report(name, False, "fp8 query with q_descale ran; expected NotImplementedError")
        except NotImplementedError as error:
            untouched = torch.equal(out.isnan(), before.isnan())
            report(name, untouched and "q_descale" in str(error), f"{error}; out untouched: {untouched}")
            counts["not supported"] += untouched
    print(f"test_triton_unified_attn: worst max abs error {worst:.3e} (bf16)", flush=True)


def test_bf16_query_fp8_kv():
    """test_triton_unified_attn_bf16_query_fp8_kv: bf16 q, fp8 caches with per-tensor scales 0.5, 0.25."""
    worst = 0.0
    for seq_mix, heads, head_size, num_blocks, threshold in itertools.product(
            SEQ_MIXES, NUM_HEADS, HEAD_SIZES, NUM_BLOCKS, SEQ_THRESHOLDS_3D):
        torch.manual_seed(0)
        batch = random_case(seq_mix, heads, head_size, num_blocks)
        k8, v8 = (batch.k_cache / K_SCALE).to(FP8), (batch.v_cache / V_SCALE).to(FP8)
        k_descale, v_descale = scaled_scales(len(seq_mix), heads[1])
        out = torch.full_like(batch.q, float("nan"))
        call(batch, batch.q, k8, v8, out, None, None, None, k_descale, v_descale, threshold, kv_quant_mode=1)
        name = f"fp8 KV: seqs {seq_mix} heads {heads} head {head_size} blocks {num_blocks} 3D threshold {threshold}"
        worst = max(worst, compare(name, dequantised(batch, k8, v8), out, True, None, None))
    print(f"test_triton_unified_attn_bf16_query_fp8_kv: worst max abs error {worst:.3e}", flush=True)


def test_unsupported_arguments():
    """Each argument of vLLM's signature that kattn does not serve: NotImplementedError naming it, out untouched."""
    batch = random_case(SEQ_MIXES[0], (8, 2), 128, 2048)
    tensor = torch.ones(1, device="cuda")
    cases = {"qq_bias": dict(qq_bias=tensor), "mm_prefix_range": dict(mm_prefix_range=tensor),
             "use_alibi_sqrt": dict(use_alibi_sqrt=True), "k_scale_cache": dict(k_scale_cache=tensor),
             "v_scale_cache": dict(v_scale_cache=tensor), "kv_quant_mode": dict(kv_quant_mode=2),
             "window_size": dict(window_size=(-1, 4))}
    for name, extra in cases.items():
        out = torch.full_like(batch.q, 7.0)
        arguments = dict(q=batch.q, k=batch.k_cache, v=batch.v_cache, out=out, cu_seqlens_q=batch.cu_seqlens_q,
                         max_seqlen_q=max(batch.query_lens), seqused_k=batch.seq_lens,
                         max_seqlen_k=max(batch.seq_lens_list), softmax_scale=0.1, causal=True,
                         window_size=(-1, -1), block_table=batch.block_table, softcap=0, q_descale=None,
                         k_descale=None, v_descale=None)
        arguments.update(extra)
        try:
            kattn_torch.unified_attention(**arguments)
            report(f"unsupported {name}", False, "no error")
        except NotImplementedError as error:
            untouched = bool((out == 7.0).all())
            report(f"unsupported {name}", name in str(error) and untouched, f"{error}; out untouched: {untouched}")
            counts["not supported"] += untouched


def main():
    if not torch.cuda.is_available():
        sys.exit("test_vllm_conformance.py: needs a CUDA device")
    print(f"test_vllm_conformance.py: torch {torch.__version__} on {torch.cuda.get_device_name()}, "
          f"op {kattn_torch.library_path}", flush=True)
    test_unified_attn()
    test_bf16_query_fp8_kv()
    test_unsupported_arguments()
    print(f"{counts['pass']} cases within vLLM's tolerances, {counts['not supported']} refused as not supported "
          f"(out untouched), {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
