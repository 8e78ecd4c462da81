"""Backend that builds the arena pool imported from the package."""

import torch

from . import KVArena


class ArenaBackend:
    def __init__(self, model_runner):
        cfg = model_runner.model_config
        self.arena = KVArena(model_runner.max_total_num_tokens, cfg.num_hidden_layers, cfg.kv_lora_rank + 64, "cuda")
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        seg = self.arena.segment(layer.layer_id)
        sd = seg.to(self.dtype)  # positive: f7 CL001 segment accessor of the pool class defined in pool.py
        s = self.arena.scales.to(self.dtype)  # negative: per-layer scales
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, sd, s, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        dense = self.arena.segment_f32(layer.layer_id)
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q.float(), dense, o, forward_batch.extend_seq_lens)  # negative: batch query
        return o
