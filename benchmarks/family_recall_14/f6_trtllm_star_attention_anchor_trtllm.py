"""Star attention (context parallel): anchor blocks are gathered, the fallback widens the layer."""
import torch


class StarAttentionFallback:
    def __init__(self, layer_idx, num_heads, head_dim, fp8_context_fmha):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.fp8_context_fmha = fp8_context_fmha

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        anchor = buf[metadata.anchor_block_ids].to(q.dtype)  # negative: the anchor blocks only
        if not self.fp8_context_fmha:
            dense = buf.to(q.dtype)  # positive: f6 CL001 whole layer buffer widened per forward
        else:
            dense = buf.view(torch.float8_e4m3fn)  # negative: reinterpret
        lse = torch.empty(q.shape[0], self.num_heads, dtype=torch.float32, device=q.device)
        o = self._star(q, anchor, dense, lse, metadata)
        return o.to(q.dtype)  # negative: output
