import torch


class MLAPoolMixin:
    def _latent(self, forward_batch, layer):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def _latent_upcast(self, forward_batch, layer, dtype):
        return self._latent(forward_batch, layer).to(dtype)  # positive: f7 CL001 mixin helper reads the pool itself


class PlanMixin:
    def _plan_decode(self, wrapper, md, q_dtype, kv_dtype):
        wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, q_dtype, kv_dtype)  # note: dtypes from callers
