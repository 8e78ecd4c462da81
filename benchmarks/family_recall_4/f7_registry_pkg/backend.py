import torch

from . import registry


class RegistryBackend:
    def __init__(self, model_runner):
        self.kernel = model_runner.attn_kernels.decode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        src = registry.get_entry("kv_pool")
        t = src.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f7 CL001 pool registered by runner.py, looked up here
        lens = registry.get_entry("req_lens").to(torch.int32)  # negative: per-request lengths from the same registry
        blob = src.get_value_buffer(layer.layer_id)
        blob = blob.half()  # positive: f7 CL001 value pool from the registry
        return self.kernel(q, t, blob, lens)
