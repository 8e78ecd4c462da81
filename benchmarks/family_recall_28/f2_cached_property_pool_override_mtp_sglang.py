"""sglang MTP draft backend: the base resolves the pool in a cached_property that the draft subclass overrides."""
import functools

import torch


class TritonMLABackendBase:
    def __init__(self, model_runner):
        self.model_runner = model_runner

    @functools.cached_property
    def kv_pool(self):
        return self.model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k.to(self.kv_pool.dtype), v)  # negative: new tokens written
        kv = self.kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f2 CL001 whole per-layer buffer; for the MTP subclass the target's pool
        return self._decode(q, kv, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        prefix = self.kv_pool.get_key_buffer(layer.layer_id)[forward_batch.prefix_loc].to(q.dtype)  # negative: prefix rows gathered first
        return self._extend(q, k, prefix, forward_batch)

    def _decode(self, q, kv, forward_batch):
        return torch.ops.sgl_kernel.mla_decode(q, kv, forward_batch.seq_lens)

    def _extend(self, q, k, prefix, forward_batch):
        return torch.ops.sgl_kernel.mla_extend(q, k, prefix, forward_batch.extend_seq_lens)


class MTPDraftMLABackend(TritonMLABackendBase):
    def __init__(self, model_runner, target_runner):
        super().__init__(model_runner)
        self.target_runner = target_runner

    @functools.cached_property
    def kv_pool(self):
        return self.target_runner.token_to_kv_pool
