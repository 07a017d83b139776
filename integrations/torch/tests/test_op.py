#!/usr/bin/env python3
"""Checks torch.ops.kattn.unified_attention and kattn_torch.PagedAttentionPlan against a dense PyTorch
reference on random paged batches (GQA 32/8 heads, head 128, block 16, permuted block table) in fp16
and bf16: one call, a plan run per layer, a plan's run captured in a CUDA graph and replayed on a new
step; and their error paths. Exits nonzero on any failure (docs/torch.md).

    python3 integrations/torch/tests/test_op.py
"""
import math
import sys

import torch

import kattn_torch
from kattn_torch.paged import make_batch, reference

# (query_len, seq_len): decodes first as vLLM orders them, then a chunk of 100 after 600 tokens of
# context, a full prefill of 250 (and one of 33), a chunk of 17 after 383.
MIXED = [(1, 1000), (1, 37), (1, 16), (1, 513), (100, 700), (250, 250), (33, 33), (17, 400)]
# A later step of MIXED's shapes (404 tokens, 8 sequences, blocks within its cache and table): the
# decodes no longer first, longer and shorter chunks, every context changed.
NEXT_STEP = [(1, 990), (3, 40), (1, 17), (120, 600), (1, 9), (200, 200), (60, 80), (18, 300)]
# docs/testing.md: atol, rtol of the output's dtype, plus half an ulp of q's type times max |v| (1
# here) for the softmax weights the tensor-core kernels round to q's type.
TOLERANCES = {torch.float16: (1e-3 + 2.0**-11, 2e-3), torch.bfloat16: (8e-3 + 2.0**-8, 1.6e-2)}
SCALE = 1 / math.sqrt(128)
failures = []


def check(name, ok, detail):
    print(f"{'pass' if ok else 'FAIL'}  {name}: {detail}", flush=True)
    if not ok:
        failures.append(name)


def mismatch(ref, out):
    """(whether out is within kattn's tolerances of the reference ref, a line saying how far it is)"""
    atol, rtol = TOLERANCES[out.dtype]
    error = (out.float() - ref).abs()
    bad = int((error > atol + rtol * ref.abs()).sum())
    return (bad == 0 and bool(torch.isfinite(out).all()),
            f"max abs err {error.max().item():.3e}, {bad} of {out.numel()} outside atol {atol:.2e} rtol {rtol:.1e}")


def compare(name, batch, out, **features):
    check(name, *mismatch(reference(batch, SCALE, **features), out))


def test_mixed(dtype, fused_kv, side_stream):
    """The mixed batch; optionally K/V as slices of one cache tensor and a non-default stream with
    check_values off, so that nothing but the stream orders the op after the inputs and before the check."""
    batch = make_batch([q for q, _ in MIXED], [s for _, s in MIXED], dtype, fused_kv=fused_kv)
    out = torch.full_like(batch.q, float("nan"))
    stream = torch.cuda.Stream() if side_stream else torch.cuda.current_stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        torch.ops.kattn.unified_attention(*batch.op_args(out), SCALE, check_values=not side_stream)
    torch.cuda.current_stream().wait_stream(stream)
    compare(f"{dtype} mixed batch{', fused KV slices' if fused_kv else ''}{', side stream' if side_stream else ''}",
            batch, out)


def test_features(dtype):
    """Window, softcap, ALiBi and sinks through the op's scalar and optional arguments."""
    batch = make_batch([q for q, _ in MIXED], [s for _, s in MIXED], dtype)
    heads = batch.q.shape[1]
    features = {"window_left": 64, "softcap": 2.0,
                "alibi_slopes": torch.tensor([2.0 ** (-8 * (h + 1) / heads) for h in range(heads)], device="cuda"),
                "sinks": torch.empty(heads, device="cuda").uniform_(-2, 2)}
    out = torch.empty_like(batch.q)
    torch.ops.kattn.unified_attention(*batch.op_args(out), SCALE, **features)
    compare(f"{dtype} mixed batch, window 64, softcap 2, ALiBi, sinks", batch, out, **features)


def test_plan_layers(dtype):
    """A plan made from host copies of the mixed batch's index tensors, run for two layers (two
    caches); each against the reference, the first also against the one-shot op."""
    layers = [make_batch([q for q, _ in MIXED], [s for _, s in MIXED], dtype) for _ in range(2)]
    for layer in layers[1:]:  # one batch, a cache per layer
        layer.q, layer.cu_seqlens_q, layer.seq_lens, layer.block_table = (
            layers[0].q, layers[0].cu_seqlens_q, layers[0].seq_lens, layers[0].block_table)
    first = layers[0]
    out = torch.empty_like(first.q)
    plan = kattn_torch.PagedAttentionPlan(first.q, first.k_cache, out, first.block_table, max(first.query_lens),
                                          max(first.seq_lens_list), SCALE, cu_seqlens_q_cpu=first.cu_seqlens_q.cpu(),
                                          seq_lens_cpu=first.seq_lens.cpu())
    one_shot = torch.empty_like(first.q)
    torch.ops.kattn.unified_attention(*first.op_args(one_shot), SCALE)
    for number, layer in enumerate(layers):
        out.fill_(float("nan"))
        plan.run(layer.q, layer.k_cache, layer.v_cache, out, layer.cu_seqlens_q, layer.seq_lens, layer.block_table)
        compare(f"{dtype} plan from host copies, layer {number}", layer, out)
        if number == 0:
            check(f"{dtype} plan from host copies, layer 0 equals the one-shot op", torch.equal(out, one_shot),
                  "same plan, same kernels")


def capture_and_replay(name, batch, out, call, next_step):
    """call() once on a side stream (kattn's instance of the stream, its workspace, Kokkos' lazy
    state), then captured there by torch.cuda.graph (PyTorch's default capture mode) and replayed;
    then next_step's (query_len, seq_len) pairs, new values and a new block table written into the
    captured tensors and replayed again. Each output is compared with the reference."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        call()
    torch.cuda.current_stream().wait_stream(stream)
    compare(f"{name}, before capture", batch, out)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        call()
    for step in ("first step", "next step written into the captured tensors"):
        if step != "first step":
            batch.write_step([q for q, _ in next_step], [s for _, s in next_step])
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        compare(f"{name} in a CUDA graph, replay of the {step}", batch, out)


def test_plan_graph(dtype):
    """A plan made from bounds only, its run captured on the mixed batch; the next step has other query
    and sequence lengths within the bounds."""
    batch = make_batch([q for q, _ in MIXED], [s for _, s in MIXED], dtype)
    out = torch.full_like(batch.q, float("nan"))
    max_seqlen_k = batch.block_table.shape[1] * batch.k_cache.shape[1]  # any sequence its table row holds
    plan = kattn_torch.PagedAttentionPlan(batch.q, batch.k_cache, out, batch.block_table, 256, max_seqlen_k, SCALE)
    capture_and_replay(f"{dtype} plan from bounds", batch, out,
                       lambda: plan.run(batch.q, batch.k_cache, batch.v_cache, out, batch.cu_seqlens_q,
                                        batch.seq_lens, batch.block_table), NEXT_STEP)


# vLLM's decode steps: the drop-in's one call captured as vLLM captures its decode-only graphs.
DECODES = [(1, 700), (1, 33), (1, 1000), (1, 16)]
NEXT_DECODES = [(1, 990), (1, 40), (1, 701), (1, 17)]  # 111 blocks of the 112 DECODES leaves, rows of 63


def test_drop_in_decode_graph(dtype):
    """kattn_torch.unified_attention (vLLM's signature) on a batch of decodes, captured; the next step's
    lengths stay within the max_seqlen_k of the capture."""
    batch = make_batch([q for q, _ in DECODES], [s for _, s in DECODES], dtype)
    out = torch.full_like(batch.q, float("nan"))
    max_seqlen_k = batch.block_table.shape[1] * batch.k_cache.shape[1]

    def call():
        kattn_torch.unified_attention(q=batch.q, k=batch.k_cache, v=batch.v_cache, out=out,
                                      cu_seqlens_q=batch.cu_seqlens_q, max_seqlen_q=1, seqused_k=batch.seq_lens,
                                      max_seqlen_k=max_seqlen_k, softmax_scale=SCALE, causal=True,
                                      window_size=(-1, -1), block_table=batch.block_table, softcap=0,
                                      q_descale=None, k_descale=None, v_descale=None)

    capture_and_replay(f"{dtype} vLLM drop-in on decodes", batch, out, call, NEXT_DECODES)


def expect_error(name, error_type, call, out):
    """call() must raise error_type with a kattn message and leave out as it was."""
    before = out.clone()
    try:
        call()
        check(name, False, "no error")
    except error_type as error:
        torch.cuda.synchronize()
        untouched = torch.equal(out, before)
        check(name, untouched and "kattn" in str(error),
              f"{type(error).__name__}: {str(error).splitlines()[0]}; out {'untouched' if untouched else 'CHANGED'}")


def test_errors():
    batch = make_batch([1, 8], [40, 8], torch.float16)
    out = torch.full_like(batch.q, 7.0)
    args = list(batch.op_args(out))
    too_long = batch.block_table.shape[1] * batch.k_cache.shape[1] + 1
    args[5] = torch.tensor([too_long, 8], dtype=torch.int32, device="cuda")  # seq_lens beyond the block table
    args[7] = too_long  # max_seqlen_k, so that the value check of seq_lens is what fails
    expect_error("seq_lens longer than the block table (check_values)", ValueError,
                 lambda: torch.ops.kattn.unified_attention(*args, SCALE, check_values=True), out)
    args = list(batch.op_args(out))
    args[5] = batch.seq_lens.long()
    expect_error("int64 seq_lens", ValueError, lambda: torch.ops.kattn.unified_attention(*args, SCALE), out)
    short_out = torch.full_like(batch.q[:-1], 7.0)  # one token short: kattn would write past its end
    args = list(batch.op_args(short_out))
    expect_error("out with fewer tokens than q", ValueError, lambda: torch.ops.kattn.unified_attention(*args, SCALE),
                 short_out)
    args = list(batch.op_args(out))
    args[4] = batch.cu_seqlens_q[:-1]  # one entry short: kattn would read past its end
    expect_error("cu_seqlens_q shorter than num_seqs + 1", ValueError,
                 lambda: torch.ops.kattn.unified_attention(*args, SCALE), out)
    plan = kattn_torch.PagedAttentionPlan(batch.q, batch.k_cache, out, batch.block_table, 8, 40, SCALE)
    expect_error("plan run with q and out one token short (other shapes than planned)", ValueError,
                 lambda: plan.run(batch.q[:-1], batch.k_cache, batch.v_cache, short_out, batch.cu_seqlens_q,
                                  batch.seq_lens, batch.block_table), short_out)
    expect_error("plan run with a cache of another dtype", ValueError,
                 lambda: plan.run(batch.q, batch.k_cache.float(), batch.v_cache.float(), out, batch.cu_seqlens_q,
                                  batch.seq_lens, batch.block_table), out)


def main():
    if not torch.cuda.is_available():
        sys.exit("test_op.py: needs a CUDA device")
    torch.manual_seed(0)
    print(f"test_op.py: torch {torch.__version__} on {torch.cuda.get_device_name()}, op {kattn_torch.library_path}")
    for dtype in (torch.float16, torch.bfloat16):
        test_mixed(dtype, fused_kv=False, side_stream=False)
        test_mixed(dtype, fused_kv=True, side_stream=True)
        test_features(dtype)
        test_plan_layers(dtype)
        test_plan_graph(dtype)
        test_drop_in_decode_graph(dtype)
    test_errors()
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
