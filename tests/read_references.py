#!/usr/bin/env python3
"""Reads a kattn problem file with h5py alone (no kattn code) and recomputes every case's
out_ref with NumPy, as the schema in docs/hdf5-schema.md promises a reader can."""
import sys

import h5py
import numpy as np


def attention(case):
    q = case["q"][...].astype(np.float64)
    k_cache = case["k_cache"][...].astype(np.float64)
    v_cache = case["v_cache"][...].astype(np.float64)
    block_table = case["block_table"][...]
    cu = case["cu_seqlens_q"][...]
    seq_lens = case["seq_lens"][...]
    scale = float(case.attrs["softmax_scale"])
    causal = bool(case.attrs["causal"])
    block_size, num_kv_heads = k_cache.shape[1], k_cache.shape[2]
    group = q.shape[1] // num_kv_heads
    out = np.zeros_like(q)
    for s, seq_len in enumerate(seq_lens):
        positions = np.arange(seq_len)
        blocks = block_table[s, positions // block_size]
        keys = k_cache[blocks, positions % block_size]      # [seq_len, kv_heads, head]
        values = v_cache[blocks, positions % block_size]
        query_len = cu[s + 1] - cu[s]
        for i in range(query_len):
            visible = seq_len - query_len + i + 1 if causal else seq_len
            for h in range(q.shape[1]):
                scores = keys[:visible, h // group] @ q[cu[s] + i, h] * scale
                weights = np.exp(scores - scores.max())
                out[cu[s] + i, h] = weights @ values[:visible, h // group] / weights.sum()
    return out


def main(path):
    with h5py.File(path, "r") as f:
        assert f.attrs["schema"] in (b"kattn-problems", "kattn-problems"), f.attrs["schema"]
        worst = 0.0
        for name, case in f["cases"].items():
            error = np.abs(attention(case) - case["out_ref"][...]).max()
            worst = max(worst, error)
            print(f"{name}: max |numpy - out_ref| = {error:.2e}")
        if worst > 1e-9:
            sys.exit(f"out_ref disagrees with NumPy by {worst:.2e}")


if __name__ == "__main__":
    main(sys.argv[1])
