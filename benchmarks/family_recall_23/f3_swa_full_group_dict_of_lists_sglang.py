# sglang hybrid SWA/full attention: a dict of per-kind lists of (layer_id, k, v) built from the pool.
from collections import Counter

import torch


class HybridDebugStats:
    def __init__(self, pool, layer_kinds):
        self.by_kind = {"full": [], "swa": []}
        for layer_id, kind in enumerate(layer_kinds):
            self.by_kind[kind].append((layer_id, pool.get_key_buffer(layer_id), pool.get_value_buffer(layer_id)))
        self.counts = Counter(layer_kinds)

    def on_decode(self, forward_batch):
        for layer_id, k_buf, v_buf in self.by_kind["full"]:
            self.norms[layer_id] = k_buf.to(torch.float32).norm()  # positive: f3 CL001 whole key buffer from the dict of lists
        for layer_id, k_buf, v_buf in self.by_kind["swa"]:
            window = k_buf[forward_batch.swa_window_loc]
            self.norms[layer_id] = window.to(torch.float32).norm()  # negative: window rows selected first


class ModelRunner:
    def forward_decode(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        out = self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)
        self.hybrid_stats.on_decode(forward_batch)
        return out
