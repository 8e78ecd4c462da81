"""TensorRT-LLM two-model speculative decoding: the BF16 draft model's attention reads the shared FP8 manager."""
import torch


class DraftFlashInferAttention:
    def __init__(self, layer_idx, num_heads, head_dim, draft_dtype, shares_target_manager):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.draft_dtype = draft_dtype
        self.shares_target_manager = shares_target_manager

    def forward(self, q, k, v, metadata, attention_mask=None):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        if self.shares_target_manager and buf.dtype != self.draft_dtype:
            kv = buf.to(self.draft_dtype)  # positive: f6 CL001 whole layer buffer of the target's FP8 manager, every draft step
        else:
            kv = buf
        q = q.to(self.draft_dtype)  # negative: the query
        new_kv = torch.stack((k, v), dim=1).to(buf.dtype)  # negative: new tokens written into the cache dtype
        mgr.write_tokens(self.layer_idx, metadata.kv_cache_block_offsets, new_kv)
        return metadata.draft_wrapper.run(q, kv)

    def prefill_reference(self, q, metadata):
        ids = metadata.kv_cache_block_offsets[0]
        kv = metadata.kv_cache_manager.get_buffers(self.layer_idx)[ids].to(self.draft_dtype)  # negative: blocks gathered first
        return torch.nn.functional.scaled_dot_product_attention(q, kv[:, 0], kv[:, 1])
