"""A fallback attention that keeps its KV cache manager behind weakref.proxy (unusual)."""
import weakref

import torch


class VanillaFallbackAttention:
    def __init__(self, layer_idx, kv_cache_manager, num_heads, head_dim):
        self.layer_idx = layer_idx
        self._mgr = weakref.proxy(kv_cache_manager)
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, attention_mask=None, **kwargs):
        buf = self._mgr.get_buffers(self.layer_idx)
        if metadata.is_cuda_graph:
            block_ids = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
            dense = buf[block_ids].float()  # negative: only the batch's blocks
        else:
            dense = buf.float()  # positive: f1 CL001 whole layer buffer of the proxied manager
        k_cache, v_cache = dense.unbind(1)
        scale = torch.tensor(self.head_dim**-0.5).to(q.dtype)  # negative: a scalar
        out = torch.nn.functional.scaled_dot_product_attention(q.float(), k_cache, v_cache, scale=scale)  # negative: q is the step's queries
        return out.to(q.dtype)  # negative: attention output
