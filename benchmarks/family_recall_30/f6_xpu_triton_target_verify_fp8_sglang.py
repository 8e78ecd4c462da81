"""sglang Intel XPU Triton backend: EAGLE target verify with an FP8 pool widens both whole layers."""
import torch

from sglang.srt.layers.attention.triton_backend import TritonAttnBackend


class XPUTritonAttnBackend(TritonAttnBackend):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv_is_fp8 = model_runner.kv_cache_dtype in (torch.float8_e4m3fn, torch.float8_e5m2)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        if forward_batch.forward_mode.is_target_verify() and self.kv_is_fp8:
            kb = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole key layer in target verify
            vb = pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 whole value layer
            mask = forward_batch.spec_info.custom_mask.to(torch.bool)  # negative: tree mask
            return self._tree_attend(q, kb, vb, mask, layer)
        prefix = self.forward_metadata.kv_indices
        kp = pool.get_key_buffer(layer.layer_id)[prefix].to(q.dtype)  # negative: prefix rows of this batch
        return self._extend(q, k, v, kp, layer)
