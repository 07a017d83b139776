#!/usr/bin/env python3
"""Times kattn through the PyTorch op next to PyTorch SDPA (flash and cuDNN backends) on the cases
of kattn scenario files, in one process: host call to completion and kernel time from CUDA events
with the L2 flushed, each as mean, standard deviation, minimum and median over the timed runs
(docs/torch.md).

    python3 integrations/torch/bench_op.py OUTPUT.json [SCENARIO.json ...] [--warmup 20] [--runs 100]

Default scenarios: perf/scenarios/default.json and targets.json. The batches are the ones `kattn
bench` draws (scenario_shapes.py); kattn runs them paged (block table permuted) on torch's current
stream, SDPA as perf/torch_sdpa.py runs them (contiguous KV, one padded call per kind of row).
"""
import argparse
import contextlib
import json
import math
import pathlib
import sys
import warnings

import torch

import kattn_torch
from kattn_torch.paged import make_batch
from scenario_shapes import geometry, sequence_shapes

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "perf"))
import torch_sdpa  # noqa: E402  (perf/ is not a package)

DEFAULT_SCENARIOS = [REPO / "perf" / "scenarios" / "default.json", REPO / "perf" / "scenarios" / "targets.json"]
# kattn without value checks is how vLLM calls it; with them, how `kattn bench` timed it.
KATTN_MODES = {"kattn": False, "kattn-checked": True}
BACKENDS = list(KATTN_MODES) + list(torch_sdpa.BACKENDS)


def bench_cases(paths):
    """One case per scenario case and dtype, in the shape dicts perf/torch_sdpa.py takes."""
    for path in paths:
        for spec in json.loads(pathlib.Path(path).read_text())["cases"]:
            dtypes = spec.get("dtypes", ["fp16"])
            query_lens, seq_lens = sequence_shapes(spec)
            heads, kv_heads, head_size = geometry(spec)
            for dtype in dtypes:
                yield {"name": spec["name"] + (f"-{dtype}" if len(dtypes) > 1 else ""), "scenario": str(path),
                       "dtype": dtype, "num_q_heads": heads, "num_kv_heads": kv_heads, "head_size": head_size,
                       "block_size": spec.get("block_size", 16), "causal": spec.get("causal", True),
                       "query_lens": query_lens, "seq_lens": seq_lens, "spec": spec}


def kattn_calls(case):
    """{mode: closure} running the case's batch through the op on the current stream."""
    batch = make_batch(case["query_lens"], case["seq_lens"], getattr(torch, torch_sdpa.TORCH_DTYPES[case["dtype"]]),
                       case["num_q_heads"], case["num_kv_heads"], case["head_size"], case["block_size"],
                       permute_blocks=case["spec"].get("permute_blocks", True))
    args = batch.op_args(torch.empty_like(batch.q))
    scale = 1 / math.sqrt(case["head_size"])
    return {mode: (lambda checked=checked: torch.ops.kattn.unified_attention(*args, scale, causal=case["causal"],
                                                                        check_values=checked))
            for mode, checked in KATTN_MODES.items()}


def timed(calls, warmup, runs, sdpa_backend=None):
    """Host call to completion ({mean,stddev,min,median}_us) and kernel time from events with the L2
    flushed (kernel_{mean,stddev,min,median}_us) of the calls, or {error} when the first run refuses them."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    context = sdpa_kernel(getattr(SDPBackend, sdpa_backend)) if sdpa_backend else contextlib.nullcontext()
    with context, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for call in calls:
                call()
            torch.cuda.synchronize()
        except (RuntimeError, ValueError, NotImplementedError) as error:  # torch.cuda.OutOfMemoryError too
            return {"mean_us": None, "error": torch_sdpa.refusal_reason(error, caught)}
        host, kernel = torch_sdpa.time_calls(torch, calls, warmup, runs)
    return {**host, **{f"kernel_{key}": value for key, value in kernel.items()}, "error": None}


def run_case(case, warmup, runs):
    """{backend: timing} for one case."""
    reason = torch_sdpa.unsupported_reason(case)
    if reason:
        return {backend: {"mean_us": None, "error": reason} for backend in BACKENDS}
    results = {}
    try:
        for mode, call in kattn_calls(case).items():
            results[mode] = timed([call], warmup, runs)
        groups = torch_sdpa.phase_groups(case)
        sdpa_calls = torch_sdpa.make_calls(torch, case, groups)
        for backend, sdpa_backend in torch_sdpa.BACKENDS.items():
            results[backend] = timed(sdpa_calls, warmup, runs, sdpa_backend)
    except torch.cuda.OutOfMemoryError as error:
        results.update({b: {"mean_us": None, "error": f"out of memory: {error}"} for b in BACKENDS if b not in results})
    finally:
        torch.cuda.empty_cache()  # cases differ in size: hand the memory back rather than fragment it
    return results


def cell(result):
    if result["mean_us"] is None:
        return f"{'-':>20}"
    return f"{result['mean_us']:>10.1f} / {result['kernel_mean_us']:<7.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", help="JSON file to write")
    parser.add_argument("scenarios", nargs="*", default=DEFAULT_SCENARIOS, help="kattn scenario files")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench_op.py: needs a CUDA device")
    print(f"bench_op.py: op {kattn_torch.library_path}")
    device = torch.cuda.get_device_name()
    print(f"bench_op.py: torch {torch.__version__} on {device}, {args.warmup} warm-up + {args.runs} timed runs, "
          f"mean us: host call to completion / kernel time (events, L2 flushed)")
    print(f"{'case':<24} {'tokens':>6}" + "".join(f" {b:>20}" for b in BACKENDS))
    rows = []
    for case in bench_cases(args.scenarios):
        results = run_case(case, args.warmup, args.runs)
        print(f"{case['name']:<24} {sum(case['query_lens']):>6}" + "".join(" " + cell(results[b]) for b in BACKENDS),
              flush=True)
        for backend, result in results.items():
            if result["error"]:
                print(f"  {backend}: {result['error']}")
        rows.append({**{k: v for k, v in case.items() if k != "spec"}, "results": results})
    doc = {"device": device, "torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "warmup": args.warmup, "runs": args.runs,
           "timing": torch_sdpa.TIMING, "kattn": "torch.ops.kattn.unified_attention on torch's current stream, paged "
           "KV (block table permuted); kattn-checked: check_values=True", "sdpa_batching": torch_sdpa.BATCHING,
           "cases": rows}
    pathlib.Path(args.output).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
