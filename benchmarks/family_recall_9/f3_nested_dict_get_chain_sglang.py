"""Per-group dicts of per-layer buffers read with `d.get(group, {}).get(layer_id)`."""
import torch


class GroupedBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.by_group = {}
        for lid in range(pool.start_layer, pool.end_layer):
            grp = "full" if lid % 4 == 3 else "swa"
            self.by_group.setdefault(grp, {})[lid] = (pool.get_key_buffer(lid), pool.get_value_buffer(lid))
        self.lens_by_group = {"full": {}, "swa": {}}
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        grp = "full" if layer.layer_id % 4 == 3 else "swa"
        kb, vb = self.by_group.get(grp, {}).get(layer.layer_id)
        kd = kb.to(self.dtype)  # positive: f3 CL001 K buffer from a nested dict.get chain
        vd = self.by_group[grp][layer.layer_id][1].to(self.dtype)  # positive: f3 CL001 V buffer from the nested dicts
        ln = self.lens_by_group.get(grp, {}).get(layer.layer_id, forward_batch.seq_lens)
        ln_i = ln.to(torch.int32)  # negative: lengths (default is the batch's seq_lens)
        return q, kd, vd, ln_i
