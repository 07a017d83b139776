"""Paged batches in vLLM's layout as torch tensors, and a dense PyTorch reference for them."""
import math
from dataclasses import dataclass

import torch


@dataclass
class PagedBatch:
    q: torch.Tensor             # [num_tokens, num_q_heads, head_size]
    k_cache: torch.Tensor       # [num_blocks, block_size, num_kv_heads, head_size]
    v_cache: torch.Tensor
    cu_seqlens_q: torch.Tensor  # int32 [num_seqs + 1]
    seq_lens: torch.Tensor      # int32 [num_seqs]: context + query length
    block_table: torch.Tensor   # int32 [num_seqs, max_blocks_per_seq]
    query_lens: list
    seq_lens_list: list

    def op_args(self, out):
        """The op's arguments from q to block_table, in its (vLLM's) order."""
        return (self.q, self.k_cache, self.v_cache, out, self.cu_seqlens_q, self.seq_lens, max(self.query_lens),
                max(self.seq_lens_list), self.block_table)

    def write_step(self, query_lens, seq_lens):
        """A new step written into these tensors in place, as a server fills the inputs of a captured
        graph: other query and sequence lengths (same token and sequence counts, blocks within the
        cache and the table's width), a new block table, new q, K and V values."""
        num_blocks, block_size = self.k_cache.shape[:2]
        assert sum(query_lens) == self.q.shape[0] and len(seq_lens) == self.seq_lens.numel()
        self.block_table.copy_(block_table(seq_lens, block_size, num_blocks, self.block_table.shape[1]))
        self.cu_seqlens_q.copy_(cu_seqlens(query_lens))
        self.seq_lens.copy_(torch.tensor(seq_lens, dtype=torch.int32))
        self.q.uniform_(-2.0, 2.0)
        self.k_cache.uniform_(-1.0, 1.0)
        self.v_cache.uniform_(-1.0, 1.0)
        self.query_lens, self.seq_lens_list = list(query_lens), list(seq_lens)


def block_table(seq_lens, block_size, num_blocks, width, permute_blocks=True):
    """int32 [len(seq_lens), width] on the CPU: each sequence's blocks, ids a random permutation of
    the cache's blocks (a fragmented cache) or in order; rows padded with 0, as vLLM pads them."""
    blocks_per_seq = [math.ceil(s / block_size) for s in seq_lens]
    assert sum(blocks_per_seq) <= num_blocks and max(blocks_per_seq) <= width, "the blocks do not fit"
    ids = torch.randperm(num_blocks) if permute_blocks else torch.arange(num_blocks)
    table = torch.zeros(len(seq_lens), width, dtype=torch.int32)
    used = 0
    for s, n in enumerate(blocks_per_seq):
        table[s, :n] = ids[used:used + n]
        used += n
    return table


def cu_seqlens(query_lens):
    """int32 [len(query_lens) + 1] on the CPU: 0, then the running sums of the query lengths."""
    return torch.tensor([0] + list(query_lens), dtype=torch.int32).cumsum(0, dtype=torch.int32)


def make_batch(query_lens, seq_lens, dtype, num_q_heads=32, num_kv_heads=8, head_size=128, block_size=16,
               permute_blocks=True, fused_kv=False, device="cuda"):
    """q uniform in [-2, 2), K and V in [-1, 1) (as kattn's generator), one spare block, block ids a random
    permutation (a fragmented cache). fused_kv: K and V are slices of one [num_blocks, 2, ...] tensor."""
    assert all(0 < q <= s for q, s in zip(query_lens, seq_lens)), "each sequence needs 1 <= query_len <= seq_len"
    blocks_per_seq = [math.ceil(s / block_size) for s in seq_lens]
    num_blocks = sum(blocks_per_seq) + 1
    table = block_table(seq_lens, block_size, num_blocks, max(blocks_per_seq), permute_blocks)

    def uniform(shape, bound):
        return torch.empty(shape, dtype=dtype, device=device).uniform_(-bound, bound)

    cache_shape = (num_blocks, block_size, num_kv_heads, head_size)
    if fused_kv:
        kv = uniform((num_blocks, 2) + cache_shape[1:], 1.0)
        k_cache, v_cache = kv[:, 0], kv[:, 1]
    else:
        k_cache, v_cache = uniform(cache_shape, 1.0), uniform(cache_shape, 1.0)
    return PagedBatch(q=uniform((sum(query_lens), num_q_heads, head_size), 2.0), k_cache=k_cache, v_cache=v_cache,
                      cu_seqlens_q=cu_seqlens(query_lens).to(device),
                      seq_lens=torch.tensor(seq_lens, dtype=torch.int32, device=device),
                      block_table=table.to(device), query_lens=list(query_lens), seq_lens_list=list(seq_lens))


def reference(batch, softmax_scale, window_left=-1, softcap=0.0, alibi_slopes=None, sinks=None):
    """Dense fp32 attention, causal by absolute position (context + index), gathering K/V through the
    block table; the feature conventions of kattn's oracle (src/kattn/oracle/oracle.cpp) with vLLM's
    ALiBi origin, as the op takes: slope * (key - context length), context length = seq_len - query_len."""
    q, k_cache, v_cache = batch.q, batch.k_cache, batch.v_cache
    heads, block_size = q.shape[1], k_cache.shape[1]
    group = heads // k_cache.shape[2]
    out = torch.zeros(q.shape, dtype=torch.float32, device=q.device)
    start = 0
    for s, (query_len, seq_len) in enumerate(zip(batch.query_lens, batch.seq_lens_list)):
        blocks = batch.block_table[s, :math.ceil(seq_len / block_size)].long()

        def gather(cache):  # [seq_len, heads, head_size], kv heads repeated for their query heads
            return cache[blocks].flatten(0, 1)[:seq_len].float().repeat_interleave(group, dim=1)

        k, v = gather(k_cache), gather(v_cache)
        scores = torch.einsum("qhd,khd->hqk", q[start:start + query_len].float(), k) * softmax_scale
        if softcap > 0:
            scores = softcap * torch.tanh(scores / softcap)
        context_len = seq_len - query_len
        position = (context_len + torch.arange(query_len, device=q.device))[:, None]
        key = torch.arange(seq_len, device=q.device)[None, :]
        if alibi_slopes is not None:
            scores = scores + alibi_slopes[:, None, None] * (key - context_len)[None]
        visible = key <= position
        if window_left >= 0:
            visible &= position - key <= window_left
        scores = scores.masked_fill(~visible[None], float("-inf"))
        if sinks is not None:  # one more logit per head in the denominator, with no value
            scores = torch.cat([scores, sinks[:, None, None].expand(heads, query_len, 1)], dim=-1)
        weights = torch.softmax(scores, dim=-1)[..., :seq_len]
        out[start:start + query_len] = torch.einsum("hqk,khd->qhd", weights, v)
        start += query_len
    return out
