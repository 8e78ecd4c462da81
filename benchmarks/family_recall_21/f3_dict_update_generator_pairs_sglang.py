import torch


class LayerSnapshotCollector:
    """Collects (layer_id -> key buffer) for the layers a debug request asked for."""

    def __init__(self, token_to_kv_pool, layer_ids):
        self.pool = token_to_kv_pool
        self.layer_ids = tuple(layer_ids)
        self.snap = {}

    def forward(self, forward_batch):
        self.snap.clear()
        self.snap.update((lid, self.pool.get_key_buffer(lid)) for lid in self.layer_ids)
        self.snap.update(((lid, "v"), self.pool.get_value_buffer(lid)) for lid in self.layer_ids)
        dumped = {}
        for key, buf in self.snap.items():
            dumped[key] = buf.to(torch.bfloat16)  # positive: f3 CL001 whole key/value buffers out of the dict
        locs = forward_batch.out_cache_loc
        active = {k: b[locs].to(torch.bfloat16) for k, b in self.snap.items()}  # negative: active rows first
        widths = {k: b.to("cpu", non_blocking=True) for k, b in self.snap.items() if b.dim() == 1}  # negative: device move
        return dumped, active, widths
