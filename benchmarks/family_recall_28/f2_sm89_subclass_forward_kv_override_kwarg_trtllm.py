"""TensorRT-LLM Ada (SM89) attention subclass: widens the layer buffer and hands it to the base forward by keyword."""
import torch


class VanillaAttention:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, kv_override=None, **kwargs):
        buf = kv_override if kv_override is not None else metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return self._sdpa(q, k, v, buf, metadata)

    def _sdpa(self, q, k, v, buf, metadata):
        return torch.ops.trtllm.vanilla_paged_sdpa(q, k, v, buf, metadata.kv_cache_block_offsets)


class SM89VanillaAttention(VanillaAttention):
    def forward(self, q, k, v, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        if mgr.dtype == torch.float8_e4m3fn:
            dense = mgr.get_buffers(self.layer_idx).to(torch.bfloat16)  # positive: f2 CL001 whole layer buffer handed to the base as kv_override
            k = k.to(torch.bfloat16)  # negative: new tokens
            return super().forward(q, k, v, metadata, kv_override=dense, **kwargs)
        return super().forward(q, k, v, metadata, **kwargs)
