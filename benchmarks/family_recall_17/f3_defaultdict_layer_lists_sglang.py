"""sglang: a backend groups each layer's buffers in a defaultdict(list) at init; the
decode step unpacks the list and widens both buffers."""
from collections import defaultdict

import torch


class GroupedTorchBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.bufs = defaultdict(list)
        self.scales = defaultdict(list)
        for i in range(pool.start_layer, pool.end_layer):
            self.bufs[i].append(pool.get_key_buffer(i))
            self.bufs[i].append(pool.get_value_buffer(i))
            self.scales[i].append(torch.ones((), device=model_runner.device))
        self.sm80 = True

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self.bufs[layer.layer_id]
        (k_scale,) = self.scales[layer.layer_id]
        k_scale = k_scale.to(q.dtype)  # negative: a per-layer scalar scale
        if self.sm80:
            k_buf = k_buf.to(q.dtype)  # positive: f3 CL001 whole key layer from the per-layer list
            v_buf = v_buf.to(q.dtype)  # positive: f3 CL001 whole value layer from the per-layer list
        return self._decode(q, k_buf, v_buf, k_scale, forward_batch)

    def _decode(self, q, k_buf, v_buf, k_scale, forward_batch):
        return q
