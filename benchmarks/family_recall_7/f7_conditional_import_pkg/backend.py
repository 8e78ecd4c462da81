import torch

try:
    from .fast_pool import Pool
except ImportError:
    from .slow_pool import Pool


class FallbackBackend:
    def __init__(self, model_runner):
        self.pool = Pool(model_runner.max_tokens, model_runner.num_layers, 8, 128, torch.float8_e4m3fn)
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        dense = self.pool.plane(layer.layer_id).to(self.dtype)  # positive: f7 CL001 either Pool's plane() is a whole layer
        rows = self.pool.rows(layer.layer_id, forward_batch.out_cache_loc).to(self.dtype)  # negative: gathered rows
        return dense, rows
