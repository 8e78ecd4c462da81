"""TensorRT-LLM-style attention keeping pool planes in a SimpleNamespace."""

from types import SimpleNamespace

import torch


class NamespaceAttention:
    def __init__(self, kv_cache_manager, layer_idx, num_tokens_hint=128):
        pools = kv_cache_manager.get_buffers(layer_idx)
        self.res = SimpleNamespace(
            primary=pools,
            lens=torch.zeros(num_tokens_hint, dtype=torch.int32, device="cuda"),
            scale=torch.ones(1, dtype=torch.float32, device="cuda"),
        )
        self.layer_idx = layer_idx
        self.out_dtype = torch.bfloat16

    def forward(self, q, k, v, attn_metadata):
        blocks = self.res.primary
        up = blocks.to(self.out_dtype)  # positive: f1 CL001 layer buffer from get_buffers held in a SimpleNamespace
        lens = self.res.lens.to(torch.int64)  # negative: per-batch lengths in the same namespace
        sc = self.res.scale.to(self.out_dtype)  # negative: scale
        return self._run(q, up, lens, sc, attn_metadata)

    def _run(self, q, kv, lens, scale, attn_metadata):
        out = torch.empty_like(q)
        torch.ops.trtllm.attention(q, kv, lens, scale, attn_metadata.host_kv_cache_block_offsets, out)
        return out


class LocalNamespaceAttention(NamespaceAttention):
    def forward(self, q, k, v, attn_metadata):
        ns = SimpleNamespace(kv=attn_metadata.kv_cache_manager.get_buffers(self.layer_idx), q=q)
        kv16 = ns.kv.half()  # positive: f1 CL001 get_buffers result carried in a per-call SimpleNamespace
        q16 = ns.q.half()  # negative: batch query in the same namespace
        return self._run(q16, kv16, self.res.lens, self.res.scale, attn_metadata)
