import torch

from .registry import build_pool


class RegistryBackend:
    def __init__(self, model_runner):
        self.pool = build_pool("mla", model_runner.max_tokens, model_runner.num_layers, torch.float8_e4m3fn, "cuda")
        self.dtype = model_runner.dtype

    def forward_decode(self, q, layer, forward_batch):
        dense = self.pool.latent_slab(layer.layer_id).to(self.dtype)  # positive: f7 CL001 accessor of a pool built through the registry
        rows = self.pool.latent_rows(layer.layer_id, forward_batch.out_cache_loc).to(self.dtype)  # negative: gathered rows
        return dense, rows
