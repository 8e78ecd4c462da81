"""sglang EAGLE draft: the target MLA pool is called, pool(layer_id), and its __call__ widens the whole layer (CL004)."""
import torch


class Fp8MLATokenToKVPool:
    def __init__(self, size, dtype, model_dtype, layer_num, device):
        self.dtype = dtype
        self.store_dtype = torch.uint8
        self.model_dtype = model_dtype
        self.kv_buffer = [torch.zeros((size + 1, 1, 576), dtype=self.store_dtype, device=device) for _ in range(layer_num)]  # negative: allocation

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id].view(self.dtype)  # negative: view(dtype) reinterpret only

    def __call__(self, layer_id):
        return self.kv_buffer[layer_id].view(self.dtype).to(self.model_dtype)  # positive: f6 CL004 the pool's own accessor widens the whole layer


class EagleDraftMLABackend:
    def __init__(self, target_pool):
        self.target_pool = target_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.target_pool(layer.layer_id)
        rows = self.target_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        return q, kv, rows.to(q.dtype)  # negative: row gather before the cast
