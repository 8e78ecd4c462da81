"""sglang EAGLE target verify: a SpecKVInputs dataclass whose fields are LayerKV NamedTuples."""
from dataclasses import dataclass
from typing import NamedTuple

import torch


class LayerKV(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor


@dataclass
class SpecKVInputs:
    target: LayerKV
    accepted_loc: torch.Tensor


class EagleVerifyBackend:
    def init_forward_metadata(self, forward_batch):
        self.accepted_loc = forward_batch.spec_info.accepted_indices

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        inp = SpecKVInputs(LayerKV(pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)), self.accepted_loc)
        if forward_batch.forward_mode.is_target_verify():
            key = inp.target.k.to(q.dtype)  # positive: f3 CL001 whole target key buffer through the nested record
            value = inp.target.v.to(q.dtype)  # positive: f3 CL001 whole target value buffer through the nested record
        else:
            key = inp.target.k[inp.accepted_loc].to(q.dtype)  # negative: accepted rows gathered first
            value = inp.target.v[inp.accepted_loc].to(q.dtype)  # negative: accepted rows gathered first
        return q, key, value
