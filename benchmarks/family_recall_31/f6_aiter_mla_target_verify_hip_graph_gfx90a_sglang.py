# sglang ROCm aiter MLA backend, EAGLE target verify replayed in a HIP graph on gfx90a (no FP8 MFMA): the
# verify path widens the whole latent buffer at every replay; gfx94x reads FP8 natively.
import torch


class AiterMLAVerifyBackend:
    def __init__(self, model_runner, gfx_arch: str):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype
        self.native_fp8 = gfx_arch.startswith("gfx94")

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k.to(self.pool.dtype), v)  # negative: writer of the new tokens
        kv = self.pool.get_key_buffer(layer.layer_id)
        if forward_batch.forward_mode.is_target_verify() and not self.native_fp8:
            kv = kv.to(self.model_dtype)  # positive: f6 CL001 whole per-layer latent buffer inside the replayed verify graph
        kv_pages = kv.view(-1, 1, 1, kv.shape[-1])
        q_nope = q.view(-1, layer.tp_q_head_num, layer.head_dim)
        mask = forward_batch.spec_info.custom_mask
        return self.mla_decode_fwd(q_nope, kv_pages, self.verify_indptr, self.verify_indices, mask)
