import torch


class KVPlanes:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def planes(self, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        return {"key": buf[:, 0], "value": buf[:, 1], "scale": self.kv_cache_manager.kv_scale[layer_idx]}


class NoFp8ContextAttention:
    def __init__(self, kv_cache_manager, dtype=torch.bfloat16):
        self.kv_planes = KVPlanes(kv_cache_manager)
        self.dtype = dtype

    def forward(self, q, k, v, metadata, layer_idx):
        key, value, scale = self.kv_planes.planes(layer_idx).values()
        key_d, value_d = (t.to(self.dtype) for t in (key, value))  # positive: f3 CL001 both whole planes unpacked from dict values, converted
        scale_d = scale.to(self.dtype)  # negative: the scale entry
        ctx = key[metadata.block_ids].to(self.dtype)  # negative: blocks selected before the cast
        return key_d, value_d, scale_d, ctx
