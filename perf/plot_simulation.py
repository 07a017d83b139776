#!/usr/bin/env python3
"""A plot like the paper's Figure 9 from `kattn simulate --output` reports (docs/simulation.md).

Left: the end-to-end latency of one request against its output length, one curve per report
(e.g. one per kernel variant, and one with --graph-replay): the latency for N output tokens is
the time of token N after the request's arrival, so one latency-experiment run gives the whole
curve (log scale: kernel versions differ by orders of magnitude). Right: for the last report, the
inter-token latency and the attention time of the step
that produced each token.

    python3 perf/plot_simulation.py OUT.png REPORT.json [REPORT.json ...] [--request ID]
"""
import argparse
import gzip
import json


def pick_request(doc, request_id=None):
    requests = doc["requests"]
    return requests[0] if request_id is None else next(r for r in requests if r["id"] == request_id)


def token_series(doc, request_id=None):
    """(token indices, inter-token latency ms, step attention ms) of one request; the first token's
    latency is its TTFT. The first request unless request_id names one."""
    request = pick_request(doc, request_id)
    steps = doc["steps"]
    indices, latency_ms, attention_ms = [], [], []
    previous = request["arrival_s"]
    for index, token in enumerate(request["tokens"]):
        indices.append(index)
        latency_ms.append(1e3 * (token["time_s"] - previous))
        attention_ms.append(1e-3 * steps[token["step"]]["attention_us"])
        previous = token["time_s"]
    return indices, latency_ms, attention_ms


def latency_curve(doc, request_id=None):
    """(output lengths 1..N, end-to-end latency s for each) of one request."""
    request = pick_request(doc, request_id)
    lengths = list(range(1, len(request["tokens"]) + 1))
    return lengths, [token["time_s"] - request["arrival_s"] for token in request["tokens"]]


def label_of(doc):
    """What distinguishes a report: its variant and graph replay, from the timer's description."""
    timer = doc["timer"]
    label = timer.split(", variant ")[1].split(";")[0] if ", variant " in timer else "planned"
    if doc.get("graph_replay", {}).get("steps", 0) > 0:
        label += " + graph replay"
    return label


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    if doc.get("schema") != "kattn-simulation":
        raise ValueError(f"{path}: not a kattn simulate report")
    return doc


def plot(docs, out, request_id=None):
    import matplotlib  # here, not at the top: the series are tested where matplotlib is missing

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))
    for doc in docs:
        lengths, latency_s = latency_curve(doc, request_id)
        left.plot(lengths, latency_s, label=label_of(doc))
    left.set_yscale("log")
    left.set_xlabel("output tokens")
    left.set_ylabel("end-to-end latency (s)")
    left.set_title("latency against output length (Figure 9)", fontsize=10)
    left.legend(fontsize=8)
    left.grid(alpha=0.3)

    last = docs[-1]
    indices, latency_ms, attention_ms = token_series(last, request_id)
    # The first token's latency is the TTFT (the whole prompt): it would flatten the decode curve.
    right.plot(indices[1:], latency_ms[1:], label="inter-token latency")
    right.plot(indices[1:], attention_ms[1:], label=f"attention ({last['attention_layers']} layers)")
    right.fill_between(indices[1:], attention_ms[1:], alpha=0.2)
    right.set_xlabel("output token index")
    right.set_ylabel("ms")
    right.set_title(f"per token: {label_of(last)}", fontsize=10)
    right.legend(fontsize=8)
    right.grid(alpha=0.3)
    fig.suptitle(f"{last['model']['name']}: {last['source']} — {last['timer']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the PNG to write")
    parser.add_argument("reports", nargs="+", help="kattn simulate --output reports (.json or .json.gz)")
    parser.add_argument("--request", type=int, default=None)
    args = parser.parse_args()
    if not args.out.endswith(".png"):
        raise SystemExit(f"plot_simulation.py: OUT must be a .png file, not '{args.out}'")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise SystemExit("plot_simulation.py: needs matplotlib (pip install matplotlib)")
    plot([load(path) for path in args.reports], args.out, args.request)


if __name__ == "__main__":
    main()
