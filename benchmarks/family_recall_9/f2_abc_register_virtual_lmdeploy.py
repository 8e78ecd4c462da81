"""ABC.register marks the paged engine as dense-capable; an isinstance branch picks it."""
import abc

import torch


class DenseCapable(abc.ABC):
    pass


class PagedCacheEngine:
    def __init__(self, num_layers, num_blocks, block_size):
        self.gpu_cache = [(torch.empty(num_blocks, block_size, 8, 128, dtype=torch.float8_e4m3fn),) * 2 for _ in range(num_layers)]

    def layer(self, idx):
        return self.gpu_cache[idx]


class StagingRows:
    def __init__(self, num_layers):
        self.rows = [(torch.empty(64, 8, 128), torch.empty(64, 8, 128)) for _ in range(num_layers)]
        self.n = 0

    def layer(self, idx):
        k, v = self.rows[idx]
        return k[: self.n], v[: self.n]


DenseCapable.register(PagedCacheEngine)


class VirtualAttention:
    def __init__(self, cfg, layer_idx):
        self.engines = [PagedCacheEngine(cfg.num_layers, cfg.num_blocks, cfg.block_size), StagingRows(cfg.num_layers)]
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        out = []
        for eng in self.engines:
            if isinstance(eng, DenseCapable):
                k_c, v_c = eng.layer(self.layer_idx)
                out.append(k_c.to(query.dtype))  # positive: f2 CL001 K cache of the registered paged engine
            else:
                k_r, v_r = eng.layer(self.layer_idx)
                out.append(k_r.to(query.dtype))  # negative: staged rows of this step
        return out
