import torch

from .config import KVConfig
from .pool import build_pool


class ConfiguredBackend:
    def __init__(self, cfg: KVConfig):
        self.cfg = cfg
        self.pool = build_pool(cfg)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool.latent[layer.layer_id].to(self.cfg.compute_dtype)  # positive: f7 CL001 layer of a pool built from the config
        lens = self.pool.seq_lens.to(torch.int64)  # negative: lengths
        return lat, lens
