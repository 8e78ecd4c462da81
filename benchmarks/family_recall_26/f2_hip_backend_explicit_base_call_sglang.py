import torch

from sglang.srt.layers.attention.triton_backend import TritonAttnBackend


class HipTritonAttnBackend(TritonAttnBackend):
    """gfx90a decode: the Triton decode kernel cannot load FP8 KV, so call the base reader by name."""

    def _key_cache(self, layer):
        return self.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def _value_cache(self, layer):
        return self.token_to_kv_pool.get_value_buffer(layer.layer_id)

    def _key_scale(self, layer):
        return layer.k_scale


class Gfx90aTritonAttnBackend(HipTritonAttnBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_cache = HipTritonAttnBackend._key_cache(self, layer).to(q.dtype)  # positive: f2 CL001 base reader called by class name, then whole-buffer cast
        v_cache = HipTritonAttnBackend._value_cache(self, layer).to(q.dtype)  # positive: f2 CL001 same for the value buffer
        ks = HipTritonAttnBackend._key_scale(self, layer)
        ks = None if ks is None else ks.float()  # negative: scale
        o = q.new_empty(q.shape)
        self.decode_attention_fwd(q, k_cache, v_cache, o, forward_batch, ks)
        return o
