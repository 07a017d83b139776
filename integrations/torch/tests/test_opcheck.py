#!/usr/bin/env python3
"""torch.library.opcheck on torch.ops.kattn.unified_attention: its schema (only out is written), its
fake implementation (registered by kattn_torch) against the real op, autograd registration, and
tracing through AOTAutograd with dynamic shapes; then the op inside torch.compile(fullgraph=True)
against the eager call. Exits nonzero on any failure (docs/torch.md).

    python3 integrations/torch/tests/test_opcheck.py
"""
import math
import sys

import torch

import kattn_torch
from kattn_torch.paged import make_batch

# A decode, a chunk after context, a prefill: every kernel family of a mixed step.
SHAPES = [(1, 300), (40, 100), (64, 64)]
SCALE = 1 / math.sqrt(128)
failures = []


def run_opcheck(name, args, kwargs):
    try:
        results = torch.library.opcheck(torch.ops.kattn.unified_attention.default, args, kwargs)
    except Exception as error:  # opcheck raises on the first test that fails
        failures.append(name)
        print(f"FAIL  opcheck {name}: {type(error).__name__}: {error}", flush=True)
        return
    print(f"pass  opcheck {name}: {results}", flush=True)


def test_opcheck(dtype):
    batch = make_batch([q for q, _ in SHAPES], [s for _, s in SHAPES], dtype, num_q_heads=8, num_kv_heads=2)
    out = torch.empty_like(batch.q)
    heads = batch.q.shape[1]
    run_opcheck(f"{dtype}", batch.op_args(out) + (SCALE,), {})
    features = {"window_left": 32, "softcap": 5.0, "sinks": torch.zeros(heads, device="cuda"),
                "alibi_slopes": torch.full((heads,), 0.01, device="cuda"), "check_values": False}
    run_opcheck(f"{dtype}, window, softcap, sinks, ALiBi, no value checks", batch.op_args(out) + (SCALE,), features)


def test_compile():
    """The op in a compiled function with the tensors it writes: the same output as eager."""
    batch = make_batch([q for q, _ in SHAPES], [s for _, s in SHAPES], torch.float16, num_q_heads=8, num_kv_heads=2)

    def attention(out):
        torch.ops.kattn.unified_attention(*batch.op_args(out), SCALE, check_values=False)
        return out * 2

    eager = attention(torch.empty_like(batch.q))
    compiled = torch.compile(attention, fullgraph=True)(torch.empty_like(batch.q))
    same = torch.equal(eager, compiled)
    print(f"{'pass' if same else 'FAIL'}  torch.compile(fullgraph=True) equals eager", flush=True)
    if not same:
        failures.append("torch.compile")


def main():
    if not torch.cuda.is_available():
        sys.exit("test_opcheck.py: needs a CUDA device")
    torch.manual_seed(0)
    print(f"test_opcheck.py: torch {torch.__version__} on {torch.cuda.get_device_name()}, "
          f"op {kattn_torch.library_path}", flush=True)
    for dtype in (torch.float16, torch.bfloat16):
        test_opcheck(dtype)
    test_compile()
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
