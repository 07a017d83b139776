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
    window = int(case.attrs.get("window_left", -1))
    softcap = float(case.attrs.get("softcap", 0.0))
    alibi = case["alibi_slopes"][...] if "alibi_slopes" in case else None
    alibi_from_context = case.attrs.get("alibi_origin", b"") in (b"context_length", "context_length")
    sinks = case["sinks"][...] if "sinks" in case else None
    prefix = case["prefix_lens"][...] if "prefix_lens" in case else None
    qq_bias = case["qq_bias"][...] if "qq_bias" in case else None
    k_scale = float(case.attrs.get("k_scale", 1.0))
    v_scale = float(case.attrs.get("v_scale", 1.0))
    out_scale = float(case.attrs.get("out_scale", 1.0))
    fp8_out = case.attrs.get("out_dtype", b"") in (b"fp8_e4m3", "fp8_e4m3")
    block_size, num_kv_heads = k_cache.shape[1], k_cache.shape[2]
    group = q.shape[1] // num_kv_heads
    out = np.zeros_like(q)
    for s, seq_len in enumerate(seq_lens):
        positions = np.arange(seq_len)
        blocks = block_table[s, positions // block_size]
        keys = k_cache[blocks, positions % block_size]      # [seq_len, kv_heads, head]
        values = v_cache[blocks, positions % block_size]
        query_len = cu[s + 1] - cu[s]
        context = seq_len - query_len
        for i in range(query_len):
            position = context + i
            alibi_origin = context if alibi_from_context else position
            mask = np.ones(seq_len, dtype=bool)
            if causal:
                mask &= (positions <= position) | (positions < (prefix[s] if prefix is not None else 0))
            if window >= 0:
                mask &= position - positions <= window
            for h in range(q.shape[1]):
                scores = keys[:, h // group] @ q[cu[s] + i, h] * scale * k_scale
                if softcap > 0:
                    scores = softcap * np.tanh(scores / softcap)
                if alibi is not None:
                    scores = scores + alibi[h] * (positions - alibi_origin)
                if qq_bias is not None:
                    new = positions >= context
                    scores[new] += qq_bias[i, positions[new] - context]
                scores = np.where(mask, scores, -np.inf)
                top = max(scores.max(), sinks[h] if sinks is not None else -np.inf)
                weights = np.exp(scores - top)
                total = weights.sum() + (np.exp(sinks[h] - top) if sinks is not None else 0.0)
                out[cu[s] + i, h] = weights @ values[:, h // group] * v_scale / total
    return np.clip(out / out_scale, -448.0, 448.0) if fp8_out else out


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
