"""A dict made with dict.fromkeys(layer ids) and filled with the pool's buffers."""
import torch


class FromKeysBackend:
    def __init__(self, pool, layer_ids):
        self.latent = dict.fromkeys(layer_ids)
        for lid in layer_ids:
            self.latent[lid] = pool.get_key_buffer(lid)
        self.widths = dict.fromkeys(layer_ids, torch.tensor(576))

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.latent[layer.layer_id]
        if buf is None:
            return None
        up = buf.to(q.dtype)  # positive: f3 CL001 buffer filled into a fromkeys dict
        w = self.widths[layer.layer_id].to(torch.int32)  # negative: a width scalar
        loc = forward_batch.out_cache_loc
        new = buf[loc].to(q.dtype)  # negative: gather-then-cast
        return up, w, new
