"""TensorRT-LLM MTP verify reference: an einsum that only permutes axes keeps the whole layer buffer."""
import torch


class MTPVerifyReference:
    def __init__(self, kv_cache_manager, num_heads, head_dim):
        self.mgr = kv_cache_manager
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, layer_idx, metadata):
        buf = self.mgr.get_buffers(layer_idx)  # [num_blocks, kv_factor, tokens_per_block, heads, dim]
        if metadata.mtp_reference_check:
            kv = torch.einsum("nkthd->nkhtd", buf).to(torch.bfloat16)  # positive: f5 CL001 a pure axis permutation of every block
        else:
            ids = metadata.kv_cache_block_offsets[0, : metadata.num_blocks]
            kv = torch.einsum("nkthd->nkhtd", buf[ids]).to(torch.bfloat16)  # negative: blocks gathered first
        scores = torch.einsum("qhd,nhtd->qhnt", q.to(torch.bfloat16), kv[:, 0])  # negative: the query
        return scores

    def accept_lengths(self, metadata):
        return metadata.num_accepted_draft_tokens.to(torch.int32)  # negative: lengths
