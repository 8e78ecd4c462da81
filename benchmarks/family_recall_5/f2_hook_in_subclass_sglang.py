"""Base forward calls a per-layer hook; subclasses decide what it reads."""

import torch


class HookedBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self._materialize(layer, forward_batch)
        o = q.new_empty(q.shape[0], layer.tp_q_head_num, layer.v_head_dim)
        torch.ops.sgl_kernel.mla_decode(q, kv, o, forward_batch.seq_lens)
        return o

    def _materialize(self, layer, forward_batch):
        idx = forward_batch.decode_kv_indices
        return self.pool.get_key_buffer(layer.layer_id)[idx].to(self.dtype)  # negative: gather-then-cast in the base hook


class DenseHookBackend(HookedBackend):
    def _materialize(self, layer, forward_batch):
        return self.pool.get_key_buffer(layer.layer_id).to(self.dtype)  # positive: f2 CL001 overriding hook called from the base forward_decode casts the whole buffer


class PrefixHookBackend(HookedBackend):
    def _materialize(self, layer, forward_batch):
        n = forward_batch.seq_lens_sum
        return self.pool.get_key_buffer(layer.layer_id)[:n].to(self.dtype)  # negative: only the step's first n rows


class ScaledDenseHookBackend(DenseHookBackend):
    def _materialize(self, layer, forward_batch):
        base = super()._materialize(layer, forward_batch)
        return base * layer.k_scale  # note: scaling an already-cast tensor, the cast is labelled in DenseHookBackend
