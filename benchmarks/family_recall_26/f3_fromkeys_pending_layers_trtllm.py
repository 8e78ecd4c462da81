import torch


class LayerwiseOffloader:
    """Fills a dict.fromkeys placeholder per layer during forward, converts in prepare of the next step."""

    def __init__(self, kv_cache_manager, layer_ids, host_dtype=torch.bfloat16):
        self.mgr = kv_cache_manager
        self.layer_ids = list(layer_ids)
        self.host_dtype = host_dtype
        self.pending = dict.fromkeys(self.layer_ids)

    def on_layer_done(self, layer_idx):
        self.pending[layer_idx] = self.mgr.get_buffers(layer_idx)

    def prepare(self, scheduled_requests):
        out = {
            i: buf.to(self.host_dtype, non_blocking=True)  # positive: f3 CL001 whole layers held in a fromkeys dict, converted each step
            for i, buf in self.pending.items()
            if buf is not None
        }
        ids = scheduled_requests.block_ids
        picked = {i: b[ids].to(self.host_dtype) for i, b in self.pending.items() if b is not None}  # negative: scheduled blocks gathered first
        self.pending = dict.fromkeys(self.layer_ids)
        return out, picked

    def to_host(self, out):
        return {i: t.to("cpu") for i, t in out.items()}  # negative: device move
