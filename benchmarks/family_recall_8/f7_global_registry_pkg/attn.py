import torch

from . import registry


class RegistryBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = registry.lookup("kv").get_key_buffer(layer.layer_id)
        up = buf.to(q.dtype)  # positive: f7 CL001 pool fetched from a module-level registry filled by runner.py
        lens = registry.lookup("req_lens").to(torch.int64)  # negative: per-request lengths
        return up, lens
