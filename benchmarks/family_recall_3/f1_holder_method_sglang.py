"""MLA decode through a small holder object that owns the token pool."""
from typing import Optional

import torch

from sglang.srt.layers.radix_attention import RadixAttention
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


class _PoolHolder:
    def __init__(self, token_to_kv_pool):
        self._pool = token_to_kv_pool

    def keys(self, layer_id: int) -> torch.Tensor:
        return self._pool.get_key_buffer(layer_id)

    def values(self, layer_id: int) -> torch.Tensor:
        return self._pool.get_value_buffer(layer_id)

    def scale(self, layer_id: int) -> torch.Tensor:
        return self._pool.k_scale_buffer[layer_id]


class HolderMLABackend:
    def __init__(self, model_runner):
        self.holder = _PoolHolder(model_runner.token_to_kv_pool)
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.decode_wrapper = None

    def forward_decode(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        layer: RadixAttention,
        forward_batch: ForwardBatch,
        save_kv_cache: bool = True,
        q_rope: Optional[torch.Tensor] = None,
    ):
        k_buffer = self.holder.keys(layer.layer_id).to(q.dtype)  # positive: f1 CL001 holder.keys returns the whole per-layer pool
        q_nope = q.view(-1, layer.tp_q_head_num, layer.head_dim)
        scale = self.holder.scale(layer.layer_id).to(q.dtype)  # negative: per-layer scale tensor is tiny
        o = self.decode_wrapper.run(
            q_nope[:, :, : self.kv_lora_rank],
            q_nope[:, :, self.kv_lora_rank :],
            k_buffer[:, :, : self.kv_lora_rank],
            k_buffer[:, :, self.kv_lora_rank :],
        )
        return o * scale

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        k_rows = self.holder.keys(layer.layer_id)[loc].to(q.dtype)  # negative: gather first, only the step's rows
        v_all = self.holder.values(layer.layer_id)
        v_cast = v_all.to(q.dtype)  # positive: f1 CL001 whole value pool via holder.values
        k_sel = self.holder.keys(layer.layer_id).to(q.dtype)[loc]  # positive: f1 CL003 holder.keys cast then gathered
        return k_rows, v_cast, k_sel
