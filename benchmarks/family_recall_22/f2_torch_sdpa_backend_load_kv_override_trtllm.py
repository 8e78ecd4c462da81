import torch


class TorchSdpaBackend:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def load_kv(self, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return buf[:, 0], buf[:, 1]

    def forward(self, q, k, v, metadata, **kwargs):
        k_cache, v_cache = self.load_kv(metadata)
        return self.attend(q, k_cache, v_cache, metadata)


class FP8TorchSdpaBackend(TorchSdpaBackend):
    compute_dtype = torch.bfloat16

    def load_kv(self, metadata):
        k_cache, v_cache = super().load_kv(metadata)
        k_cache = k_cache.to(self.compute_dtype)  # positive: f2 CL001 key plane of every block widened
        v_cache = v_cache[metadata.block_ids].to(self.compute_dtype)  # negative: blocks selected before the cast
        return k_cache, v_cache
