from dataclasses import dataclass

import torch


@dataclass
class GroupMeta:
    pool: object
    page_table: torch.Tensor


@dataclass
class HybridMeta:
    groups: list
    seq_lens: torch.Tensor


class HybridSWABackend:
    def __init__(self, model_runner):
        self.full_pool = model_runner.token_to_kv_pool.full_kv_pool
        self.swa_pool = model_runner.token_to_kv_pool.swa_kv_pool
        self.dtype = model_runner.dtype

    def init_forward_metadata(self, forward_batch):
        self.meta = HybridMeta(
            groups=[GroupMeta(self.full_pool, forward_batch.full_table),
                    GroupMeta(self.swa_pool, forward_batch.swa_table)],
            seq_lens=forward_batch.seq_lens,
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        g = self.meta.groups[layer.group_id]
        key = g.pool.get_key_buffer(layer.layer_id).to(self.dtype)  # positive: f1 CL001 pool carried by a per-group sub-record of the metadata
        val = g.pool.get_value_buffer(layer.layer_id)
        val = val.to(self.dtype)  # positive: f1 CL001 value buffer of the group's pool
        table = g.page_table.to(torch.int32)  # negative: page table of the step
        lens = self.meta.seq_lens.to(torch.int32)  # negative: sequence lengths
        return key, val, table, lens
