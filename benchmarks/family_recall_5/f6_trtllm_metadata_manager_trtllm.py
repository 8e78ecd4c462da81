"""TensorRT-LLM pytorch-backend style: the manager comes from attn_metadata."""

import torch


class FallbackTrtllmAttention:
    """Eager fallback used when the fused kernel does not support the cache dtype."""

    def __init__(self, layer_idx, num_heads, head_dim, num_kv_heads, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.num_kv_heads = num_kv_heads
        self.dtype = dtype

    def forward(self, q, k, v, metadata, attention_mask=None):
        mgr = metadata.kv_cache_manager
        pool = mgr.get_buffers(self.layer_idx)
        key_pool = pool[:, 0]
        val_pool = pool[:, 1]
        kd = key_pool.to(self.dtype)  # positive: f6 CL001 key half of every block of get_buffers(layer_idx)
        vd = val_pool.to(self.dtype)  # positive: f6 CL001 value half of every block
        offs = metadata.kv_cache_block_offsets[:, : metadata.num_seqs].to(torch.int64)  # negative: block offsets of this batch
        lens = metadata.kv_lens_cuda.to(torch.int32)  # negative: kv lengths
        qd = q.view(-1, self.num_heads, self.head_dim).to(self.dtype)  # negative: batch query
        return self._eager(qd, kd, vd, offs, lens)

    def _eager(self, q, kd, vd, offs, lens):
        return torch.ops.trtllm.eager_paged_attention(q, kd, vd, offs, lens)


class ScratchTrtllmAttention(FallbackTrtllmAttention):
    def forward(self, q, k, v, metadata, attention_mask=None):
        ws = metadata.workspace.to(self.dtype)  # negative: attention workspace, per-step scratch
        blocks = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        pool = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        used = pool[torch.tensor(sum(blocks, []), device=pool.device)].to(self.dtype)  # negative: gather-then-cast of the batch's blocks
        return torch.ops.trtllm.eager_paged_attention(q, used, ws)
