"""Cast-then-gather spellings (CL003) next to gather-then-cast."""

import torch


class GatherAttention:
    def __init__(self, cache_engine, dtype=torch.float16):
        self.gpu_cache = cache_engine.gpu_cache
        self.dtype = dtype

    def forward(self, query, key, value, attn_metadata, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        blocks = attn_metadata.block_offsets.flatten()
        k1 = k_cache.type(torch.float16)[blocks]  # positive: f5 CL003 .type() of the whole cache, then block gather
        v1 = v_cache.to(self.dtype)[blocks, :, :]  # positive: f5 CL003 cast then multi-axis index with the block list
        idx = blocks.view(-1, 1, 1, 1).expand(-1, *k_cache.shape[1:])
        k2 = k_cache.float().gather(0, idx)  # positive: f5 CL003 cast then Tensor.gather method
        v2 = torch.index_select(v_cache.half(), 0, blocks)  # positive: f5 CL003 torch.index_select of a cast
        k3 = k_cache[blocks].to(self.dtype)  # negative: gather-then-cast
        v3 = v_cache.index_select(0, blocks).float()  # negative: gather-then-cast
        k4 = torch.gather(k_cache, 0, idx).to(self.dtype)  # negative: gather-then-cast
        return torch.ops.lmdeploy.ref_attn(query, k1, v1, k2, v2, k3, v3, k4)

    def forward_lookalikes(self, query, attn_metadata, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        blocks = attn_metadata.block_offsets.flatten()
        kb = k_cache.view(torch.uint8)[blocks]  # negative: reinterpret then gather, no conversion
        vb = v_cache[blocks].view(torch.int8)  # negative: gather then reinterpret
        kd = k_cache.to(query.device)[blocks]  # negative: device-only .to, then gather
        return torch.ops.lmdeploy.ref_attn(query, kb, vb, kd)
