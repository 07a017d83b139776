#!/usr/bin/env python3
"""A Figure-9-like plot of a `kattn simulate --json` report (docs/simulation.md): for one request
(the latency experiment's), the inter-token latency and the attention time of the step that
produced each output token, against the output token index.

    python3 perf/plot_simulation.py SIMULATION.json OUT.png [--request ID]
"""
import argparse
import json


def token_series(doc, request_id=None):
    """(token indices, inter-token latency ms, step attention ms) of one request; the first token's
    latency is its TTFT. The first request unless request_id names one."""
    requests = doc["requests"]
    request = requests[0] if request_id is None else next(r for r in requests if r["id"] == request_id)
    steps = doc["steps"]
    indices, latency_ms, attention_ms = [], [], []
    previous = request["arrival_s"]
    for index, token in enumerate(request["tokens"]):
        indices.append(index)
        latency_ms.append(1e3 * (token["time_s"] - previous))
        attention_ms.append(1e-3 * steps[token["step"]]["attention_us"])
        previous = token["time_s"]
    return indices, latency_ms, attention_ms


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "kattn-simulation":
        raise ValueError(f"{path}: not a kattn simulate report")
    return doc


def plot(doc, out, request_id=None):
    import matplotlib  # here, not at the top: token_series is tested where matplotlib is missing

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    indices, latency_ms, attention_ms = token_series(doc, request_id)
    # The first token's latency is the TTFT (the whole prompt): it would flatten the decode curve.
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(indices[1:], latency_ms[1:], label="inter-token latency")
    ax.plot(indices[1:], attention_ms[1:], label=f"attention ({doc['attention_layers']} layers)")
    ax.fill_between(indices[1:], attention_ms[1:], alpha=0.2)
    ax.set_xlabel("output token index")
    ax.set_ylabel("ms")
    model = doc["model"]["name"]
    ax.set_title(f"{model}: {doc['source']} — {doc['timer']}", fontsize=9)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report")
    parser.add_argument("out")
    parser.add_argument("--request", type=int, default=None)
    args = parser.parse_args()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise SystemExit("plot_simulation.py: needs matplotlib (pip install matplotlib)")
    plot(load(args.report), args.out, args.request)


if __name__ == "__main__":
    main()
