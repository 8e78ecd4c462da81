"""sglang ROCm gfx950 (MI355X) Triton MLA: EAGLE draft extend widens the target latent buffer when aiter's FP8 route is off."""
import torch


class HipTritonMLADraftBackend:
    def __init__(self, model_runner, gfx_arch="gfx950", use_aiter_fp8=False):
        self.gfx_arch = gfx_arch
        self.use_aiter_fp8 = use_aiter_fp8
        self.model_dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k.to(pool.dtype), v)  # negative: writer of new tokens
        if forward_batch.forward_mode.is_draft_extend() and not self.use_aiter_fp8:
            kv = pool.get_key_buffer(layer.layer_id).to(self.model_dtype)  # positive: f6 CL001 whole target latent buffer per draft extend on gfx950
        else:
            kv = pool.get_key_buffer(layer.layer_id)
        q = q.to(kv.dtype)  # negative: the query
        return q, kv
