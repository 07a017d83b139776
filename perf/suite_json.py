"""The suite's JSON file: what `kattn bench --output` writes (schema_version >= 2) plus the "baselines"
that perf/torch_sdpa.py merges in. Schema: docs/performance.md. Standard library only."""
import json
import os


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "kattn-bench" or doc.get("schema_version", 1) < 2:
        raise ValueError(f"{path}: not a kattn bench JSON with per-case shapes (schema kattn-bench, version >= 2)")
    return doc


def save(doc, path):
    """Writes atomically: a reader never sees half a file, and a failure leaves the old one."""
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(temporary, path)


def merge_baselines(doc, baselines):
    """Adds each baseline to doc["baselines"], replacing an earlier one of the same backend."""
    names = {b["backend"] for b in baselines}
    doc["baselines"] = [b for b in doc.get("baselines", []) if b["backend"] not in names] + list(baselines)
    return doc


def shares(doc, dtype, bytes_, flops, mean_us):
    """(share of the measured copy bandwidth, share of the dtype's peak FLOP/s or None if unknown)."""
    hardware = doc["hardware"]
    bandwidth_share = bytes_ / (mean_us * 1e3) / hardware["copy_gb_per_s"]
    peak = hardware["peak_tflop_per_s"].get(dtype)
    return bandwidth_share, (flops / (mean_us * 1e6) / peak if peak else None)


def time_us(row):
    """The time a row is compared by: its kernel time (device events, the L2 flushed by the same 256 MiB
    write: kattn bench's kernel_* from schema_version 3, torch_sdpa.py's kernel_*) where recorded, else
    its host call to completion."""
    return row.get("kernel_mean_us") or row["mean_us"]


def limit_share(row):
    """Share of the hardware limit: the time the device needs at least (bytes at the copy bandwidth
    or FLOPs at peak, whichever is longer) over the measured time, i.e. the larger of the two shares."""
    known = [s for s in (row.get("bandwidth_share"), row.get("peak_share")) if s is not None]
    return max(known) if known else None


def implementations(doc):
    """{label: {case name: result row}} for kattn (planned plan: "kattn"; a forced variant: "kattn
    <variant>") and each baseline; a sweep's fastest row per case and label; failed rows left out."""
    labelled = [("kattn" if not r["forced"] else "kattn " + r["variant"], r) for r in doc["results"]]
    labelled += [(b["backend"], r) for b in doc.get("baselines", []) for r in b["results"]]
    result = {}
    for label, row in labelled:
        if row.get("mean_us") is None:
            continue
        rows = result.setdefault(label, {})
        if row["case"] not in rows or time_us(row) < time_us(rows[row["case"]]):
            rows[row["case"]] = row
    return result


def pattern(case):
    spec = case["spec"]
    return "fixed" if spec["min_seq_len"] == spec["max_seq_len"] else "rand"


def is_grid(case):
    """A case of the paper's grid (plain decode and prefill rows); the others are serving batches."""
    return not case["spec"]["chunked_prefill"]


def batch_tokens(case):
    """The x axis of the paper's Figure 6c: the sum of the sequence lengths."""
    return sum(case["seq_lens"])
