"""An lmdeploy-style cache engine with int8/fp8 caches and a dequantizing accessor."""
import torch


class QuantCacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, num_heads, head_size, device, compute_dtype=torch.float16):
        shape = (num_blocks, block_size, num_heads, head_size)
        self.compute_dtype = compute_dtype
        self.k_caches = [torch.empty(shape, dtype=torch.float8_e4m3fn, device=device) for _ in range(num_layers)]
        self.v_caches = [torch.empty(shape, dtype=torch.float8_e4m3fn, device=device) for _ in range(num_layers)]
        self.k_scales = [torch.ones(num_heads, dtype=torch.float32, device=device) for _ in range(num_layers)]
        self._warm = self.k_caches[0].to(compute_dtype)  # negative: __init__-time conversion

    def get_dequant_k(self, layer_idx: int):
        return self.k_caches[layer_idx].to(self.compute_dtype) * self.k_scales[layer_idx].view(1, 1, -1, 1)  # positive: f6 CL004 accessor dequantizes the whole per-layer k cache

    def get_raw_v(self, layer_idx: int):
        return self.v_caches[layer_idx].view(torch.uint8)  # negative: view reinterpret

    def get_v(self, layer_idx: int):
        return self.v_caches[layer_idx]

    def get_k_scale(self, layer_idx: int):
        return self.k_scales[layer_idx].to(self.compute_dtype)  # negative: scale vector


class DequantAttention:
    def __init__(self, engine: QuantCacheEngine, layer_idx: int):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, **kwargs):
        kc = self.engine.get_dequant_k(self.layer_idx)
        vc = self.engine.get_v(self.layer_idx).to(query.dtype)  # positive: f6 CL001 engine accessor returns the whole v cache
        raw = self.engine.get_raw_v(self.layer_idx)
        used = raw[attn_metadata.block_offsets[0]].view(torch.float8_e4m3fn).to(query.dtype)  # negative: gathered blocks
        return self._paged(query, kc, vc, used)

    def _paged(self, q, *tensors):
        return torch.empty_like(q)
