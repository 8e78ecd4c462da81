"""Decode module using the latent pool from latent_pool.py."""
import torch

from sglang.srt.layers.quantization.fp8_kernel import dequantize_kv_tensor

from .latent_pool import LatentTokenPool


class LatentDecode:
    def __init__(self, pool: LatentTokenPool):
        self.pool = pool

    def decode(self, q, layer_id, kv_indices):
        latent = self.pool.get_latent(layer_id)
        deq = dequantize_kv_tensor(latent, self.pool.get_latent_scale(layer_id), q.dtype)  # positive: f7 CL004 dequant of an imported pool's whole layer
        picked = latent.to(q.dtype)[kv_indices]  # positive: f7 CL003 cast before gather on an imported pool's layer
        ok = latent[kv_indices].to(q.dtype)  # negative: gather then cast
        return deq, picked, ok
