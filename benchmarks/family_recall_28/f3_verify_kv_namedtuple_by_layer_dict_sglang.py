"""sglang EAGLE target verify: a dict layer_id -> VerifyKV NamedTuple is filled per batch, read in forward_extend."""
from typing import NamedTuple

import torch


class VerifyKV(NamedTuple):
    key: torch.Tensor
    value: torch.Tensor
    loc: torch.Tensor


class TargetVerifyTritonBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.entries = {}

    def init_forward_metadata(self, forward_batch):
        loc = forward_batch.out_cache_loc
        self.entries = {lid: VerifyKV(self.pool.get_key_buffer(lid), self.pool.get_value_buffer(lid), loc) for lid in range(self.pool.start_layer, self.pool.end_layer)}

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        entry = self.entries[layer.layer_id]
        if forward_batch.forward_mode.is_target_verify():
            k_all = entry.key.to(q.dtype)  # positive: f3 CL001 the record's whole per-layer key buffer
            v_draft = entry.value[entry.loc].to(q.dtype)  # negative: draft-token rows gathered first
        elif forward_batch.forward_mode.is_draft_extend():
            k_all, v_draft = entry.key.float(), entry.value  # positive: f3 CL001 whole key buffer from the record (draft extend)
        else:
            k_all, v_draft = entry.key, entry.value
        mask = forward_batch.spec_info.custom_mask.to(torch.bool)  # negative: tree mask
        return torch.ops.sgl_kernel.verify_attention(q, k_all, v_draft, mask)
