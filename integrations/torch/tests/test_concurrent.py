#!/usr/bin/env python3
"""Many callers at once through the PyTorch op: one Python thread per case below, each with its own
batch (heads, head size, dtype, lengths, window) and way in (a PagedAttentionPlan fitted to the
batch's host copies or to its bounds, or the one-shot op), issues a bounded number of calls on a
torch.cuda.Stream while the others issue theirs; the one-shot callers share one stream (kattn keeps
their calls on it apart), the plans have one each. Each call alternates between two layers (caches)
of its batch, fills out with NaN first, and is compared with the dense reference within kattn's
tolerances; a thread still running at the deadline is a deadlock. Exits nonzero on any failure
(docs/torch.md).

    python3 integrations/torch/tests/test_concurrent.py [--iterations 40] [--deadline 600]
"""
import argparse
import math
import os
import sys
import threading
import time

import torch

import kattn_torch
from kattn_torch.paged import make_batch, reference
from test_op import MIXED, check, failures, mismatch

# (way in, dtype, (q heads, kv heads, head size), [(query_len, seq_len)], window_left): GQA 4, 5, 7
# and 8, MHA and MQA, head sizes 64 to 256, vLLM's decode and mixed lists and a 533-token prefill.
CASES = [
    ("plan from host copies", torch.float16, (32, 8, 128), MIXED, -1),
    ("plan from bounds", torch.bfloat16, (14, 2, 128), [(1, 700), (1, 33), (1, 1500), (1, 2)], -1),
    ("one-shot", torch.float16, (8, 1, 64), [(1, 300), (64, 64), (20, 90)], 127),
    ("plan from host copies", torch.bfloat16, (5, 1, 256), [(1, 523), (1, 37), (1, 2011)], -1),
    ("one-shot", torch.bfloat16, (16, 16, 128), [(1, 1328), (5, 18), (129, 463)], -1),
    ("plan from bounds", torch.float16, (4, 4, 64), [(533, 533)], 255),
]


def layers_of(case):
    """Two layers of the case's batch: the same q and index tensors, a cache each."""
    _, dtype, (q_heads, kv_heads, head_size), lengths, _ = case
    layers = [make_batch([q for q, _ in lengths], [s for _, s in lengths], dtype, num_q_heads=q_heads,
                         num_kv_heads=kv_heads, head_size=head_size) for _ in range(2)]
    first = layers[0]
    layers[1].q, layers[1].cu_seqlens_q, layers[1].seq_lens, layers[1].block_table = (
        first.q, first.cu_seqlens_q, first.seq_lens, first.block_table)
    return layers


def call_repeatedly(case, layers, refs, stream, iterations, problems):
    """The case's calls on `stream`, each checked on that stream after it; what went wrong goes to problems."""
    way, _, (_, _, head_size), _, window_left = case
    scale = 1 / math.sqrt(head_size)
    first = layers[0]
    try:
        with torch.cuda.stream(stream):
            out = torch.empty_like(first.q)  # allocated on the stream that uses it
            plan = None
            if way != "one-shot":
                host = way == "plan from host copies"
                plan = kattn_torch.PagedAttentionPlan(
                    first.q, first.k_cache, out, first.block_table, max(first.query_lens), max(first.seq_lens_list),
                    scale, window_left=window_left, cu_seqlens_q_cpu=first.cu_seqlens_q.cpu() if host else None,
                    seq_lens_cpu=first.seq_lens.cpu() if host else None)
            for i in range(iterations):
                layer = layers[i % 2]
                out.fill_(float("nan"))
                if plan is None:
                    torch.ops.kattn.unified_attention(*layer.op_args(out), scale, window_left=window_left,
                                                  check_values=False)
                else:
                    plan.run(layer.q, layer.k_cache, layer.v_cache, out, layer.cu_seqlens_q, layer.seq_lens,
                             layer.block_table)
                ok, detail = mismatch(refs[i % 2], out)
                if not ok:
                    problems.append(f"call {i}: {detail}")
    except Exception as error:  # reported by the main thread like a mismatch
        problems.append(f"{type(error).__name__}: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=40, help="calls per thread")
    parser.add_argument("--deadline", type=float, default=600, help="seconds the threads may take together")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("test_concurrent.py: needs a CUDA device")
    torch.manual_seed(0)
    print(f"test_concurrent.py: torch {torch.__version__} on {torch.cuda.get_device_name()}, "
          f"op {kattn_torch.library_path}, {len(CASES)} threads x {args.iterations} calls")
    shared = torch.cuda.Stream()  # the one-shot callers' stream
    callers = []
    for case in CASES:
        layers = layers_of(case)
        refs = [reference(layer, 1 / math.sqrt(case[2][2]), window_left=case[4]) for layer in layers]
        stream = shared if case[0] == "one-shot" else torch.cuda.Stream()
        callers.append((case, layers, refs, stream, []))
    torch.cuda.synchronize()  # inputs and references ready before any stream reads them
    threads = [threading.Thread(target=call_repeatedly, args=(case, layers, refs, stream, args.iterations, problems),
                                daemon=True) for case, layers, refs, stream, problems in callers]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + args.deadline
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    stuck = False
    for (case, _, _, _, problems), thread in zip(callers, threads):
        way, dtype, heads, lengths, window_left = case
        name = f"{way}, {dtype}, heads {heads}, {len(lengths)} sequences, window_left {window_left}"
        if thread.is_alive():
            stuck = True
            check(name, False, f"still running after {args.deadline:.0f} s: deadlock")
        else:
            check(name, not problems,
                  f"{len(problems)} of {args.iterations} calls wrong, first: {problems[0]}" if problems
                  else f"{args.iterations} calls within tolerance")
    print(f"{len(failures)} failed" if failures else "all passed", flush=True)
    if stuck:
        os._exit(1)  # a thread stuck in the op would keep the interpreter from exiting
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
