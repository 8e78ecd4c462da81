import torch


class DecodeCheckpointer:
    """PD migration fallback: ships every FP8 layer as bf16 on each decode step."""

    def __init__(self, token_to_kv_pool, start_layer, end_layer):
        self.pool = token_to_kv_pool
        self.layers = range(start_layer, end_layer)

    def fp8_layers(self):
        return {
            lid: self.pool.get_key_buffer(lid)
            for lid in self.layers
            if self.pool.get_key_buffer(lid).dtype in (torch.float8_e4m3fn, torch.float8_e5m2)
        }

    def step(self, forward_batch):
        wide = {lid: buf.to(torch.bfloat16) for lid, buf in self.fp8_layers().items()}  # positive: f3 CL001 each whole fp8 layer from the dict
        loc = forward_batch.out_cache_loc
        rows = {lid: buf[loc].to(torch.bfloat16) for lid, buf in self.fp8_layers().items()}  # negative: rows first
        return wide, rows
