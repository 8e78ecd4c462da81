import torch

from .config import KVConfig


class ConfiguredPool:
    def __init__(self, cfg: KVConfig):
        self.latent = [torch.empty(cfg.size, 1, 576, dtype=cfg.store_dtype) for _ in range(cfg.layers)]
        self.seq_lens = torch.zeros(cfg.max_reqs, dtype=torch.int32)


def build_pool(cfg: KVConfig) -> ConfiguredPool:
    return ConfiguredPool(cfg)
