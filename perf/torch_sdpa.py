#!/usr/bin/env python3
"""PyTorch baselines for the performance suite: times torch.nn.functional.scaled_dot_product_attention
with the flash and the cuDNN backend on the shapes of every case of a kattn bench JSON, and merges
the results into that file as "baselines" (docs/performance.md).

    python3 perf/torch_sdpa.py SUITE.json [--backends torch-flash,torch-cudnn] [--case NAME]

KV is contiguous ([batch, kv heads, length, head size], no paging), GQA by enable_gqa=True (both
backends take it in PyTorch 2.11). SDPA has no variable-length batches, so each case runs as at most
three padded calls, one per kind of row (see phase_groups); the padded work is recorded, and the
shares of the hardware limit count only the work kattn counts.
"""
import argparse
import sys
import time
import warnings
from dataclasses import dataclass

import suite_json

BACKENDS = {"torch-flash": "FLASH_ATTENTION", "torch-cudnn": "CUDNN_ATTENTION"}
TORCH_DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}
# Scenario features SDPA cannot express, with their off values.
FEATURES_OFF = {"window_left": -1, "softcap": 0, "alibi": False, "sinks": False, "prefix_lm": False, "qq_bias": False,
                "fp8_kv_cache": False, "fp8_out": False}
TIMING = ("mean_us etc.: host call to completion, the case's calls, then torch.cuda.synchronize(), timed with "
          "time.perf_counter, fenced before and after each run, as kattn bench's mean_us; kernel_mean_us etc.: CUDA "
          "events around the calls, the L2 flushed before each run by writing 256 MiB, as kattn bench's kernel_*")
L2_FLUSH_BYTES = 256 << 20
BATCHING = ("one call per kind of row, padded to its longest: decode rows (query 1) to the longest context, "
            "attending to the padding too; prefill rows (query = context) to the longest, causal, so that padding "
            "follows each sequence; chunk rows (query < context) to the longest query and context, lower-right "
            "causal by torch.nn.attention.bias.causal_lower_right. Padded work is in padded_bytes / padded_flops")


@dataclass
class Group:
    kind: str  # "decode", "prefill" (query = context) or "chunk" (query < context)
    rows: int
    query_len: int
    kv_len: int


def phase_groups(case):
    """The padded SDPA calls of a case: one per kind of row present."""
    by_kind = {}
    for query_len, kv_len in zip(case["query_lens"], case["seq_lens"]):
        kind = "decode" if query_len == 1 else "prefill" if query_len == kv_len else "chunk"
        by_kind.setdefault(kind, []).append((query_len, kv_len))
    return [Group(kind, len(rows), max(q for q, _ in rows), max(k for _, k in rows))
            for kind, rows in sorted(by_kind.items(), key=lambda item: ["decode", "prefill", "chunk"].index(item[0]))]


def padded_work(case, groups):
    """Bytes and FLOPs of the padded calls, counted as kattn bench counts a case's work."""
    element_bytes = 4 if case["dtype"] == "fp32" else 2
    heads, kv_heads, head_size = case["num_q_heads"], case["num_kv_heads"], case["head_size"]
    bytes_ = flops = 0.0
    for g in groups:
        context = g.kv_len - g.query_len
        pairs = g.query_len * context + g.query_len * (g.query_len + 1) / 2 if case["causal"] else g.query_len * g.kv_len
        bytes_ += g.rows * (2 * g.query_len * heads + 2 * g.kv_len * kv_heads) * head_size * element_bytes
        flops += 4 * head_size * heads * g.rows * pairs
    return bytes_, flops


def unsupported_reason(case):
    """Why SDPA cannot run the case's attention, or None."""
    active = [name for name, off in FEATURES_OFF.items() if case["spec"].get(name, off) != off]
    if active:
        return "SDPA baseline has no " + ", ".join(active)
    if case["dtype"] not in TORCH_DTYPES:
        return f"no torch dtype for {case['dtype']}"
    return None


def refusal_reason(error, caught):
    """The specific lines of PyTorch's 'kernel not used because' warnings, else the error."""
    lines = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    specific = [line for line in lines if "not used because" not in line and "runtime disabled" not in line]
    return "; ".join(dict.fromkeys(specific)) or f"{type(error).__name__}: {error}"


def make_calls(torch, case, groups):
    """One closure per padded group, on fresh tensors uniform in [-1, 1)."""
    from torch.nn.attention.bias import causal_lower_right
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    dtype = getattr(torch, TORCH_DTYPES[case["dtype"]])
    heads, kv_heads, head_size = case["num_q_heads"], case["num_kv_heads"], case["head_size"]

    def tensor(*shape):
        return torch.empty(shape, dtype=dtype, device="cuda").uniform_(-1, 1)

    calls = []
    for g in groups:
        q = tensor(g.rows, heads, g.query_len, head_size)
        k, v = tensor(g.rows, kv_heads, g.kv_len, head_size), tensor(g.rows, kv_heads, g.kv_len, head_size)
        if g.kind == "chunk" and case["causal"]:
            mask = causal_lower_right(g.query_len, g.kv_len)
            calls.append(lambda q=q, k=k, v=v, m=mask: sdpa(q, k, v, attn_mask=m, enable_gqa=True))
        else:
            causal = g.kind == "prefill" and case["causal"]
            calls.append(lambda q=q, k=k, v=v, c=causal: sdpa(q, k, v, is_causal=c, enable_gqa=True))
    return calls


def summary(samples):
    mean = sum(samples) / len(samples)
    stddev = (sum((s - mean) ** 2 for s in samples) / len(samples)) ** 0.5
    return {"mean_us": mean, "stddev_us": stddev, "min_us": min(samples),
            "median_us": sorted(samples)[len(samples) // 2]}


def time_calls(torch, calls, warmup, runs):
    """Host call to completion, then the device time from events with the L2 flushed (kattn bench's two timings)."""
    for _ in range(warmup):
        for call in calls:
            call()
    torch.cuda.synchronize()
    host = []
    for _ in range(runs):
        start = time.perf_counter()
        for call in calls:
            call()
        torch.cuda.synchronize()
        host.append((time.perf_counter() - start) * 1e6)
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device="cuda")
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    kernel = []
    for _ in range(runs):
        flush.zero_()
        begin.record()
        for call in calls:
            call()
        end.record()
        end.synchronize()
        kernel.append(begin.elapsed_time(end) * 1e3)
    return summary(host), summary(kernel)


def failed(case, reason):
    return {"case": case["name"], "dtype": case["dtype"], "mean_us": None, "kernel_mean_us": None, "error": reason}


def run_backend(torch, doc, case, groups, calls, backend, warmup, runs):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    padded_bytes, padded_flops = padded_work(case, groups)
    with sdpa_kernel(getattr(SDPBackend, BACKENDS[backend])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:  # a refused shape fails here, before any timing
                for call in calls:
                    call()
                torch.cuda.synchronize()
            except RuntimeError as error:  # torch.cuda.OutOfMemoryError too
                return failed(case, refusal_reason(error, caught))
        host, kernel = time_calls(torch, calls, warmup, runs)
    bandwidth_share, peak_share = suite_json.shares(doc, case["dtype"], case["bytes"], case["flops"],
                                                    kernel["mean_us"])
    return {"case": case["name"], "dtype": case["dtype"], **host,
            **{"kernel_" + key: value for key, value in kernel.items()},
            "calls": len(groups), "padded_bytes": padded_bytes, "padded_flops": padded_flops,
            "gb_per_s": case["bytes"] / (host["mean_us"] * 1e3), "tflop_per_s": case["flops"] / (host["mean_us"] * 1e6),
            "kernel_gb_per_s": case["bytes"] / (kernel["mean_us"] * 1e3),
            "kernel_tflop_per_s": case["flops"] / (kernel["mean_us"] * 1e6),
            "bandwidth_share": bandwidth_share, "peak_share": peak_share, "error": None}


def time_case(torch, doc, case, backends, warmup, runs):
    """{backend: result row} for one case; every backend shares the case's tensors."""
    reason = unsupported_reason(case)
    if reason:
        return {backend: failed(case, reason) for backend in backends}
    groups = phase_groups(case)
    try:
        calls = make_calls(torch, case, groups)
    except torch.cuda.OutOfMemoryError as error:
        return {backend: failed(case, f"out of memory for the padded tensors: {error}") for backend in backends}
    try:
        return {backend: run_backend(torch, doc, case, groups, calls, backend, warmup, runs) for backend in backends}
    finally:
        calls.clear()
        torch.cuda.empty_cache()  # cases differ in size: hand the memory back rather than fragment it


def import_torch_with_cuda():
    try:
        import torch
    except ImportError as error:
        sys.exit(f"torch_sdpa.py: needs PyTorch with CUDA ({error})")
    if not torch.cuda.is_available():
        sys.exit("torch_sdpa.py: needs a CUDA device, and torch.cuda.is_available() is False")
    return torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", help="kattn bench --output file; the baselines are merged into it")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="comma separated, from " + ", ".join(BACKENDS))
    parser.add_argument("--case", help="run only this case")
    parser.add_argument("--warmup", type=int, help="untimed runs first (default: the bench file's)")
    parser.add_argument("--runs", type=int, help="timed runs (default: the bench file's)")
    args = parser.parse_args()
    backends = args.backends.split(",")
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown:
        parser.error(f"unknown backends {unknown}; known: {list(BACKENDS)}")
    try:
        doc = suite_json.load(args.suite)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    torch = import_torch_with_cuda()
    warmup = doc["warmup"] if args.warmup is None else args.warmup
    runs = doc["runs"] if args.runs is None else args.runs

    results = {backend: [] for backend in backends}
    print(f"torch_sdpa.py {args.suite}: torch {torch.__version__} on {torch.cuda.get_device_name()}, "
          f"{warmup} warm-up + {runs} timed runs each; kernel time: CUDA events, L2 flushed")
    print(f"{'case':<26} {'calls':>5} {'padded':>7}" + "".join(f" {b + ' kernel us':>23}" for b in backends))
    for case in doc["cases"]:
        if args.case and case["name"] != args.case:
            continue
        rows = time_case(torch, doc, case, backends, warmup, runs)
        groups = phase_groups(case)
        padding = padded_work(case, groups)[1] / case["flops"] if case["flops"] else 1.0
        cells = "".join(f" {'-' if r['kernel_mean_us'] is None else format(r['kernel_mean_us'], '.1f'):>23}"
                        for r in rows.values())
        print(f"{case['name']:<26} {len(groups):>5} {padding:>6.2f}x{cells}", flush=True)
        for backend, row in rows.items():
            results[backend].append(row)
            if row["error"]:
                print(f"  {backend}: {row['error']}")

    versions = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version()}
    baselines = [{"backend": backend, "sdpa_backend": BACKENDS[backend], **versions,
                  "device": torch.cuda.get_device_name(), "warmup": warmup, "runs": runs, "timing": TIMING,
                  "layout": "contiguous [batch, heads, length, head_size] q/K/V, GQA by enable_gqa=True",
                  "batching": BATCHING, "results": results[backend]} for backend in backends]
    suite_json.save(suite_json.merge_baselines(doc, baselines), args.suite)
    print(f"merged {', '.join(backends)} into {args.suite}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
