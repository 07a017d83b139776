"""kattn's paged attention as PyTorch ops: torch.ops.kattn.unified_attention (one call) and
torch.ops.kattn.plan_attention / plan_run (planned once per step, run per layer), built on first
use from kattn_op.cpp against the shared C library libkattn_c.so (docs/torch.md).

    import kattn_torch
    kattn_torch.unified_attention(q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, max_seqlen_q,
                                  max_seqlen_k, block_table, softmax_scale)
    plan = kattn_torch.PagedAttentionPlan(q, k_cache, out, block_table, max_seqlen_q, max_seqlen_k,
                                          softmax_scale)
    plan.run(q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, block_table)  # each layer

KATTN_C_LIBRARY_DIR names the folder of libkattn_c.so (default: build/h100-torch/src of this
repository); KATTN_TORCH_BUILD_DIR where the extension is built (default: torch's cache).
"""
import os
import pathlib

import torch

REPO = pathlib.Path(__file__).resolve().parents[3]
_loaded = False


def load(verbose=False):
    """Builds (first time only) and loads the op into this process; returns the library path."""
    global _loaded
    from torch.utils.cpp_extension import load as load_extension

    default_dir = REPO / "build" / "h100-torch" / "src"
    library_dir = pathlib.Path(os.environ.get("KATTN_C_LIBRARY_DIR", default_dir)).resolve()
    if not (library_dir / "libkattn_c.so").is_file():
        raise FileNotFoundError(f"no libkattn_c.so in {library_dir}: build it (docs/torch.md) "
                                "or set KATTN_C_LIBRARY_DIR")
    build_dir = os.environ.get("KATTN_TORCH_BUILD_DIR")
    if build_dir:
        os.makedirs(build_dir, exist_ok=True)
    path = load_extension(
        name="kattn_torch_op",
        sources=[str(pathlib.Path(__file__).with_name("kattn_op.cpp"))],
        extra_include_paths=[str(REPO / "src")],
        # rpath: the op finds libkattn_c.so where it was built against, without LD_LIBRARY_PATH.
        # --exclude-libs: a toolchain that links its C++ runtime statically into the op (the H100
        # machine's does) would otherwise export that copy, and libkattn_c.so's calls into the
        # C++ runtime would bind to it instead of libstdc++.so (a crash inside Kokkos::initialize).
        extra_ldflags=[f"-L{library_dir}", "-lkattn_c", f"-Wl,-rpath,{library_dir}", "-Wl,--exclude-libs,ALL"],
        build_directory=build_dir,
        with_cuda=True,
        is_python_module=False,  # the library registers torch.ops.kattn; no Python module of its own
        verbose=verbose)
    _loaded = True
    return path


def unified_attention(q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, max_seqlen_q, max_seqlen_k, block_table,
                      softmax_scale, **options):
    """out = attention(q, paged K/V) on torch's current stream; options: causal, window_left, softcap,
    alibi_slopes, sinks, k_descale, v_descale, check_values (the op's schema, docs/torch.md)."""
    if not _loaded:
        load()
    torch.ops.kattn.unified_attention(q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, max_seqlen_q, max_seqlen_k,
                                      block_table, softmax_scale, **options)


class PagedAttentionPlan:
    """The launches of a step's attention, planned once and run per layer: run() only checks the
    tensors' shapes on the host and queues kernels on torch's current stream (no allocation, no
    sync), so torch.cuda.graph can capture it, and a replay reads the captured tensors' contents.

    q, k_cache, out, block_table: tensors of the step's shapes, dtypes and strides (values not read).
    max_seqlen_q, max_seqlen_k: bounds on the query and sequence lengths of every batch it serves.
    cu_seqlens_q_cpu, seq_lens_cpu: optional CPU int32 copies of one batch's index tensors: the plan
    is then fitted to that batch and serves batches with its query lengths and no longer sequences.
    The scalars (softmax_scale, causal, window_left, softcap, k_descale, v_descale) are fixed.
    Keep the plan alive while a graph that captured its runs may replay (it owns their workspace)."""

    def __init__(self, q, k_cache, out, block_table, max_seqlen_q, max_seqlen_k, softmax_scale, *, causal=True,
                 window_left=-1, softcap=0.0, k_descale=1.0, v_descale=1.0, cu_seqlens_q_cpu=None, seq_lens_cpu=None):
        if not _loaded:
            load()
        self._plan = torch.ops.kattn.plan_attention(q, k_cache, out, block_table, max_seqlen_q, max_seqlen_k,
                                                    softmax_scale, causal, window_left, softcap, k_descale, v_descale,
                                                    cu_seqlens_q_cpu, seq_lens_cpu)

    def run(self, q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, block_table, alibi_slopes=None, sinks=None):
        """out = attention(q, paged K/V) on torch's current stream, for a batch within the plan's bounds."""
        torch.ops.kattn.plan_run(self._plan, q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, block_table,
                                 alibi_slopes, sinks)
