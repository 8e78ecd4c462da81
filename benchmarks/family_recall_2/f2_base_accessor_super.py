# A base backend owns the pool accessors; subclasses reach them via self. and super().
from typing import Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PoolAwareBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.device = model_runner.device

    def _whole_k(self, layer) -> torch.Tensor:
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def _whole_kv(self, layer_id: int):
        return self.token_to_kv_pool.get_kv_buffer(layer_id)

    def _slots(self, layer, loc: torch.Tensor) -> torch.Tensor:
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc]


class XPUStyleMLABackend(PoolAwareBackend):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.q_dtype = model_runner.dtype

    def _whole_k(self, layer) -> torch.Tensor:
        # keep the base behaviour, only add a sanity check
        buf = super()._whole_k(layer)
        assert buf.dim() == 3
        return buf

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buffer = self._whole_k(layer).to(q.dtype)  # positive: f2 CL001 subclass override delegates to base accessor via super()
        rows = self._slots(layer, forward_batch.out_cache_loc).to(q.dtype)  # negative: base helper gathers slots
        return k_buffer, rows

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = super()._whole_kv(layer.layer_id)
        k16 = k_cache.half()  # positive: f2 CL001 super()._whole_kv() first element is the whole key pool
        v16 = v_cache.to(self.q_dtype)  # positive: f2 CL001 super()._whole_kv() second element is the whole value pool
        k_in = k.to(self.q_dtype)  # negative: new tokens' k
        k_dev = self._whole_k(layer).to(self.device)  # negative: device move
        return k16, v16, k_in, k_dev


class MusaStyleMLABackend(XPUStyleMLABackend):
    """Two levels down: still reaches PoolAwareBackend._whole_k through XPUStyleMLABackend."""

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        latent = self._whole_k(layer)
        latent_f = latent.float()  # positive: f2 CL001 grandparent accessor through the parent override
        nope = latent[forward_batch.out_cache_loc, :, :512].to(q.dtype)  # negative: slots gathered first
        late = self._whole_k(layer).to(q.dtype)[forward_batch.out_cache_loc]  # positive: f2 CL003 inherited accessor: whole cast, then a gather
        return latent_f, nope, late
