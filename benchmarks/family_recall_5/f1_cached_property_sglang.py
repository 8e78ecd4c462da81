"""MLA decode backend that reads the latent pool through a cached_property helper."""

from functools import cached_property

import torch


class LatentPlanes:
    """Lazily collects the per-layer latent planes of a token-to-KV pool."""

    def __init__(self, pool):
        self._pool = pool

    @cached_property
    def planes(self):
        return [self._pool.get_key_buffer(i) for i in range(self._pool.layer_num)]

    @cached_property
    def staging(self):
        return torch.empty(64, 576, dtype=torch.bfloat16, device="cuda")


class CachedPlaneBackend:
    def __init__(self, model_runner):
        self.src = LatentPlanes(model_runner.token_to_kv_pool)
        self.k_scale = torch.ones(1, dtype=torch.float32, device="cuda")
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        t = self.src.planes[layer.layer_id].to(q.dtype)  # positive: f1 CL001 cached_property list of every layer's pool plane, whole plane cast
        tmp = self.src.staging.to(q.dtype)  # negative: 64-row staging tensor built by the helper, not the pool
        s = self.k_scale.to(q.dtype)  # negative: per-tensor scale
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, self.kv_lora_rank)
        self._mla_decode(q * s, t, tmp, o, forward_batch)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        rows = self.src.planes[layer.layer_id][loc].to(q.dtype)  # negative: gather-then-cast of this step's rows
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, self.kv_lora_rank)
        self._mla_extend(q, rows, o, forward_batch)
        return o

    def _mla_decode(self, q, kv, tmp, o, forward_batch):
        torch.ops.sgl_kernel.mla_decode(q, kv, tmp, o, forward_batch.seq_lens)

    def _mla_extend(self, q, kv, o, forward_batch):
        torch.ops.sgl_kernel.mla_extend(q, kv, o, forward_batch.extend_seq_lens)
