# sglang MLA backends: a shared base forward_decode and a variant for cards whose MLA kernel lacks FP8 KV.
import torch


class MLABackendBase:
    def _latent_cache(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        kv = self._latent_cache(layer, forward_batch)
        return self._run_mla(q, kv, layer, forward_batch)


class NoFp8MLABackend(MLABackendBase):
    def __init__(self, model_runner):
        self.compute_dtype = model_runner.dtype
        self.kv_dtype = model_runner.kv_cache_dtype

    def _run_mla(self, q, kv, layer, forward_batch):
        if kv.dtype != self.compute_dtype:
            kv = kv.to(self.compute_dtype)  # positive: f2 CL001 latent pool from the base class hook, per decode
        scale = layer.k_scale.to(self.compute_dtype) if layer.k_scale is not None else None  # negative: scale
        return self._mla_kernel(q.to(self.compute_dtype), kv, scale, forward_batch)  # negative: query
