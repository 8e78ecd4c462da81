# sglang MLA CUDA graph runner for an FP8 pool on a kernel without FP8-KV support: the pool's bound
# accessors are fetched together with operator.attrgetter and kept in a NamedTuple under other names.
import operator
from typing import Callable, NamedTuple

import torch


class _Accessors(NamedTuple):
    key: Callable
    value: Callable
    rows: Callable


_FETCH = operator.attrgetter("get_key_buffer", "get_value_buffer", "get_mla_kv_buffer")


class MLAGraphInputs:
    def __init__(self, model_runner):
        self.acc = _Accessors(*_FETCH(model_runner.token_to_kv_pool))
        self.model_dtype = model_runner.dtype
        self.static_k, self.static_v = {}, {}

    def capture(self, layer_ids):
        for lid in layer_ids:
            self.static_k[lid] = torch.empty_like(self.acc.key(lid), dtype=self.model_dtype)  # negative: allocation at capture
            self.static_v[lid] = torch.empty_like(self.acc.value(lid), dtype=self.model_dtype)  # negative: allocation at capture

    def replay(self, forward_batch):
        for lid in self.static_k:
            self.static_k[lid].copy_(self.acc.key(lid).to(self.model_dtype))  # positive: f1 CL001 whole per-layer latent buffer through the stored bound accessor, per replay
            self.static_v[lid].copy_(self.acc.value(lid).to(self.model_dtype))  # positive: f1 CL001 whole per-layer value view through the stored bound accessor

    def draft_rows(self, layer, loc):
        return self.acc.rows(layer, loc, self.model_dtype)  # negative: fused gather + cast of the batch's rows
