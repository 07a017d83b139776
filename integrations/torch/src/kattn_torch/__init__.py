"""kattn's paged attention for PyTorch (docs/torch.md).

    pip install --no-build-isolation integrations/torch     # builds the ops against libkattn_c.so

    from kattn_torch import unified_attention               # vLLM's signature: swap one import
    unified_attention(q=q, k=k_cache, v=v_cache, out=out, cu_seqlens_q=cu_seqlens_q, max_seqlen_q=max_seqlen_q,
                      seqused_k=seq_lens, max_seqlen_k=max_seqlen_k, softmax_scale=scale, causal=True,
                      window_size=(-1, -1), block_table=block_table, softcap=0, q_descale=None,
                      k_descale=None, v_descale=None)

    plan = kattn_torch.PagedAttentionPlan(q, k_cache, out, block_table, max_seqlen_q, max_seqlen_k, scale)
    plan.run(q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, block_table)  # each layer; graph-capturable

Importing the package loads the compiled ops (torch.ops.kattn.unified_attention, plan_attention,
plan_run) and registers their fake implementations for torch.compile and torch.library.opcheck.
"""
import pathlib

import torch

_package = pathlib.Path(__file__).resolve().parent
_libraries = sorted(_package.glob("_ops*.so"))
if not _libraries:
    raise ImportError(f"kattn_torch: no compiled ops (_ops*.so) in {_package}: install the package with "
                      "`pip install --no-build-isolation integrations/torch` (docs/torch.md)")
torch.ops.load_library(str(_libraries[0]))
library_path = str(_libraries[0])


@torch.library.register_fake("kattn::unified_attention")
def _unified_attention_fake(q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, max_seqlen_q, max_seqlen_k,
                            block_table, softmax_scale, causal=True, window_left=-1, softcap=0.0, alibi_slopes=None,
                            sinks=None, k_descale=1.0, v_descale=1.0, output_scale=1.0, check_values=True):
    """Writes out in place and returns nothing: no tensor for tracing to make."""
    return None


def _first_value(scale, name):
    """A per-tensor scale as a float: vLLM's kernel loads the first element of its scale tensors
    (a CUDA tensor is read once here, a host sync; pass CPU tensors or floats inside graph capture)."""
    if scale is None:
        return 1.0
    if isinstance(scale, torch.Tensor):
        if scale.numel() == 0:
            raise ValueError(f"kattn: {name} is an empty tensor")
        return float(scale.reshape(-1)[0].item())
    return float(scale)


def _kv_quant_mode_name(mode):
    """vLLM's KVQuantMode (an enum), its integer value, or None: 'NONE', 'FP8_PER_TENSOR', or another name."""
    if mode is None:
        return None
    name = getattr(mode, "name", None)
    if name is not None:
        return name
    return {0: "NONE", 1: "FP8_PER_TENSOR"}.get(int(mode), f"KVQuantMode({int(mode)})")


def unified_attention(q, k, v, out, cu_seqlens_q, max_seqlen_q, seqused_k, max_seqlen_k, softmax_scale, causal,
                      window_size, block_table, softcap, q_descale, k_descale, v_descale, seq_threshold_3D=None,
                      num_par_softmax_segments=None, softmax_segm_output=None, softmax_segm_max=None,
                      softmax_segm_expsum=None, alibi_slopes=None, output_scale=None, qq_bias=None, sinks=None,
                      mm_prefix_range=None, use_alibi_sqrt=False, kv_quant_mode=None, k_scale_cache=None,
                      v_scale_cache=None):
    """vLLM's unified_attention (vllm/v1/attention/ops/triton_unified_attention.py), same arguments and
    meaning, on kattn: out = attention(q, paged K/V) on torch's current stream, with vLLM's check-free
    mode (index values are the caller's promise, not checked). A batch of decodes (max_seqlen_q 1) is
    planned from the bounds and only launches kernels (capturable in a CUDA graph after a warm-up
    call); other batches reduce their lengths on the device and read the totals back.

    seq_threshold_3D, num_par_softmax_segments and the softmax_segm_* buffers size vLLM's own split
    of long decodes: kattn plans its split and workspace itself, so they are accepted and not used.
    k_descale, v_descale, output_scale: per-tensor scales, the first element of a tensor as vLLM's
    kernel reads them. kv_quant_mode: vLLM's KVQuantMode; NONE or FP8_PER_TENSOR (None: the
    caches' dtype decides, fp8 caches are scaled). Anything kattn cannot serve raises
    NotImplementedError naming the argument, and leaves out untouched."""
    unsupported = {"q_descale": q_descale is not None, "qq_bias": qq_bias is not None,
                   "mm_prefix_range": mm_prefix_range is not None, "use_alibi_sqrt": bool(use_alibi_sqrt),
                   "k_scale_cache": k_scale_cache is not None, "v_scale_cache": v_scale_cache is not None}
    for name, given in unsupported.items():
        if given:
            raise NotImplementedError(f"kattn: unified_attention does not support {name} (vLLM's default: "
                                      f"{'False' if name == 'use_alibi_sqrt' else 'None'})")
    mode = _kv_quant_mode_name(kv_quant_mode)
    if mode not in (None, "NONE", "FP8_PER_TENSOR"):
        raise NotImplementedError(f"kattn: kv_quant_mode {mode} is not supported (NONE or FP8_PER_TENSOR)")
    window_left, window_right = (int(w) for w in window_size)
    if window_right not in (-1, 0):
        raise NotImplementedError(f"kattn: window_size[1] = {window_right}: only -1 or 0 (causal)")
    scaled = mode == "FP8_PER_TENSOR" or (mode is None and k.dtype == torch.float8_e4m3fn)
    k_scale = _first_value(k_descale, "k_descale") if scaled else 1.0
    v_scale = _first_value(v_descale, "v_descale") if scaled else 1.0
    torch.ops.kattn.unified_attention(q, k, v, out, cu_seqlens_q, seqused_k, max_seqlen_q, max_seqlen_k, block_table,
                                      softmax_scale, causal=bool(causal), window_left=window_left,
                                      softcap=float(softcap), alibi_slopes=alibi_slopes, sinks=sinks,
                                      k_descale=k_scale, v_descale=v_scale,
                                      output_scale=_first_value(output_scale, "output_scale"), check_values=False)


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
        self._plan = torch.ops.kattn.plan_attention(q, k_cache, out, block_table, max_seqlen_q, max_seqlen_k,
                                                    softmax_scale, causal, window_left, softcap, k_descale, v_descale,
                                                    cu_seqlens_q_cpu, seq_lens_cpu)

    def run(self, q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, block_table, alibi_slopes=None, sinks=None):
        """out = attention(q, paged K/V) on torch's current stream, for a batch within the plan's bounds."""
        torch.ops.kattn.plan_run(self._plan, q, k_cache, v_cache, out, cu_seqlens_q, seq_lens, block_table,
                                 alibi_slopes, sinks)
